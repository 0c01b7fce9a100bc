"""Sum lines in a pasted job plan (issue 36): a line named as a total in any drafting
language, or one that repeats the column sums of the rows above whatever its name,
is left out with a note, never stored as a job."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, format_number
from proposals.domain.paste import Context, read_paste
from proposals.domain.paste_totals import TOTAL_WORDS

EN, DE = NUMBER_FORMAT_BY_NAME["en"], NUMBER_FORMAT_BY_NAME["de"]
HEADER = "Job\tGPUs\tHours\tJobs\tGPU-hours\n"


def _line(label, gpus, hours, count, gpu_hours, fmt, *, computed=True) -> str:
    cells = [label, *(format_number(v, fmt) for v in (gpus, hours, count))]
    cells.append(format_number(gpu_hours, fmt) if computed else "")
    return "\t".join(cells) + "\n"


def _titles(text, fmt):
    return [
        row.values.get("title") for row in read_paste(text, "jobs", Context(fmt)).rows
    ]


@pytest.mark.parametrize(
    "label",
    ["Summe", "SUMME:", "Total", "total:", "Totale", "Totale:", "Suma", "suma:", "Sum"],
)
def test_each_languages_total_word_with_or_without_colon(label):
    assert label.rstrip(":").lower() in TOTAL_WORDS
    text = HEADER + "A\t8\t4\t10\t320\nB\t8\t4\t10\t320\n" + f"{label}\t\t\t20\t640\n"
    assert _titles(text, EN) == ["A", "B"]


@pytest.mark.parametrize("label", ["", "Σ", "Overall", "Aufwand gesamt"])
def test_a_line_that_adds_up_every_column_is_a_total_whatever_its_name(label):
    """A spreadsheet's SUM under every column, GPUs and hours included (which a
    job has, so the name-less rule for "no GPUs, no hours" did not catch it)."""
    text = (
        HEADER
        + "Sweep\t8\t4\t120\t3.840\n"
        + "Pre-training\t32\t24\t16\t12.288\n"
        + f"{label}\t40\t28\t136\t16.128\n"
    )
    paste = read_paste(text, "jobs", Context(DE))
    assert [r.values["title"] for r in paste.rows] == ["Sweep", "Pre-training"]
    assert any("Line 4 repeats the sums" in line for line in paste.skipped)


def test_a_job_that_does_not_add_up_the_column_stays_a_job():
    text = HEADER + "A\t8\t4\t10\t320\nB\t8\t4\t10\t320\nC\t16\t8\t10\t1280\n"
    assert _titles(text, EN) == ["A", "B", "C"]


jobs = st.lists(
    st.tuples(
        st.integers(1, 256),
        st.integers(1, 200).map(lambda halves: Decimal(halves) / 2),
        st.integers(1, 60),
    ),
    min_size=2,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(
    plan=jobs,
    label=st.sampled_from(["", "Σ", "Overall", "Summe:", "TOTALE", "Total", "suma"]),
    fmt=st.sampled_from([EN, DE]),
    computed=st.booleans(),
)
def test_appending_the_column_sum_line_never_adds_a_job(plan, label, fmt, computed):
    text = HEADER + "".join(
        _line(f"Job {i}", g, h, c, g * h * c, fmt, computed=computed)
        for i, (g, h, c) in enumerate(plan)
    )
    sums = [sum(column) for column in zip(*plan, strict=True)]
    total = sum(g * h * c for g, h, c in plan)
    with_sum = text + _line(label, *sums, total, fmt, computed=computed)
    assert _titles(with_sum, fmt) == _titles(text, fmt)
