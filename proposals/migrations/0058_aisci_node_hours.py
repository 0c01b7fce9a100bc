"""The AI for Science and Collaborative EU Projects call grants node-hours, 20,000 to
90,000 per project on each system it offers (EuroCC Turkey's documentation of the
2025 cut-offs): bring the unit, the bounds and their sources from
``fixtures/call_terms.json`` into existing databases. A mode an administrator has
changed (unit not GPU-hours, or a bound set) is left as it is."""

import json
from pathlib import Path

from django.db import migrations

TERMS = Path(__file__).resolve().parents[2] / "fixtures" / "call_terms.json"
FAMILY = MODE = "ai_for_science"
FACTS = ("request_unit", "min_hours", "max_hours")


def shipped() -> dict:
    rows = json.loads(TERMS.read_text(encoding="utf-8"))
    family = next(row for row in rows if row["slug"] == FAMILY)
    return next(m for m in family["modes"] if m["slug"] == MODE)


def load_node_hours(apps, schema_editor):
    CallMode = apps.get_model("proposals", "CallMode")
    mode = CallMode.objects.filter(family__slug=FAMILY, slug=MODE).first()
    if mode is None:
        return
    as_shipped = (
        mode.request_unit == "gpu_hours"
        and mode.min_hours is None
        and mode.max_hours is None
    )
    if not as_shipped:
        return
    row = shipped()
    sources = dict(mode.sources or {})
    for fact in FACTS:
        setattr(mode, fact, row[fact])
        sources[fact] = dict(row["sources"][fact])
    mode.sources = sources
    mode.save(update_fields=[*FACTS, "sources"])


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0057_deskholes_shared_views"),
    ]

    operations = [
        migrations.RunPython(load_node_hours, migrations.RunPython.noop),
    ]
