"""Eligibility checks for the AI for Industrial Innovation call family.

VAT numbers are checked offline (format and check digits) with python-stdnum: EU
numbers through ``stdnum.eu.vat`` (the country prefix is added when missing, with
"EL" for Greece), associated countries through their national modules as listed in
``countries.json`` (tried in order, with and without the country prefix). A number in
the right format whose check digits do not match is ``VatCheck.CHECKSUM``; any other
failure ``VatCheck.INVALID``. Countries without a module get ``VatCheck.UNCHECKED``.
"""

from __future__ import annotations

import enum
import functools
import importlib

from stdnum.exceptions import InvalidChecksum, ValidationError

from .countries import EU_MEMBER, Countries, country, names

# The EU VAT prefix where it differs from the ISO code: Greece, and EU territory
# that ISO 3166 lists on its own, whose companies are registered in France (the
# outermost regions) or Finland (Åland).
EU_VAT_PREFIX = {
    "GR": "EL",
    **dict.fromkeys(("RE", "GF", "GP", "MQ", "YT", "MF"), "FR"),
    "AX": "FI",
}


class VatCheck(enum.Enum):
    """Outcome of an offline VAT number check."""

    MISSING = "missing"
    VALID = "valid"
    INVALID = "invalid"  # wrong format or length for the country
    CHECKSUM = "checksum"  # right format, but the check digits do not match
    UNCHECKED = "unchecked"  # no offline validator for the country


SEPARATORS = str.maketrans("", "", " .-/_")


def compact(number: str) -> str:
    """``number`` without separators, in upper case."""
    return (number or "").translate(SEPARATORS).upper()


def foreign_prefix(
    country_code: str, vat_number: str, countries: Countries | None = None
) -> str | None:
    """The two-letter prefix of ``vat_number`` when it names another country than
    ``country_code`` ("DE" on a Finnish number), else ``None``."""
    number = compact(vat_number)
    entry = country(country_code, countries)
    if entry is None or len(number) < 3 or not number[:2].isalpha():
        return None
    expected = {entry.code, EU_VAT_PREFIX.get(entry.code, entry.code)}
    prefix = number[:2]
    if prefix in expected or not number[2].isdigit():
        return None
    return prefix if prefix in names() or prefix == "EL" else None


def _candidates(entry, number: str) -> list[str]:
    """The number as written, and without the country prefix; EU numbers get their
    prefix added when missing (stdnum.eu.vat needs it, "EL" for Greece)."""
    if entry.status == EU_MEMBER:
        prefix = EU_VAT_PREFIX.get(entry.code, entry.code)
        return [number if number[:2].isalpha() else prefix + number]
    found = [number]
    if number.startswith(entry.code) and len(number) > 2:
        found.append(number[2:])
    return found


@functools.cache
def _validator(name: str):
    """The ``validate`` function of ``stdnum.<name>`` (looked up once: the
    import system's lookup cost a third of every check, on every autosave)."""
    return importlib.import_module(f"stdnum.{name}").validate


def check_vat(
    country_code: str, vat_number: str, countries: Countries | None = None
) -> VatCheck:
    """Check ``vat_number`` for an organisation incorporated in ``country_code``,
    with or without its country prefix and separators (``countries``: the
    eligibility data, default the shipped one)."""
    number = compact(vat_number)
    if not number:
        return VatCheck.MISSING
    entry = country(country_code, countries)
    if entry is None or not entry.vat_validators:
        return VatCheck.UNCHECKED
    if foreign_prefix(country_code, number, countries):
        return VatCheck.INVALID
    checksum = False
    for name in entry.vat_validators:
        validate = _validator(name)
        for candidate in _candidates(entry, number):
            try:
                validate(candidate)
            except InvalidChecksum:
                checksum = True
            except (ValidationError, ValueError):
                pass
            else:
                return VatCheck.VALID
    return VatCheck.CHECKSUM if checksum else VatCheck.INVALID
