"""Mark the call terms and billing units no public document was found for as
"Unverified" (issue 22), in the rows an administrator has not changed since they
were loaded from ``fixtures/call_terms.json`` and ``fixtures/catalogue.json``."""

import json
from pathlib import Path

from django.db import migrations

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
CAME_FROM = "the wizard's figure came from "
# The billing-unit source of MeluXina and Vega before this migration.
OLD_ASSUMPTION = (
    "No billing unit stated in the guides or the product specification; GPU-hours "
    "as in the AI Factory calls (assumption)"
)


def _old(new: str) -> str | None:
    """The source text an "Unverified" one replaces (``None``: not such a text)."""
    if not new.startswith("Unverified") or CAME_FROM not in new:
        return None
    old = new.split(CAME_FROM, 1)[1]
    return old[0].upper() + old[1:]


# Sources reworded to cite the guides first (the fact rests on them).
REWORDED = {
    "small_job_max_gpus": "Product specification §2 (many small runs of at most 2 "
    "nodes / 8 GPUs); BSC guide, many-small-jobs example",
}


def _update(sources: dict, defaults: dict) -> bool:
    changed = False
    for fact, value in defaults.items():
        current = sources.get(fact)
        old = _old(value["source"]) or REWORDED.get(fact)
        if isinstance(current, dict) and old and current.get("source") == old:
            sources[fact] = dict(value)
            changed = True
    return changed


def mark_unverified(apps, schema_editor):
    CallFamily = apps.get_model("proposals", "CallFamily")
    CallMode = apps.get_model("proposals", "CallMode")
    for row in json.loads((ROOT / "call_terms.json").read_text(encoding="utf-8")):
        family = CallFamily.objects.filter(slug=row["slug"]).first()
        if family is None:
            continue
        sources = dict(family.sources or {})
        if _update(sources, row.get("sources") or {}):
            family.sources = sources
            family.save(update_fields=["sources"])
        for mode_row in row.get("modes") or ():
            mode = CallMode.objects.filter(family=family, slug=mode_row["slug"]).first()
            if mode is None:
                continue
            sources = dict(mode.sources or {})
            if _update(sources, mode_row.get("sources") or {}):
                mode.sources = sources
                mode.save(update_fields=["sources"])
    Cluster = apps.get_model("proposals", "Cluster")
    for row in json.loads((ROOT / "catalogue.json").read_text(encoding="utf-8")):
        new = row.get("billing_unit_source", "")
        if not new.startswith("Unverified"):
            continue
        old = _old(new)
        olds = [text for text in (old, OLD_ASSUMPTION) if text]
        Cluster.objects.filter(slug=row["slug"], billing_unit_source__in=olds).update(
            billing_unit_source=new, billing_unit_checked=row["billing_unit_checked"]
        )


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0027_country_associations"),
    ]

    operations = [migrations.RunPython(mark_unverified, migrations.RunPython.noop)]
