"""Issue 26's held-out check: logs written independently of the reader's own fixtures
(``logs_heldout/``), from the projects' sources (Megatron-LM's ``training_log``, the
Trainer's "Running training" block and metrics, DeepSpeed's ``ThroughputTimer``,
torchtitan's step and validation lines, ``sacct -P`` with job steps), at 8, 16 and 32
GPUs, with the noise around them: warnings, NCCL lines, tracebacks of a retried step
or checkpoint write, tqdm bars with carriage returns, ANSI colours, srun labels.

The expected figures were computed by hand: each is the median of the intervals after
the first (seven per file, so the fourth of the sorted values), written below as the
value picked from the file and the arithmetic on it."""

import io
import json
from pathlib import Path

import pytest

from proposals.domain.training_logs import (
    SAMPLES,
    TOKENS,
    iter_lines,
    read_log,
    read_text,
)
from tests.commands.test_commands import run

HELDOUT = Path(__file__).parent / "logs_heldout"

# Megatron-LM: global batch size 512 × seq_length 8192 = 4,194,304 tokens per
# iteration, over the median elapsed time per iteration (ms) of lines 2-8.
MEGATRON = {
    "megatron-core-0.9-8gpus.log": (8, 4_194_304 / 13.0206, 380.3),
    "megatron-core-0.9-16gpus.log": (16, 4_194_304 / 6.6194, 374.0),
    "megatron-core-0.9-32gpus-srun-label.log": (32, 4_194_304 / 3.4306, 360.7),
}
# Trainer: GPUs = total train batch size 128 / (per device × accumulation steps);
# train_samples_per_second as printed (4.47 prints the metrics as strings).
TRAINER = {
    "hf-trainer-4.45-8gpus.log": (8, 44.712),  # 128 / (4 × 4)
    "hf-trainer-4.45-16gpus.log": (16, 86.905),  # 128 / (4 × 2)
    "hf-trainer-4.47-32gpus.log": (32, 168.3),  # 128 / (2 × 2)
}
# DeepSpeed: median CurrSamplesPerSec; GPUs from world_size in the configuration
# printout, or the launcher's dist_world_size when the printout has none.
DEEPSPEED = {
    "deepspeed-0.15-8gpus.log": (8, 44.187702316),
    "deepspeed-0.15-16gpus.log": (16, 87.5521),
    "deepspeed-0.15-32gpus-launcher.log": (32, 171.333),
    # A pipeline run (4 stages, an mpu): the printout's world_size 8 counts the
    # data-parallel ranks only; the launcher's dist_world_size=32 counts the GPUs.
    "deepspeed-0.15-32gpus-pipeline.log": (32, 171.333),
}
# torchtitan: median tps (per GPU) × the device mesh's product; the "validate step"
# line (21,873 tps, forward passes only) is not a training interval. Counted, it
# would make the median (6,495 + 6,499) / 2 at 8 GPUs, and so on.
TORCHTITAN = {
    "torchtitan-2025-8gpus.log": (8, 6495 * 8, 336.1, 33.98),  # mesh [8]
    "torchtitan-2025-16gpus.log": (16, 6231 * 16, 322.5, 32.61),  # [8, 2]
    "torchtitan-2025-32gpus.log": (32, 5896 * 32, 305.1, 30.85),  # [8, 4]
}
# torchtitan on 4 nodes under srun (torchtitan's Slurm script: local rank 0 of each
# node logs): ranks 0, 8, 16 and 24 each log steps 1, 10, 20. Rank 0's steps 10 and
# 20: (5,902 + 5,877) / 2 = 5,889.5 tps. Counting the other ranks' lines took their
# step-1 warm-ups (1,410, 1,388, 1,402) in and gave 5,930.
MULTI_NODE = {"torchtitan-2025-32gpus-4nodes.log": (32, 5889.5 * 32)}


def read(name):
    with open(HELDOUT / name, "rb") as stream:
        return read_log(iter_lines(stream), file=name)


@pytest.mark.parametrize("name", sorted(MEGATRON))
def test_megatron(name):
    gpus, tokens_per_s, tflops = MEGATRON[name]
    reading = read(name)
    (m,) = reading.measurements
    assert (m.format, m.gpus, m.unit) == ("Megatron-LM", gpus, TOKENS)
    assert m.throughput == pytest.approx(tokens_per_s, rel=1e-9)
    assert m.tflops_per_gpu == pytest.approx(tflops)
    assert "line 26, the first interval (warm-up)" in m.source.left_out
    assert reading.unread == ()


@pytest.mark.parametrize("name", sorted(TRAINER))
def test_trainer(name):
    gpus, samples_per_s = TRAINER[name]
    (m,) = read(name).measurements
    assert (m.format, m.gpus, m.unit) == ("Hugging Face Trainer", gpus, SAMPLES)
    assert m.throughput == pytest.approx(samples_per_s)


