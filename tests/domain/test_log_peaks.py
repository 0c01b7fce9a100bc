"""A logged TFLOP/s per GPU above the accelerator's peak (issue 36: ``read_log``
accepted 1,246 TFLOP/s per GPU without a word) is refused as a row, naming the peak;
an unknown GPU is bounded by the catalogue's highest peak."""

import re
from pathlib import Path

import pytest

from proposals.domain import training_logs
from proposals.domain.gpus import default_gpu_models

LOG = (Path(__file__).parent / "logs" / "megatron-2024-8gpus.log").read_text()


def _reading(tflops: str) -> training_logs.Reading:
    text = re.sub(r"(TFLOP/s/GPU\): )[\d.]+", rf"\g<1>{tflops}", LOG)
    return training_logs.read_log(text.splitlines(keepends=True), file="m.log")


def _measurement(tflops: str) -> training_logs.Measurement:
    (measurement,) = _reading(tflops).measurements
    return measurement


@pytest.mark.parametrize(
    ("gpu", "own_peak", "says"),
    [
        ("NVIDIA H100 SXM5 80GB", None, "above the NVIDIA H100 SXM's peak of 989"),
        ("NVIDIA H100", None, "peak of 989"),
        ("AMD MI250X", 383.0, "above the AMD MI250X's peak of 383"),
    ],
)
def test_a_figure_above_the_systems_gpu_peak_is_refused_as_a_row(gpu, own_peak, says):
    peak = training_logs.peak_of(gpu, own_peak)
    row, problem = training_logs.measurement_row(_measurement("1246.0"), peak)
    assert row is None
    assert "1,246 TFLOP/s per GPU" in problem and says in problem


def test_a_possible_figure_on_that_gpu_is_a_row():
    peak = training_logs.peak_of("NVIDIA H100 SXM5 80GB")
    row, problem = training_logs.measurement_row(_measurement("376.3"), peak)
    assert problem == "" and row["gpus"] == 8


def test_an_unknown_gpu_is_bounded_by_the_catalogues_highest_peak():
    highest = max(default_gpu_models(), key=lambda m: m.peak_bf16_tflops)
    peak = training_logs.peak_of("a GPU nobody lists")
    assert (peak.tflops, peak.known) == (highest.peak_bf16_tflops, False)
    assert training_logs.measurement_row(_measurement("1246.0"))[1] == ""
    row, problem = training_logs.measurement_row(_measurement("3100.0"))
    assert row is None
    assert f"highest peak of any GPU ({highest.peak_bf16_tflops:,.0f}" in problem


def test_the_reader_flags_a_figure_no_gpu_reaches():
    reading = _reading("3100.0")
    assert any("3,100 TFLOP/s per GPU is above" in note for note in reading.notes)
    assert not any("TFLOP/s per GPU" in note for note in _reading("376.3").notes)
