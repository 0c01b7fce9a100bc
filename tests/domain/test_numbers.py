"""Numbers as people write them: one parser, an explicit number format per person."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proposals.domain.numbers import (
    NUMBER_FORMAT_BY_NAME,
    PORTAL,
    NumberError,
    active_format,
    format_for_languages,
    format_number,
    grouped,
    number_formats,
    parse_number,
    using,
)

#: A format drawn from every CLDR format, read when a test first draws one rather than
#: at collection (CLDR's 1,144 locales take about a second to read, in every test
#: process that imports this module).
FORMATS = st.deferred(lambda: st.sampled_from(number_formats()))

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
    assert format_for_languages(["de-DE", "en"]).name == "de_DE"
    assert format_for_languages(["de"]) is DE
    assert format_for_languages(["fi"]) is FI
    assert format_for_languages(["xx", "en-US"]).name == "en_US"
    assert format_for_languages(["xx"]) is EN
    assert format_for_languages([]) is EN
    assert format_for_languages(["de-CH", "de"]).name == "de_CH"
    assert format_for_languages(["ca-ES"]).name == "ca_ES"


# Within +-1e9 at four places a value has 13 significant digits, which the float that
# `grouped` prints from holds exactly (beyond ~1e11 the last place can round off).
values = st.decimals(
    min_value=Decimal("-1e9"),
    max_value=Decimal("1e9"),
    places=4,
    allow_nan=False,
    allow_infinity=False,
)


@given(value=values, fmt=FORMATS, grouping=st.booleans())
def test_printing_then_reading_gives_the_value_back(value, fmt, grouping):
    text = format_number(value, fmt, grouping=grouping)
    assert parse_number(text, fmt, places=4).value == value


@given(
    text=st.text(alphabet="0123456789.,- ", max_size=8),
    letter=st.characters(categories=["L"]),
    position=st.integers(min_value=0, max_value=8),
    fmt=FORMATS,
)
def test_text_with_letters_is_refused(text, letter, position, fmt):
    typed = text[:position] + letter + text[position:]
    with pytest.raises(NumberError):
        parse_number(typed, fmt, places=4)


def test_every_cldr_locale_with_latin_digits_is_a_format():
    names = {fmt.name for fmt in number_formats()}
    assert len(names) > 500
    assert {"de_CH", "ca", "eu", "gl", "lb", "fr_CH", "is", "mk", "sq", "tr"} <= names
    assert "fa" not in names  # Persian digits by default: not read here


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("de_CH", "1'234'567.5"),
        ("fr_CH", "1'234'567,5"),
        ("de_DE", "1.234.567,5"),
        ("fr_FR", "1\u202f234\u202f567,5"),
        ("it_IT", "1.234.567,5"),
        ("en_GB", "1,234,567.5"),
        ("ca", "1.234.567,5"),
        ("eu", "1.234.567,5"),
        ("gl", "1\u00a0234\u00a0567,5"),
        ("lb", "1.234.567,5"),
        ("en_IN", "12,34,567.5"),
    ],
)
def test_prints_and_reads_as_cldr_says(name, printed):
    fmt = NUMBER_FORMAT_BY_NAME[name]
    assert format_number(Decimal("1234567.5"), fmt) == printed
    assert parse_number(printed, fmt, places=2).value == Decimal("1234567.5")


@pytest.mark.parametrize("text", ["1'234.5", "1\u2019234.5", "1 234.5", "1234.5"])
def test_swiss_german_reads_both_apostrophes(text):
    reading = parse_number(text, NUMBER_FORMAT_BY_NAME["de_CH"], places=2)
    assert reading.value == Decimal("1234.5")
    assert not reading.ambiguous


def test_minus_signs_of_cldr_are_read():
    fi, he = NUMBER_FORMAT_BY_NAME["fi"], NUMBER_FORMAT_BY_NAME["he"]
    assert format_number(Decimal("-3"), fi) == "\u22123"
    assert parse_number("\u200e-3", he, places=0).value == -3


def test_grouped_prints_in_the_active_format_and_the_portal_form_by_default():
    assert active_format() is PORTAL
    assert grouped(5001) == "5,001"
    with using(NUMBER_FORMAT_BY_NAME["de_DE"]):
        assert grouped(5001) == "5.001"
        assert grouped(0.25) == "0,25"
        assert grouped(-1234.5) == "-1.234,5"
        with using(PORTAL):
            assert grouped(5001) == "5,001"
    with using(lambda: NUMBER_FORMAT_BY_NAME["de_CH"]):
        assert grouped(18176.5) == "18'176.5"
    assert grouped(5001) == "5,001"


@given(value=values, fmt=FORMATS)
def test_grouped_then_read_gives_the_rounded_value_back(value, fmt):
    text = grouped(value, 4, fmt=fmt)
    assert parse_number(text, fmt, places=4).value == round(value, 4)


def test_every_format_reads_back_what_it_prints():
    samples = [Decimal(text) for text in ("-1234567.891", "0.5", "18176", "1000", "-7")]
    for fmt in number_formats():
        for value in samples:
            for text in (format_number(value, fmt), grouped(value, 3, fmt=fmt)):
                reading = parse_number(text, fmt, places=3)
                assert reading.value == value, (fmt.name, text)
