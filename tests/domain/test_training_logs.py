"""The training-log reader on realistic excerpts of each format (several versions
where the format changed), and its rules: steady state, provenance, GPU counts asked
for, refusals, unreadable lines, bounded memory."""

import io
import json
import statistics
import time
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proposals.domain.training_logs import (
    MAX_LINE_CHARS,
    SAMPLES,
    TOKENS,
    as_dict,
    counted_in_gcds,
    elapsed_hours,
    iter_lines,
    pack,
    read_log,
    read_text,
    unpack,
)

LOGS = Path(__file__).parent / "logs"


def read(name: str, gpus=None):
    with open(LOGS / name, "rb") as stream:
        return read_log(iter_lines(stream), file=name, gpus=gpus)


def megatron_intervals(name: str) -> list[float]:
    """The file's elapsed times per iteration, found without the reader's regexes."""
    found = []
    for line in (LOGS / name).read_text().splitlines():
        marker = "elapsed time per iteration (ms): "
        if marker in line:
            found.append(float(line.split(marker)[1].split(" ")[0]))
    return found


@pytest.mark.parametrize(
    ("name", "fmt", "gpus", "throughput", "unit"),
    [
        # Megatron 2021: no timestamp, no TFLOP/s; 512 × 2048 tokens per iteration.
        ("megatron-2021-16gpus.log", "Megatron-LM", 16, 512 * 2048 / 3.4567, TOKENS),
        # DeepSpeed 0.14: median of CurrSamplesPerSec after the first line.
        ("deepspeed-0.14-16gpus.log", "DeepSpeed", 16, (902.4 + 905.3) / 2, SAMPLES),
        # DeepSpeed 0.3: "0/50, SamplesPerSec=..." and dist_world_size from launch.py.
        ("deepspeed-0.3-4gpus.log", "DeepSpeed", 4, (240.5 + 241.0) / 2, SAMPLES),
        # Trainer 4.6: float metrics; 256 / (8 × 4) = 8 processes.
        ("hf-trainer-4.6-8gpus.log", "Hugging Face Trainer", 8, 408.727, SAMPLES),
        # Trainer 4.48: values printed as strings, thousands separators, a table.
        ("hf-trainer-4.48-16gpus.log", "Hugging Face Trainer", 16, 38.03, SAMPLES),
        # torchtitan 2025: per-GPU tps × the 2-D mesh's 4 × 2 GPUs; colour codes.
        ("torchtitan-2025-8gpus.log", "torchtitan", 8, 6502 * 8, TOKENS),
        # llm.c April 2024: "(81.2 ms, 50441.1 tok/s)", num_processes in a table.
        ("llmc-2024-04-2gpus.log", "training loop", 2, 50441.1, TOKENS),
        # llm.c July 2024: "| 1739512 tok/s" with the MFU.
        ("llmc-2024-07-8gpus.log", "training loop", 8, 1739512, TOKENS),
    ],
)
def test_each_format_gives_the_steady_state_of_the_whole_job(
    name, fmt, gpus, throughput, unit
):
    reading = read(name)
    assert reading.format == fmt
    (measurement,) = reading.measurements
    assert measurement.gpus == gpus
    assert measurement.throughput == pytest.approx(throughput, rel=1e-6)
    assert measurement.unit == unit
    assert measurement.source.file == name
    assert measurement.source.formula


@pytest.mark.parametrize("gpus", [8, 16, 32])
def test_megatron_2024_median_after_the_warm_up_with_tflops(gpus):
    name = f"megatron-2024-{gpus}gpus.log"
    intervals = megatron_intervals(name)
    reading = read(name)
    (measurement,) = reading.measurements
    expected = statistics.median(256 * 4096 / (ms / 1000) for ms in intervals[1:])
    assert measurement.gpus == gpus
    assert measurement.throughput == pytest.approx(expected)
    assert measurement.unit == TOKENS
    assert 300 < measurement.tflops_per_gpu < 400
    # The warm-up interval (2.3 times slower) is named as left out, not used.
    first = next(
        number
        for number, line in enumerate((LOGS / name).read_text().splitlines(), 1)
        if "elapsed time per iteration" in line
    )
    assert first not in measurement.source.lines
    assert f"line {first}, the first interval (warm-up)" in measurement.source.left_out
    # world_size and seq_length lines are cited.
    assert {19, 22} <= set(measurement.source.lines)


