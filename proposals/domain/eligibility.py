"""Eligibility checks for the AI for Industrial Innovation call family.

VAT numbers are checked offline (format and check digits) with python-stdnum: EU
numbers through ``stdnum.eu.vat`` (the country prefix is added when missing, with
"EL" for Greece), associated countries through their national module as listed in
``countries.json``. Countries without a module get ``VatCheck.UNCHECKED``.
"""

from __future__ import annotations

import enum
import importlib

from stdnum.exceptions import ValidationError

from .countries import EU_MEMBER, country

# The EU VAT prefix differs from the ISO code for Greece only.
EU_VAT_PREFIX = {"GR": "EL"}


class VatCheck(enum.Enum):
    """Outcome of an offline VAT number check."""

    MISSING = "missing"
    VALID = "valid"
    INVALID = "invalid"
    UNCHECKED = "unchecked"  # no offline validator for the country


def check_vat(country_code: str, vat_number: str) -> VatCheck:
    """Check ``vat_number`` for an organisation incorporated in ``country_code``."""
    number = (vat_number or "").strip()
    if not number:
        return VatCheck.MISSING
    entry = country(country_code)
    if entry is None or entry.vat_validator is None:
        return VatCheck.UNCHECKED
    module = importlib.import_module(f"stdnum.{entry.vat_validator}")
    if entry.status == EU_MEMBER:
        prefix = EU_VAT_PREFIX.get(entry.code, entry.code)
        compact = number.replace(" ", "").replace(".", "").replace("-", "").upper()
        if not compact[:2].isalpha():
            number = prefix + compact
    try:
        module.validate(number)
    except (ValidationError, ValueError):
        return VatCheck.INVALID
    return VatCheck.VALID
