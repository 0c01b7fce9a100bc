"""Issue 36: the numbers of a shown provenance are in the reader's number format.
The provenance is stored in the portal's form ("4,217 ms", "±2.00 %"); a German
reader would take "4,217 ms" for 4.217 ms. Every real sample log's provenance is
shown with German (1.234,5), French (1 234,5 with a narrow no-break space) and
Swiss (1'234.5) numbers: the reader's form everywhere outside the log's own lines
(kept as the log wrote them) and the file name, and no value changed."""

import re
from collections import Counter
from pathlib import Path

import pytest
from django.utils import translation

from proposals.domain import numbers
from proposals.domain.training_logs import iter_lines, read_log
from proposals.domain.training_logs.provenance import in_reader_language
from tests.web.test_provenance_words import provenances

LOGS = Path(__file__).resolve().parents[1] / "domain" / "logs"
# (the reader's language, their number format)
READERS = (("de", "de"), ("fr", "fr"), ("de", "de_CH"))
NNBSP = "\u202f"


def _shown(text: str, language: str, fmt: str) -> str:
    spec = numbers.NUMBER_FORMAT_BY_NAME[fmt]
    with translation.override(language), numbers.using(spec):
        return in_reader_language(text)


def _provenance(name: str) -> str:
    with open(LOGS / name, "rb") as stream:
        reading = read_log(iter_lines(stream), file=name)
    (item,) = reading.measurements
    return item.source.summary()


@pytest.mark.parametrize(
    ("language", "fmt", "expected"),
    [
        ("de", "de", ("/ 4.217 ms ≈ 248.660 tokens/s", "±2,00\u00a0%")),
        ("fr", "fr", (f"/ 4{NNBSP}217 ms ≈ 248{NNBSP}660 tokens/s", "±2,00\u00a0%")),
        ("de", "de_CH", ("/ 4'217 ms ≈ 248'660 tokens/s", "±2.00%")),
        ("en", "en", ("/ 4,217 ms ≈ 248,660 tokens/s", "±2.00 %")),
    ],
)
def test_a_megatron_and_a_lightning_log_in_the_readers_numbers(language, fmt, expected):
    megatron = _provenance("megatron-2024-8gpus.log")
    lightning = _provenance("lightning-2.2-8gpus.log")
    assert "/ 4,217 ms ≈ 248,660 tokens/s" in megatron  # as stored
    assert "±2.00 %" in lightning
    assert expected[0] in _shown(megatron, language, fmt)
    assert expected[1] in _shown(lightning, language, fmt)


def _parts(text: str) -> tuple[list[str], list[str]]:
    """The lines a reader's words and numbers are in (the first without its file
    name), and the log's own lines (indented)."""
    lines = text.split("\n")
    first = lines[0].split(", ", 1)[1]
    return [first] + [x for x in lines[1:] if not x.startswith("  ")], [
        x for x in lines if x.startswith("  ")
    ]


_PORTAL_NUMBER = re.compile(r"\d(?:[\d,.]*\d)?")


def _values(lines: list[str], fmt: numbers.NumberFormat) -> Counter:
    """The numbers of ``lines`` written in ``fmt``, written back in the portal's
    form (``4.217`` in German -> ``4,217``)."""
    group, decimal = re.escape(fmt.group_display), re.escape(fmt.decimal)
    written = re.compile(rf"\d(?:(?:{group}|{decimal}|\d)*\d)?")
    found: Counter = Counter()
    for line in lines:
        for number in written.findall(line):
            back = "".join(
                "," if c == fmt.group_display else "." if c == fmt.decimal else c
                for c in number
            )
            found[back] += 1
    return found


@pytest.mark.parametrize(("language", "fmt"), READERS)
def test_no_portal_form_number_is_left_and_no_value_changes(language, fmt):
    spec = numbers.NUMBER_FORMAT_BY_NAME[fmt]
    texts = provenances()
    changed = 0
    for text in texts:
        stored, stored_log = _parts(text)
        shown, shown_log = _parts(_shown(text, language, fmt))
        # The log's own lines stay as the log wrote them.
        assert shown_log == stored_log
        # Every number is there, its digits and decimals the same, in ``fmt``.
        portal = Counter(n for line in stored for n in _PORTAL_NUMBER.findall(line))
        assert _values(shown, spec) == portal, shown
        # No comma between digits in Swiss (1'234.5), no point in French (1 234,5);
        # in German the count above tells "4.217" (grouped) from "4,217".
        if fmt == "de_CH":
            assert not re.search(r"\d,\d", " ".join(shown)), shown
        if fmt == "fr":
            assert not re.search(r"\d\.\d", " ".join(shown)), shown
        changed += shown != stored
    # The sample logs hold numbers the formats write differently.
    assert changed >= len(texts) // 3
