"""Every pattern's worst lines read as a log: the reader answers with a reading
(numbers past any bound are refused with a reason), it never raises. The
production check sends the same lines through nginx (scripts/prod_stack)."""

import pytest

from proposals.domain.training_logs import (
    Citation,
    Measurement,
    measurement_row,
    read_log,
)
from tests.domain.regex_shapes import shapes
from tests.domain.test_log_reader_linear import PATTERNS


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_worst_lines_of_each_pattern_read_as_a_log(name):
    pattern = PATTERNS[name]
    lines = shapes(pattern, 2048)
    if isinstance(pattern.pattern, bytes):
        lines = [line.decode() if isinstance(line, bytes) else line for line in lines]
    reading = read_log(lines, file=f"{name}.log")
    assert reading is not None


@pytest.mark.parametrize(
    "value", ["1e40", "9" * 60, "inf", "nan", "1e-40"], ids=str.__str__
)
def test_a_number_past_every_bound_is_refused_not_raised(value):
    line = (
        f"{{'train_runtime': 100.0, 'train_samples_per_second': {value}, 'epoch': 1.0}}"
    )
    reading = read_log([line], file="trainer.log", gpus=8)
    # Infinity and NaN are not read as figures; any figure read is refused as a
    # row, with a reason, never stored.
    for measurement in reading.measurements:
        row, problem = measurement_row(measurement)
        assert row is None and problem, (value, problem)


@pytest.mark.parametrize(
    "throughput",
    [7.77e300, float("inf"), -7.77e300, float("-inf"), float("nan")],
    ids=["huge", "inf", "-huge", "-inf", "nan"],
)
def test_a_row_past_every_bound_is_refused_with_a_reason(throughput):
    """The production check's hostile upload stored a throughput of 300 digits,
    whose rounding raised InvalidOperation and answered 500."""
    measurement = Measurement(
        format="MosaicML Composer",
        gpus=8,
        throughput=throughput,
        unit="tokens/s",
        source=Citation(file="hostile.log", lines=(1,), formula="", excerpt=()),
    )
    row, problem = measurement_row(measurement)
    assert row is None
    assert problem
