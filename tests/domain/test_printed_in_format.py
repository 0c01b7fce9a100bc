"""Issue 25: the domain's sentences for people print every number in the active
format (German ``1.234,5``, Swiss German ``1'234.5``), never in English style."""

import pytest

from proposals.domain import numbers
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, percent, points, ratio

from .test_calendar import calendar, example

GERMAN = NUMBER_FORMAT_BY_NAME["de_DE"]
SWISS = NUMBER_FORMAT_BY_NAME["de_CH"]
GROUP_CH = SWISS.group_display  # CLDR's Swiss group mark


def test_ratio_and_percent_use_the_decimal_mark():
    with numbers.using(GERMAN):
        assert ratio(1.05) == "1,05x"
        assert ratio(63752.61) == "63.753x"
        # CLDR's German percentage: a no-break space before the sign.
        assert percent(0.0123, 1) == "1,2\u00a0%"
        assert percent(0.953) == "95\u00a0%"
        assert points(38) == "38\u00a0%" and points(-2.5) == "-2,5\u00a0%"
    with numbers.using(SWISS):
        assert ratio(1.9) == "1.90x"
        assert percent(0.953) == "95%"
    with numbers.using(NUMBER_FORMAT_BY_NAME["tr"]):
        assert percent(0.953) == "%95" and points(-2.5) == "-%2,5"
    assert ratio(1.05) == "1.05x" and percent(None) == numbers.MISSING
    assert percent(0.953) == "95%" and points(None) == numbers.MISSING


@pytest.mark.parametrize(
    ("fmt", "hours", "busy", "nodes"),
    [
        (GERMAN, "18.176", "8,3 GPUs (2,07 nodes)", "2.978 GPU nodes"),
        (SWISS, f"18{GROUP_CH}176", "8.3 GPUs (2.07 nodes)", f"2{GROUP_CH}978 GPU"),
        (numbers.PORTAL, "18,176", "8.3 GPUs (2.07 nodes)", "2,978 GPU nodes"),
    ],
)
def test_calendar_summary_in_the_persons_format(fmt, hours, busy, nodes):
    cal = calendar(18176, 3, example("lumi-fast-lane").scalability.jobs)
    with numbers.using(fmt):
        text = cal.summary()
    assert text.startswith(f"{hours} GPU-hours over 3 months (91 days)")
    assert busy in text and nodes in text
    if fmt is GERMAN:
        assert "under 0,1\u00a0%" in text and "2.144 GPUs at once" in text


def test_document_values_on_staff_pages_in_the_readers_format():
    from proposals.domain.documents import text_of

    with numbers.using(GERMAN):
        assert text_of(18176) == "18.176"
        assert text_of(18176.0) == "18.176"
        assert text_of(0.25) == "0,25"
        assert text_of(1234.5678) == "1.234,5678"  # every digit kept
    assert text_of(18176) == "18,176" and text_of(0.1) == "0.1"


def test_paste_and_file_size_messages_in_the_readers_format():
    from proposals.domain import jsonformat, limits
    from proposals.domain.paste import read_paste
    from proposals.domain.paste_columns import MAX_PASTE_CHARS

    with numbers.using(GERMAN):
        paste = read_paste("x" * (MAX_PASTE_CHARS + 1), "jobs", None)
        with pytest.raises(jsonformat.FormatError) as raised:
            jsonformat.read(b" " * (limits.MAX_DOCUMENT_BYTES + 1))
    assert "longer than 200.000 characters" in paste.problems[0]
    assert "2.097.153 bytes" in str(raised.value.problems)


def test_a_numeric_example_shows_what_to_type_in_the_readers_format():
    from proposals.domain.fields import PROPOSAL_FIELDS as FIELD_BY_NAME

    spec = FIELD_BY_NAME["transfer_out_tb"]
    with numbers.using(GERMAN):
        assert [e.text for e in spec.examples_for(None)] == ["0,2"]
    assert [e.text for e in spec.examples_for(None)] == ["0.2"]
    storage = FIELD_BY_NAME["storage_justification"].examples_for(None)[0].text
    with numbers.using(GERMAN):  # words (and their figures) stay as written
        assert FIELD_BY_NAME["storage_justification"].examples_for(None)[0].text == (
            storage
        )