@pytest.mark.parametrize("name", sorted(DEEPSPEED))
def test_deepspeed(name):
    gpus, samples_per_s = DEEPSPEED[name]
    reading = read(name)
    (m,) = reading.measurements
    assert (m.format, m.gpus, m.unit) == ("DeepSpeed", gpus, SAMPLES)
    assert m.throughput == pytest.approx(samples_per_s)
    assert reading.unread == ()


@pytest.mark.parametrize("name", sorted(TORCHTITAN))
def test_torchtitan_leaves_the_validation_lines_out(name):
    gpus, tokens_per_s, tflops, mfu = TORCHTITAN[name]
    (m,) = read(name).measurements
    assert (m.format, m.gpus, m.unit) == ("torchtitan", gpus, TOKENS)
    assert m.throughput == pytest.approx(tokens_per_s)
    assert (m.tflops_per_gpu, m.mfu_pct) == pytest.approx((tflops, mfu))
    assert 13 not in m.source.lines
    assert any("validation step lines (line 13)" in s for s in m.source.left_out)


def test_torchtitan_on_several_nodes_reads_one_rank():
    ((name, (gpus, tokens_per_s)),) = MULTI_NODE.items()
    (m,) = read(name).measurements
    assert (m.gpus, m.throughput) == (gpus, pytest.approx(tokens_per_s))
    assert m.source.lines == (7, 24, 25)  # the mesh, rank 0's steps 10 and 20
    assert "line 17, the first interval (warm-up)" in m.source.left_out
    assert any("rank(s) 8, 16, 24" in s for s in m.source.left_out)


def test_sacct_allocations_not_steps():
    reading = read("sacct-P-h100.txt")
    jobs = [(j.title, j.gpus, str(j.hours), j.count) for j in reading.jobs]
    # 02:00:13, 01:59:51, 02:00:09 ≈ 2.00 h; 04:00:00, 04:00:02 ≈ 4.00 h (TIMEOUT);
    # 1-00:00:17 ≈ 24.00 h ("CANCELLED by 40213"): each ran, each is an allocation.
    assert jobs == [
        ("scale-8", 8, "2.00", 3),
        ("scale-16", 16, "4.00", 2),
        ("scale-32", 32, "24.00", 1),
    ]
    left_out = " ".join(reading.jobs[0].source.left_out)
    assert "pending jobs" in left_out and "line 26" in left_out
    assert "jobs without GPUs: line 27" in left_out
    assert "running jobs have no final length: line 29" in left_out


def test_read_log_reads_all_of_them_in_one_call():
    files = sorted(HELDOUT.iterdir())
    code, out, err = run("read_log", *(str(f) for f in files), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    expected = {**MEGATRON, **TRAINER, **DEEPSPEED, **TORCHTITAN, **MULTI_NODE}
    got = {
        Path(m["source"]["file"]).name: (m["gpus"], m["throughput"])
        for m in report["measurements"]
    }
    assert got.keys() == expected.keys()
    for name, (gpus, throughput) in got.items():
        assert gpus == expected[name][0]
        assert throughput == pytest.approx(expected[name][1], abs=1e-4)
    assert [(j["gpus"], j["hours"], j["count"]) for j in report["jobs"]] == [
        (8, 2.0, 3),
        (16, 4.0, 2),
        (32, 24.0, 1),
    ]


def test_read_log_exits_2_on_a_file_it_does_not_know(tmp_path):
    noise = tmp_path / "nccl-only.log"
    lines = (HELDOUT / "megatron-core-0.9-8gpus.log").read_text().splitlines()
    noise.write_text("\n".join(line for line in lines if "NCCL" in line) + "\n")
    code, out, err = run("read_log", str(noise))
    assert code == 2
    assert "not a log this reader knows" in err and "tps:" in err
    assert json.loads(out)["measurements"] == []


def test_sacct_saved_on_windows_with_a_byte_order_mark_is_read():
    text = (HELDOUT / "sacct-P-h100.txt").read_text().replace("\n", "\r\n")
    raw = io.BytesIO(("\ufeff" + text).encode("utf-8"))
    reading = read_log(iter_lines(raw), file="sacct.txt")
    assert reading.refused == ""
    assert [(j.gpus, j.count) for j in reading.jobs] == [(8, 3), (16, 2), (32, 1)]


def test_trainer_metrics_with_a_value_that_is_not_a_literal():
    # A Trainer subclass or callback may put a numpy scalar in the metrics: the
    # dictionary is then no Python literal, its train_samples_per_second still is.
    text = (HELDOUT / "hf-trainer-4.45-8gpus.log").read_text()
    text = text.replace("'train_loss': 2.6140121", "'train_loss': np.float64(2.614)")
    text = "\n".join(
        line for line in text.splitlines() if "train_samples_per_second =" not in line
    )
    (m,) = read_text(text).measurements
    assert (m.gpus, m.throughput) == (8, 44.712)
    assert "train_runtime 1118.2731 s" in m.source.formula
