"""Issue 32: the Digital Europe association agreements with their dates and sources
(Ukraine, Albania, Montenegro, North Macedonia, Serbia, Türkiye, Moldova),
Liechtenstein (Digital Europe as an EEA EFTA state), and Canada, New Zealand and
the Republic of Korea (Horizon Europe Pillar II only, unverified for the AI Factory
calls). Rows the database lacks are created from the shipped data; an association
is added where the row has none for that list, and replaced where the shipped one
was checked later than the stored one (an administrator's newer edit is kept)."""

import datetime
import json
from pathlib import Path

from django.db import migrations

COUNTRIES = Path(__file__).resolve().parents[1] / "domain" / "countries.json"
CODES = {
    "AL",
    "ME",
    "MK",
    "RS",
    "UA",
    "MD",
    "TR",
    "LI",
    "CA",
    "NZ",
    "KR",
    "AM",
    "BA",
    "FO",
    "GE",
    "IS",
    "IL",
    "NO",
    "TN",
}


def _date(text):
    try:
        return datetime.date.fromisoformat(str(text or ""))
    except ValueError:
        return datetime.date.min


def update(apps, schema_editor):
    CountryEligibility = apps.get_model("proposals", "CountryEligibility")
    rows = json.loads(COUNTRIES.read_text(encoding="utf-8"))["countries"]
    for row in rows:
        if row["code"] not in CODES:
            continue
        stored = CountryEligibility.objects.filter(code=row["code"]).first()
        if stored is None:
            CountryEligibility.objects.create(
                code=row["code"],
                status=row["status"],
                programme=row.get("programme", ""),
                vat_validators=row.get("vat_validators", []),
                source=row["source"],
                checked=_date(row["checked"]),
                associations=row.get("associations", []),
            )
            continue
        associations = list(stored.associations or [])
        for shipped in row.get("associations", []):
            same = [
                i
                for i, a in enumerate(associations)
                if isinstance(a, dict) and a.get("status") == shipped["status"]
            ]
            if not same:
                associations.append(shipped)
            elif _date(associations[same[0]].get("checked")) < _date(
                shipped["checked"]
            ):
                associations[same[0]] = shipped
        if associations != stored.associations:
            stored.associations = associations
            stored.save(update_fields=["associations"])


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0036_together_revision_stamps"),
    ]

    operations = [
        migrations.RunPython(update, migrations.RunPython.noop),
    ]
