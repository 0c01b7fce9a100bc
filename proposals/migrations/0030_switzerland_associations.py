"""Switzerland is associated to Horizon Europe and the Digital Europe Programme from
1 January 2025 (agreement signed on 10 November 2025): fill its associations from
the shipped data where an administrator has not set any."""

import json
from pathlib import Path

from django.db import migrations

COUNTRIES = Path(__file__).resolve().parents[1] / "domain" / "countries.json"


def add_associations(apps, schema_editor):
    CountryEligibility = apps.get_model("proposals", "CountryEligibility")
    rows = json.loads(COUNTRIES.read_text(encoding="utf-8"))["countries"]
    for row in rows:
        if row["code"] != "CH" or not row.get("associations"):
            continue
        country = CountryEligibility.objects.filter(code="CH").first()
        if country is not None and not country.associations:
            country.associations = row["associations"]
            country.save(update_fields=["associations"])


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0029_gpu_models"),
    ]

    operations = [
        migrations.RunPython(add_associations, migrations.RunPython.noop),
    ]
