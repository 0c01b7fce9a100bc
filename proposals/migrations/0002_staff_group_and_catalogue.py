"""Create the "Support staff" group and load the cluster catalogue.

The catalogue's single source is ``fixtures/catalogue.json``; after this migration the
administrators maintain it in the admin. Existing rows (matched by slug) are left alone.
"""

import json
from pathlib import Path

from django.db import migrations

STAFF_GROUP = "Support staff"
CATALOGUE = Path(__file__).resolve().parents[2] / "fixtures" / "catalogue.json"
FIELDS = [
    "name",
    "site",
    "country",
    "gpus_per_node",
    "gpu_model",
    "gpu_memory_gb",
    "gpu_power_w",
    "gcds_per_gpu",
    "partitions",
    "default_partition",
    "carbon_intensity_g_per_kwh",
    "carbon_source",
    "site_carbon_intensity_g_per_kwh",
    "site_carbon_note",
    "billing_note",
    "source_url",
]


def forwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=STAFF_GROUP)
    Cluster = apps.get_model("proposals", "Cluster")
    for row in json.loads(CATALOGUE.read_text(encoding="utf-8")):
        # Systems not yet in production arrive with their own fields in 0051.
        if row.get("in_production") is False:
            continue
        defaults = {field: row[field] for field in FIELDS if field in row}
        for field in ("site_carbon_note", "default_partition", "billing_note"):
            if defaults.get(field) is None:
                defaults[field] = ""
        Cluster.objects.get_or_create(slug=row["slug"], defaults=defaults)


def backwards(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=STAFF_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("proposals", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
