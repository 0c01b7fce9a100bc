"""Held-out check of issue 25: the figures inside finding sentences that are not
whole numbers (a factor, a share of the machine, a refused value) are printed in
the reader's format, as the rest of the sentence's figures are. Each case is set up
so the figure has a decimal part, where an English ``2.6`` reads wrong in German."""

import re

import pytest

from proposals.domain import numbers

from .builders import edit, example, findings

GERMAN = numbers.NUMBER_FORMAT_BY_NAME["de_DE"]
SWISS = numbers.NUMBER_FORMAT_BY_NAME["de_CH"]


def _message(proposal, code, field=None):
    hits = [f for f in findings(proposal, code) if field is None or f.field == field]
    assert hits, code
    return hits[0].message


def test_plan_1_factor_in_the_readers_format():
    # 6 x 1.4e9 x 30e9 FLOPs at 30 % of 989 TFLOP/s: about 236 GPU-hours against the
    # plan's 104,448 training GPU-hours, a factor of about 442.
    p = edit(example("bsc-large-scale"), **{"codes[0]__training_tokens": 30e9})
    english = re.search(r"a factor ([\d.,]+) above", _message(p, "PLAN-1")).group(1)
    with numbers.using(GERMAN):
        german = re.search(r"a factor ([\d.,]+) above", _message(p, "PLAN-1")).group(1)
    assert "." in english and german == english.replace(".", ",")


def test_scal_6_extrapolation_factor_in_the_readers_format():
    # LUMI's Fast Lane example measured up to 16 GPUs; jobs of 72 GPUs are 4.5 times
    # that, beyond the Fast Lane's limit.
    p = edit(
        example("lumi-fast-lane"),
        selection__max_gpus_per_job=72,
        **{"scalability__jobs[1]__gpus": 72},
    )
    assert "72 GPUs is 4.5 times the largest" in _message(p, "SCAL-6")
    with numbers.using(GERMAN):
        assert "72 GPUs is 4,5 times the largest" in _message(p, "SCAL-6")


def test_plan_3_share_of_the_machine_in_the_readers_format():
    # 2,000,000 GPU-hours in 6 months on MareNostrum 5: 114.08 nodes of 1,120, 10.2 %.
    p = edit(
        example("bsc-large-scale"),
        selection__total_gpu_hours=2_000_000,
        selection__duration_months=6,
        scalability__jobs=(),
    )
    field = "selection.total_gpu_hours"
    assert "is 10.2% of MareNostrum 5" in _message(p, "PLAN-3", field)
    with numbers.using(GERMAN):
        german = _message(p, "PLAN-3", field)
    assert "is 10,2\u00a0% of MareNostrum 5" in german and "1.120 GPU nodes" in german


@pytest.mark.parametrize(
    ("fmt", "shown"), [(GERMAN, "-1.234,5"), (SWISS, "-1'234.5"), (None, "-1,234.5")]
)
def test_a_refused_value_below_zero_is_quoted_in_the_readers_format(fmt, shown):
    # From an imported file: the form never stores a negative request.
    p = edit(example("lumi-fast-lane"), selection__total_gpu_hours=-1234.5)
    with numbers.using(fmt or numbers.PORTAL):
        message = _message(p, "SEL-1", "selection.total_gpu_hours")
    assert message.endswith(f"must be above zero, not {shown}."), message
