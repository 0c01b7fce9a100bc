"""Numbers as people write them: one parser, an explicit number format per person."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proposals.domain.numbers import (
    NUMBER_FORMAT_BY_NAME,
    NUMBER_FORMATS,
    NumberError,
    format_for_languages,
    format_number,
    parse_number,
)

EN, DE, FI = (NUMBER_FORMAT_BY_NAME[name] for name in ("en", "de", "fi"))


@pytest.mark.parametrize(
    ("text", "fmt", "places", "value", "ambiguous"),
    [
        ("18176", EN, 2, "18176", False),
        ("18,176", EN, 2, "18176", False),
        ("18 176", EN, 2, "18176", False),
        ("18\u00a0176", DE, 2, "18176", False),
        ("18\u202f176", FI, 2, "18176", False),
        ("18.176", DE, 2, "18176", False),
        ("18.176", FI, 2, "18176", False),
        # English reads 18.176 as a decimal, which GPU-hours (2 places) cannot hold:
        # read as eighteen thousand, and said so.
        ("18.176", EN, 2, "18176", True),
        ("5.001", EN, 2, "5001", True),
        ("0,2", DE, 2, "0.2", False),
        ("0,2", FI, 2, "0.2", False),
        ("0,2", EN, 2, "0.2", True),
        ("0.2", EN, 2, "0.2", False),
        ("8,000", EN, 0, "8000", True),
        ("1.234,5", DE, 2, "1234.5", False),
        ("-5", EN, 2, "-5", False),
        ("\u22123", FI, 2, "-3", False),
        ("  42 ", FI, 0, "42", False),
    ],
)
def test_reads_numbers_as_people_write_them(text, fmt, places, value, ambiguous):
    reading = parse_number(text, fmt, places=places)
    assert reading.value == Decimal(value)
    assert reading.ambiguous is ambiguous


@pytest.mark.parametrize("text", ["12abc", "1e20", "eight", "12.5.3", "1,2,3", "", "-"])
def test_refuses_what_is_not_a_number(text):
    with pytest.raises(NumberError):
        parse_number(text, EN, places=2)


def test_refuses_more_decimals_than_the_field_holds():
    with pytest.raises(NumberError, match="whole number"):
        parse_number("2.5", EN, places=0)
    with pytest.raises(NumberError, match="2 decimal places"):
        parse_number("0.125", DE, places=2)


def test_prints_each_format():
    assert format_number(Decimal("18176.5"), EN) == "18,176.5"
    assert format_number(Decimal("18176.5"), DE) == "18.176,5"
    assert format_number(Decimal("18176.5"), FI) == "18\u00a0176,5"
    assert format_number(Decimal("18176.50"), EN, grouping=False) == "18176.5"
    assert format_number(Decimal("-1E+3"), DE) == "-1.000"


def test_format_from_browser_languages():
    assert format_for_languages(["de-DE", "en"]) is DE
    assert format_for_languages(["fi-FI"]) is FI
    assert format_for_languages(["xx", "en-US"]) is EN
    assert format_for_languages([]) is EN


values = st.decimals(
    min_value=Decimal("-1e12"),
    max_value=Decimal("1e12"),
    places=4,
    allow_nan=False,
    allow_infinity=False,
)


@given(value=values, fmt=st.sampled_from(NUMBER_FORMATS), grouping=st.booleans())
def test_printing_then_reading_gives_the_value_back(value, fmt, grouping):
    text = format_number(value, fmt, grouping=grouping)
    assert parse_number(text, fmt, places=4).value == value


@given(
    text=st.text(alphabet="0123456789.,- ", max_size=8),
    letter=st.characters(categories=["L"]),
    position=st.integers(min_value=0, max_value=8),
    fmt=st.sampled_from(NUMBER_FORMATS),
)
def test_text_with_letters_is_refused(text, letter, position, fmt):
    typed = text[:position] + letter + text[position:]
    with pytest.raises(NumberError):
        parse_number(typed, fmt, places=4)
