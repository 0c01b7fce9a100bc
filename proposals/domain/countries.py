"""Countries whose organisations may apply to the industrial call family.

The list lives in ``countries.json`` next to this module (EU member states and the
countries associated to Horizon 2020), so it can be updated without touching code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_FILE = Path(__file__).with_name("countries.json")
EU_MEMBER = "eu_member"
H2020_ASSOCIATED = "h2020_associated"


@dataclass(frozen=True)
class Country:
    """An eligible country and the python-stdnum modules that check its VAT ids
    (tried in order; empty when no offline check exists)."""

    code: str
    name: str
    status: str
    vat_validators: tuple[str, ...] = ()


@cache
def eligible_countries() -> dict[str, Country]:
    """Return the eligible countries keyed by ISO 3166-1 alpha-2 code."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return {
        row["code"]: Country(**{**row, "vat_validators": tuple(row["vat_validators"])})
        for row in data["countries"]
    }


# Offered in the wizard too: organisations from here may apply to the other call
# families (the eligibility findings say which).
OTHER_COUNTRIES = {
    "GB": "United Kingdom",
    "US": "United States",
    "CA": "Canada",
    "CN": "China",
    "IN": "India",
    "JP": "Japan",
    "KR": "South Korea",
    "SG": "Singapore",
    "AU": "Australia",
    "BR": "Brazil",
    "AE": "United Arab Emirates",
}


@cache
def selectable_codes() -> frozenset[str]:
    """Every country code the wizard offers: the eligible countries and the others."""
    return frozenset(eligible_countries()) | frozenset(OTHER_COUNTRIES)


def country(code: str) -> Country | None:
    """Return the eligible country with ``code`` (case-insensitive), else ``None``."""
    return eligible_countries().get((code or "").strip().upper())
