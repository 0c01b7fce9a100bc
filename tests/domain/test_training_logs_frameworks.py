"""Issue 32: the logs people really have. NeMo (its ``train_step_timing`` in the
bar of 1.x and the progress printer of 2.0), PyTorch Lightning's tqdm bar (carriage
returns, postfix metrics), Hugging Face Accelerate's scripts with gradient
accumulation, MosaicML Composer / llm-foundry's console logging, MaxText's step
lines (2023 and 2024 on), and ``sacct -P``/``-p`` in any column order with job
arrays. Each fixture follows its framework's source (docs/training-logs.md cites
them); the expected figures are worked out by hand below."""

import io
from decimal import Decimal
from pathlib import Path

import pytest

from proposals.domain.training_logs import (
    MAX_LINE_CHARS,
    SAMPLES,
    STEPS,
    TOKENS,
    as_dict,
    iter_lines,
    read_file,
    read_log,
    read_text,
)

LOGS = Path(__file__).parent / "logs"


def read(name: str, gpus=None):
    with open(LOGS / name, "rb") as stream:
        return read_log(iter_lines(stream), file=name, gpus=gpus)


EXPECTED = {
    # train_step_timing of steps 1-11 (step 0's 40.9 s is the warm-up): median
    # 3.110 s; global_batch_size 256 × encoder_seq_length 4096 from the printed
    # configuration; MEMBER: 1/16. The validation redraw of step 5 is not a step.
    "nemo-1.23-16gpus.log": ("NVIDIA NeMo", 16, 256 * 4096 / 3.11, TOKENS),
    # PTL 1.9's bar with "s/it" and "loss=": median of 4.52, 4.50, 4.55, 4.49,
    # 4.51, 4.53, 4.50 = 4.51 s; no configuration printed: consumed_samples grows
    # by 512 a step (3,584 over 7 steps), so 512 samples a step.
    "nemo-1.17-8gpus.log": ("NVIDIA NeMo", 8, 512 / 4.51, SAMPLES),
    # ProgressPrinter (every 10 steps, averaged): median of 2.118, 2.121, 2.115,
    # 2.12 = 2.119 s; global_batch_size 512.
    "nemo-2.0-32gpus.log": ("NVIDIA NeMo", 32, 512 / 2.119, SAMPLES),
    # Three epochs of 200 steps: from step 1 to 200 in 50, 50 and 52 s: median
    # 199 / 50 = 3.98 steps/s (no batch size in the log).
    "lightning-2.2-8gpus.log": ("PyTorch Lightning progress bar", 8, 3.98, STEPS),
    # 299 optimizer steps in 598 s × 128 samples each (4 per device × 4
    # accumulation steps × 8 processes).
    "accelerate-0.30-gradacc-8gpus.log": (
        "Hugging Face Accelerate",
        8,
        299 / 598 * 128,
        SAMPLES,
    ),
    # SpeedMonitor's windows after the first: median of 131,072.1, 131,500.2,
    # 130,900.4 and 131,200.0 tokens/s; n_gpus: 16.
    "llmfoundry-0.10-16gpus.log": ("MosaicML Composer", 16, 131136.05, TOKENS),
    # Tokens/s/device of steps 1-9 (step 1's 40,756 is the asynchronous
    # dispatch): median 9,153.3 × Num_devices 16.
    "maxtext-2024-16gpus.log": ("MaxText", 16, 9153.3 * 16, TOKENS),
    # 2023: no Tokens/s/device; per_device_batch_size 4 × max_target_length 2048
    # / median seconds 0.414 × 8 devices.
    "maxtext-2023-8gpus.log": ("MaxText", 8, 4 * 2048 / 0.414 * 8, TOKENS),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_framework_gives_the_steady_state_of_the_whole_job(name):
    fmt, gpus, throughput, unit = EXPECTED[name]
    reading = read(name)
    assert reading.refused == "" and reading.unread == ()
    (m,) = reading.measurements
    assert (reading.format, m.format, m.gpus, m.unit) == (fmt, fmt, gpus, unit)
    assert m.throughput == pytest.approx(throughput, rel=1e-9)
    # Read in blocks (the upload path), the same.
    with open(LOGS / name, "rb") as stream:
        assert as_dict(read_file(stream, file=name)) == as_dict(reading)


def test_nemo_cites_its_configuration_and_leaves_the_warm_up_out():
    (m,) = read("nemo-1.23-16gpus.log").measurements
    assert "global_batch_size = 256 (line 17, the configuration)" in m.source.formula
    assert "seq_length 4096 (line 20)" in m.source.formula
    assert "MEMBER count = 16 (line 29)" in m.source.formula
    assert "line 36, the first interval (warm-up)" in m.source.left_out
    # Every update of the bar is on line 36: cited once.
    assert m.source.lines == (17, 20, 29, 36)


def test_a_progress_bar_line_longer_than_the_line_limit_is_read_to_its_end():
    raw = (LOGS / "lightning-2.2-8gpus.log").read_bytes()
    longest = max(raw.split(b"\n"), key=len)
    # An epoch's 200 updates on one line, more than the limit of a line.
    assert len(longest) > MAX_LINE_CHARS
    (m,) = read("lightning-2.2-8gpus.log").measurements
    # Each epoch was read to its step 200, at its line's end.
    assert "median over 3 bar runs" in m.source.formula
    assert "from step 1 to 200" in m.source.formula
    assert any("no batch size" in item for item in m.source.left_out)


def test_iter_lines_yields_each_update_of_a_bar_and_ends_windows_lines():
    data = b"a\r\nbar 1\rbar 2\rbar 3\nlast\r\n"
    assert list(iter_lines(io.BytesIO(data))) == [
        "a",
        "bar 1\r",
        "bar 2\r",
        "bar 3",
        "last",
    ]


def test_updates_of_one_line_share_its_number_in_both_paths():
    text = "world_size=2\rstep 1 | 5 tok/s\rstep 2 | 7 tok/s\nstep 3 | 9 tok/s\n"
    by_lines = read_log(text.split("\n"), file="x")
    by_blocks = read_text(text, file="x")
    (m,) = by_blocks.measurements
    assert m.source.lines == (1, 2)  # step 2 on line 1, step 3 on line 2
    assert m.throughput == 8 and m.gpus == 2
    assert as_dict(by_lines) == as_dict(by_blocks)


def test_lightning_validation_bars_and_postfix_redraws_are_not_steps():
    (m,) = read("lightning-2.2-8gpus.log").measurements
    # The redraw after validation shows step 200 three seconds later: not used.
    assert "00:09 → 00:59: 199 / 50 s" in m.source.formula


def test_accelerate_bar_counting_batches_not_optimizer_steps():
    # A loop that updates its bar every batch (not on sync_gradients): the bar's
    # total is optimization steps × accumulation steps, each update 128 / 4.
    text = (LOGS / "accelerate-0.30-gradacc-8gpus.log").read_text()
    text = text.replace("/300 [", "/1200 [")
    (m,) = read_text(text).measurements
    assert m.throughput == pytest.approx(299 / 598 * 32)
    assert "the bar counts batches (1200 = 300 optimization steps" in m.source.formula


def test_composer_mfu_and_a_gpu_count_from_its_own_figures():
    (m,) = read("llmfoundry-0.10-16gpus.log").measurements
    assert m.mfu_pct == pytest.approx(33.135)
    text = (LOGS / "llmfoundry-0.10-16gpus.log").read_text().replace("n_gpus: 16", "")
    (derived,) = read_text(text).measurements
    assert derived.gpus == 16
    assert "throughput/tokens_per_sec / throughput/device/tokens_per_sec" in (
        derived.gpus_from
    )


def test_maxtext_without_a_device_count_asks_for_it():
    text = (LOGS / "maxtext-2024-16gpus.log").read_text()
    text = "\n".join(line for line in text.splitlines() if "Num_devices" not in line)
    (m,) = read_text(text).measurements
    assert m.needs_gpus and m.per_gpu == pytest.approx(9153.3)
    (given,) = read_text(text, gpus=8).measurements
    assert given.throughput == pytest.approx(9153.3 * 8)


# --------------------------------------------------------------------- sacct


def test_a_job_array_is_one_kind_of_job_whatever_its_lengths_round_to():
    reading = read("sacct-array-any-order.txt")
    assert reading.format == "sacct" and reading.unread == ()
    rows = [(j.title, j.gpus, j.hours, j.count) for j in reading.jobs]
    # Tasks 0-7 ran 7181 … 7240 s (1.99 h to 2.01 h rounded): mean 7205 s = 2.00 h.
    # train-13b: 12:00:09 and 12:00:27 (TIMEOUT) are one kind, mean 12.005 h;
    # the one cancelled after 5:10:00 is another.
    assert rows == [
        ("sweep-lr", 8, Decimal("2.00"), 8),
        ("train-13b", 32, Decimal("5.17"), 1),
        ("train-13b", 32, Decimal("12.01"), 2),
    ]
    array = reading.jobs[0].source
    assert "8 task(s) of job array 4812" in array.formula
    assert "Elapsed 1.99–2.01 h, mean 2.00 h" in array.formula
    assert "states: 6 COMPLETED, 1 TIMEOUT, 1 FAILED" in array.formula
    left_out = " ".join(array.left_out)
    assert "4 array task(s) not yet run (4812_[8-11%4])" in left_out
    assert "jobs that never started (Elapsed 0): line 16" in left_out
    assert "running jobs have no final length: line 23" in left_out
    assert "job steps" in left_out


@pytest.mark.parametrize(
    "header",
    [
        "JobIDRaw|ElapsedRaw|AllocTRES|State|JobName",
        "jobname|state|alloctres|jobid|elapsedraw",
    ],
)
def test_sacct_in_any_column_order_with_raw_ids_and_seconds(header):
    names = [name.lower() for name in header.split("|")]
    values = {
        "jobidraw": ["91", "92", "92.batch"],
        "jobid": ["91", "92", "92.batch"],
        "elapsedraw": ["7200", "7230", "7230"],
        "alloctres": ["cpu=8,gres/gpu=4"] * 3,
        "state": ["COMPLETED", "TIMEOUT", "CANCELLED"],
        "jobname": ["ft", "ft", "batch"],
    }
    lines = [header] + ["|".join(values[name][i] for name in names) for i in range(3)]
    reading = read_text("\n".join(lines) + "\n")
    assert [(j.gpus, j.hours, j.count) for j in reading.jobs] == [
        (4, Decimal("2.00"), 2)
    ]


def test_sacct_with_requested_gpus_only_says_so():
    text = "JobID|Elapsed|ReqTRES\n5|01:00:00|cpu=4,gres/gpu=2\n"
    (job,) = read_text(text).jobs
    assert job.gpus == 2
    assert any("requested (reqtres)" in item for item in job.source.left_out)