def test_the_median_ignores_one_slow_interval_where_a_mean_would_not():
    lines = ["  world_size ...... 4", "  seq_length ...... 1000"] + [
        f" iteration {i:8d}/ 100 | elapsed time per iteration (ms): {ms} | "
        "global batch size:    10 |"
        for i, ms in enumerate([5000.0, 100.0, 100.0, 9000.0, 100.0], start=1)
    ]
    (measurement,) = read_text("\n".join(lines)).measurements
    assert measurement.throughput == pytest.approx(10 * 1000 / 0.1)


def test_a_gpu_count_the_log_does_not_state_is_asked_for_never_guessed():
    reading = read("torchtitan-2024-wps-no-mesh.log")
    (measurement,) = reading.measurements
    assert reading.needs_gpus and measurement.needs_gpus
    assert measurement.gpus is None and measurement.throughput is None
    assert measurement.per_gpu == pytest.approx((2010 + 2003) / 2)  # wps, per GPU
    given_four = read("torchtitan-2024-wps-no-mesh.log", gpus=4).measurements[0]
    assert given_four.gpus == 4
    assert given_four.throughput == pytest.approx(2006.5 * 4)
    assert "as given" in given_four.gpus_from


def test_a_given_count_that_contradicts_the_log_is_said_not_used():
    (measurement,) = read("megatron-2024-8gpus.log", gpus=16).measurements
    assert measurement.gpus == 8
    assert any(
        "differs from the log's world_size = 8" in item
        for item in (measurement.source.left_out)
    )


def test_an_unrecognised_file_is_refused_naming_what_was_looked_for():
    reading = read("not-a-log.txt")
    assert not reading.ok
    assert reading.refused.startswith("not-a-log.txt: not a log this reader knows")
    for looked_for in (
        "elapsed time per iteration (ms)",
        "Running training",
        "CurrSamplesPerSec",
        "tps:",
        "AllocTRES",
    ):
        assert looked_for in reading.refused


def test_a_partly_readable_file_lists_the_lines_it_could_not_read():
    megatron = read("megatron-2021-16gpus.log")
    assert megatron.ok and megatron.unread == (21,)
    assert megatron.unread_text() == "Could not read line 21"
    deepspeed = read("deepspeed-0.14-16gpus.log")  # CurrSamplesPerSec=nan
    assert deepspeed.unread == (29,)


def test_a_file_whose_lines_all_fail_says_what_it_looked_like():
    reading = read_text(
        " iteration 10/ 100 | elapsed time per iteration (ms): nan |\n"
        " iteration 20/ 100 | elapsed time per iteration (ms): |\n"
    )
    assert not reading.ok
    assert "looks like a Megatron-LM log" in reading.refused
    assert "lines 1, 2" in reading.refused


def test_megatron_deepspeed_logs_use_the_iteration_lines_and_say_so():
    text = "\n".join(
        [
            "  world_size ...... 8",
            "  seq_length ...... 2048",
            "[INFO] [timer.py:260:stop] epoch=0/micro_step=10/global_step=10, "
            "RunningAvgSamplesPerSec=50.0, CurrSamplesPerSec=51.0, MemAllocated=1GB",
            " iteration 10/ 100 | elapsed time per iteration (ms): 2000.0 | "
            "global batch size:    64 |",
            "[INFO] [timer.py:260:stop] epoch=0/micro_step=20/global_step=20, "
            "RunningAvgSamplesPerSec=52.0, CurrSamplesPerSec=53.0, MemAllocated=1GB",
            " iteration 20/ 100 | elapsed time per iteration (ms): 1000.0 | "
            "global batch size:    64 |",
        ]
    )
    reading = read_text(text)
    assert reading.format == "Megatron-LM"
    assert reading.measurements[0].throughput == pytest.approx(64 * 2048)
    assert reading.notes == (
        "DeepSpeed lines in the file were left out: the Megatron-LM lines say more",
    )


def test_hugging_face_data_parallel_asks_for_the_gpus():
    text = "\n".join(
        [
            "***** Running training *****",
            "  Instantaneous batch size per device = 8",
            "  Training with DataParallel so batch size has been adjusted to: 32",
            "  Total train batch size (w. parallel, distributed & accumulation) = 32",
            "  Gradient Accumulation steps = 1",
            "{'train_runtime': 10.0, 'train_samples_per_second': 99.5, 'epoch': 1.0}",
        ]
    )
    (measurement,) = read_text(text).measurements
    assert measurement.needs_gpus
    assert any("DataParallel" in item for item in measurement.source.left_out)


