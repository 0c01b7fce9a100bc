"""The VAT field's example is the organisation's country's (issue 36: a Finnish
number for every country), and each example is a number the wizard accepts."""

import pytest

from proposals.domain.countries import eligible_countries
from proposals.domain.eligibility import VatCheck, check_vat
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.vat_examples import VAT_EXAMPLES, vat_example

CHECKED = sorted(c.code for c in eligible_countries().values() if c.vat_validators)


@pytest.mark.parametrize("code", CHECKED)
def test_every_country_whose_numbers_are_checked_has_a_valid_example(code):
    example = vat_example(code)
    assert example, f"no VAT example for {code}"
    assert check_vat(code, example) is VatCheck.VALID, (code, example)


def test_no_example_for_a_country_the_eligibility_data_does_not_check():
    assert set(VAT_EXAMPLES) <= set(CHECKED)
    assert vat_example("") == vat_example(None) == vat_example("AM") == ""


@pytest.mark.parametrize(
    ("country", "example"),
    [("DE", "DE136695976"), ("it", "IT00743110157"), ("RE", "FR40303265045")],
)
def test_the_vat_field_shows_the_organisations_countrys_example(country, example):
    spec = FIELD_BY_KEY["vat_number"]
    assert [e.text for e in spec.examples_for(None, None, country)] == [example]
    assert spec.examples_for(None, None, None) == ()
