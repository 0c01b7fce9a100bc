"""Rules that hold on real-world input: the ways people actually write VAT numbers,
hardware names, node counts and code descriptions. Each rule fires and stays quiet
on inputs written here."""

import pytest

from proposals.domain.countries import eligible_countries
from proposals.domain.eligibility import VatCheck, check_vat

from .builders import edit, example, findings

LUMI = "lumi-fast-lane"

# A valid number per country, written with its country prefix as applicants do.
WITH_PREFIX = {
    "AL": "AL J91402501L",
    "FO": "FO 623857",
    "IS": "IS 00621",
    "IL": "IL516179157",
    "MD": "MD1008600038413",
    "ME": "ME02655284",
    "MK": "MK4030000375897",
    "NO": "NO 995 525 828 MVA",
    "RS": "RS101134702",
    "CH": "CHE-107.787.577 MWST",
    "TN": "TN 1282182W",
    "TR": "TR4540536920",
    "UA": "UA32855961",
    "BE": "BE 0403.019.261",
    "DE": "DE136695976",
    "GR": "EL 094259216",
    "NL": "NL004495445B01",
    "FI": "FI 2077474-0",
    "SE": "SE123456789701",
}


def test_every_listed_country_has_a_case_or_no_validator():
    for code, entry in eligible_countries().items():
        if entry.status != "eu_member" and entry.vat_validators:
            assert code in WITH_PREFIX, code


@pytest.mark.parametrize(("country", "number"), sorted(WITH_PREFIX.items()))
def test_valid_number_with_country_prefix_is_accepted(country, number):
    assert check_vat(country, number) is VatCheck.VALID
    assert not findings(
        edit(
            example(LUMI),
            organisation__country=country,
            organisation__vat_number=number,
        ),
        "ELIG-2",
    )


@pytest.mark.parametrize(
    ("country", "number"),
    [
        ("CH", "CHE-107.787.577"),  # the UID without the MWST suffix
        ("NO", "995525828"),  # a bare Norwegian organisation number
        ("NO", "NO995525828"),
        ("TR", "4540536920"),
        ("FI", "20774740"),
        ("GR", "094259216"),
    ],
)
def test_other_usual_spellings_are_accepted(country, number):
    assert check_vat(country, number) is VatCheck.VALID


@pytest.mark.parametrize(
    ("country", "number"),
    [("TR", "TR4540536921"), ("FI", "FI20774741"), ("UA", "UA32855968")],
)
def test_wrong_check_digit_says_so(country, number):
    assert check_vat(country, number) is VatCheck.CHECKSUM
    (hit,) = findings(
        edit(
            example(LUMI),
            organisation__country=country,
            organisation__vat_number=number,
        ),
        "ELIG-2",
    )
    assert "check digit" in hit.message


@pytest.mark.parametrize(
    ("country", "number", "words"),
    [
        ("TR", "TR45405369", "not in the form"),
        ("FI", "DE136695976", "starts with DE"),
        ("CH", "hello", "not in the form"),
    ],
)
def test_wrong_form_is_not_called_a_check_digit_error(country, number, words):
    (hit,) = findings(
        edit(
            example(LUMI),
            organisation__country=country,
            organisation__vat_number=number,
        ),
        "ELIG-2",
    )
    assert words in hit.message and "check digit" not in hit.message


def test_country_without_validator_gets_a_note_only():
    (hit,) = findings(
        edit(example(LUMI), organisation__country="GE", organisation__vat_number="123"),
        "ELIG-2",
    )
    assert hit.severity == "info"