def test_sacct_allocations_become_job_plan_rows_and_steps_are_not_jobs():
    reading = read("sacct-lumi.txt")
    assert reading.format == "sacct"
    rows = [(job.gpus, job.hours, job.count, job.title) for job in reading.jobs]
    assert rows == [
        (8, Decimal("2.00"), 2, "eval"),
        (64, Decimal("24.00"), 3, "train-7b"),
    ]
    left_out = " ".join(reading.jobs[0].source.left_out)
    assert "job steps" in left_out
    assert "pending jobs" in left_out and "running jobs" in left_out
    assert "jobs without GPUs" in left_out
    assert reading.unread == (25,)  # Elapsed "not-a-time"
    assert reading.measurements == ()


def test_sacct_before_17_11_reads_alloc_gres():
    reading = read("sacct-slurm-17.02.txt")
    rows = [(job.gpus, job.hours, job.count) for job in reading.jobs]
    assert rows == [(4, Decimal("0.18"), 1), (4, Decimal("12.00"), 2)]


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("12:00:00", Decimal(12)),
        ("1-00:00:00", Decimal(24)),
        ("30:00", Decimal("0.5")),
        ("01:30.000", Decimal(90) / 3600),
        ("INVALID", None),
    ],
)
def test_slurm_elapsed(text, hours):
    assert elapsed_hours(text) == hours


def test_the_json_shape_has_the_required_keys():
    data = as_dict(read("megatron-2024-8gpus.log"))
    (measurement,) = data["measurements"]
    assert {"gpus", "throughput", "unit", "source"} <= set(measurement)
    assert measurement["source"]["file"] == "megatron-2024-8gpus.log"
    assert 22 in measurement["source"]["lines"]
    jobs = as_dict(read("sacct-lumi.txt"))["jobs"]
    assert jobs[0] == {**jobs[0], "gpus": 8, "hours": 2.0, "count": 2}


def test_provenance_summary_is_short_and_names_lines_values_and_formula():
    (measurement,) = read("megatron-2024-32gpus.log").measurements
    summary = measurement.source.summary()
    assert summary.startswith("megatron-2024-32gpus.log, lines 19, 22, ")
    assert "global batch size × seq_length 4096" in summary
    assert "warm-up" in summary
    assert len(summary) < 1500


def test_iter_lines_cuts_a_huge_line_and_keeps_the_rest():
    data = b"a" * (MAX_LINE_CHARS * 10) + b"\nsecond\r\nthird \xff"
    lines = list(iter_lines(io.BytesIO(data)))
    assert len(lines[0]) == MAX_LINE_CHARS
    assert lines[1:] == ["second", "third \ufffd"]


def test_iter_lines_of_a_file_without_newline_stays_bounded():
    data = b"x" * (1 << 22)  # 4 MiB, no newline
    lines = list(iter_lines(io.BytesIO(data)))
    assert len(lines) == 1 and len(lines[0]) == MAX_LINE_CHARS


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_random_text_never_raises(text):
    reading = read_text(text)
    assert reading.ok or reading.refused


KEYWORDS = st.sampled_from(
    [
        "elapsed time per iteration (ms): ",
        " iteration 10/ 20 |",
        "global batch size: ",
        "world_size ........ ",
        "seq_length ...... ",
        "CurrSamplesPerSec=",
        "[timer.py:1:stop] 0/1, SamplesPerSec=",
        "step: 3 tps: ",
        "wps: ",
        "mfu: ",
        "% bf16 MFU",
        "Building 2-D device mesh with ['a'], [",
        "***** Running training *****",
        "{'train_samples_per_second': ",
        "train_samples_per_second = ",
        "Total train batch size (w. parallel, distributed & accumulation) = ",
        "num_processes | ",
        " tok/s",
        "JobID|Elapsed|AllocTRES\n",
        "|gres/gpu=",
        "1-00:00:",
        "nan",
        "1e999",
        "-5",
        "0",
        "|",
        "\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(KEYWORDS, st.text(max_size=8)), max_size=60))
def test_text_made_of_the_formats_pieces_never_raises(pieces):
    text = "".join(pieces)
    reading = read_text(text)
    assert reading.ok or reading.refused
    for measurement in reading.measurements:
        assert measurement.throughput is None or measurement.throughput > 0
        assert measurement.gpus is None or measurement.gpus >= 1
    as_dict(reading)


def test_numbers_too_long_for_python_are_unreadable_lines_not_errors():
    huge = "9" * 5000
    reading = read_text(
        f" iteration 1/ 2 | elapsed time per iteration (ms): 10.0 | "
        f"global batch size: {huge} |"
    )
    assert reading.unread == (1,)
    sacct = read_text(f"JobID|Elapsed|AllocTRES\n1|{huge}-00:00:00|gres/gpu=8\n")
    assert sacct.unread == (2,)


@pytest.mark.parametrize(
    "line",
    [
        "step 1 " + "1" * MAX_LINE_CHARS + " tok/s",
        "step 1 " + "1," * (MAX_LINE_CHARS // 2) + " samples/s",
        " iteration 1/ 2 | elapsed time per iteration (ms): " + "9" * MAX_LINE_CHARS,
        "step: 1 tps: " + "1" * MAX_LINE_CHARS,
    ],
)
def test_a_long_run_of_digits_is_read_in_linear_time(line):
    start = time.perf_counter()
    read_text(line * 1)
    assert time.perf_counter() - start < 1.0


def test_a_loop_printing_per_gpu_throughput_is_multiplied_by_the_gpus():
    text = "world_size=4\n" + "\n".join(
        f"step {i} | loss 2.0 | tokens/s per GPU: {v}"
        for i, v in enumerate([100, 2000, 2100, 1900], start=1)
    )
    (measurement,) = read_text(text).measurements
    assert measurement.per_gpu == 2000
    assert measurement.throughput == 8000 and measurement.gpus == 4


@pytest.mark.parametrize(
    "name", ["megatron-2024-8gpus.log", "sacct-lumi.txt", "torchtitan-2025-8gpus.log"]
)
def test_pack_keeps_what_a_row_shows_and_nothing_of_the_file(name):
    reading = read(name)
    for item in reading.measurements + reading.jobs:
        data = pack(item)
        assert len(data["source"]["lines"]) <= 7
        back = unpack(json.loads(json.dumps(data)))
        assert back.source.summary() == item.source.summary()
        assert type(back) is type(item)


def test_with_gpus_gives_the_same_as_reading_with_the_count():
    (asked,) = read("torchtitan-2024-wps-no-mesh.log").measurements
    (given,) = read("torchtitan-2024-wps-no-mesh.log", gpus=4).measurements
    assert asked.with_gpus(4) == given
    (stated,) = read("megatron-2024-8gpus.log").measurements
    assert stated.with_gpus(4) == stated


def test_counts_in_gcds_become_physical_gpus_and_say_so():
    (measurement,) = read("megatron-2024-16gpus.log").measurements
    converted = counted_in_gcds(measurement, 2, "LUMI-G")
    assert converted.gpus == 8
    assert converted.throughput == measurement.throughput  # the whole job's
    assert converted.source.formula.endswith(
        "; 16 GCDs = 8 GPUs on LUMI-G (2 GCDs per GPU)"
    )
    assert counted_in_gcds(measurement, 1, "A100 system") is measurement
    odd = counted_in_gcds(measurement, 3, "X")
    assert odd.gpus == 16 and "not a whole number of X GPUs" in odd.source.left_out[-1]


def test_megatron_arguments_behind_srun_labels_are_read():
    text = "\n".join(
        [
            "0:   world_size ...................................... 16",
            "0:   seq_length ...................................... 1024",
            "0:  iteration       10/     100 | elapsed time per iteration (ms): 900.0 |"
            " global batch size:    32 |",
            "0:  iteration       20/     100 | elapsed time per iteration (ms): 500.0 |"
            " global batch size:    32 |",
        ]
    )
    (measurement,) = read_text(text).measurements
    assert measurement.gpus == 16
    assert measurement.throughput == pytest.approx(32 * 1024 / 0.5)


def test_lightning_member_count_and_samples_per_sec_keys():
    text = "\n".join(
        [
            "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/32",
            "epoch 0 step 50 | loss 1.2 | samples/sec: 100.0",
            "epoch 0 step 100 | loss 1.1 | samples/sec: 410.5",
            "epoch 0 step 150 | loss 1.0 | samples/sec: 409.5",
        ]
    )
    (measurement,) = read_text(text).measurements
    assert (measurement.gpus, measurement.unit) == (32, SAMPLES)
    assert measurement.throughput == pytest.approx(410.0)
    assert "Lightning's MEMBER count = 32 (line 1)" in measurement.source.formula


def test_a_megatron_file_of_two_runs_gives_two_measurements():
    first = (LOGS / "megatron-2024-8gpus.log").read_text()
    second = (LOGS / "megatron-2024-16gpus.log").read_text()
    reading = read_text(first + second)
    assert [m.gpus for m in reading.measurements] == [8, 16]
    offset = len(first.splitlines())
    assert reading.measurements[1].source.lines[:2] == (offset + 19, offset + 22)
    alone = read("megatron-2024-16gpus.log").measurements[0]
    assert reading.measurements[1].throughput == pytest.approx(alone.throughput)
