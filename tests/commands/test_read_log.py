"""``manage.py read_log``: the JSON and text reports, exit codes, and a fresh shell."""

import json

import pytest

from tests.commands.test_assess_exit import fresh_shell
from tests.commands.test_commands import run
from tests.domain.test_training_logs import LOGS


def logs(*names):
    return [str(LOGS / name) for name in names]


def test_three_runs_give_three_measurements_with_their_sources():
    files = logs(*(f"megatron-2024-{g}gpus.log" for g in (8, 16, 32)))
    code, out, err = run("read_log", *files)
    assert code == 0, err
    report = json.loads(out)
    assert [m["gpus"] for m in report["measurements"]] == [8, 16, 32]
    for measurement, path in zip(report["measurements"], files, strict=True):
        assert measurement["unit"] == "tokens/s"
        assert measurement["throughput"] > 0
        assert measurement["source"]["file"] == path
        assert 22 in measurement["source"]["lines"]  # world_size
    assert report["jobs"] == []


def test_sacct_gives_job_plan_rows():
    code, out, _ = run("read_log", *logs("sacct-lumi.txt"))
    assert code == 0
    jobs = [(j["gpus"], j["hours"], j["count"]) for j in json.loads(out)["jobs"]]
    assert jobs == [(8, 2.0, 2), (64, 24.0, 3)]


def test_nothing_readable_exits_2_naming_what_was_looked_for():
    code, out, err = run("read_log", *logs("not-a-log.txt"))
    assert code == 2
    assert "not a log this reader knows" in err and "AllocTRES" in err
    report = json.loads(out)
    assert report["measurements"] == [] and report["jobs"] == []


def test_a_missing_gpu_count_is_asked_for_then_used():
    code, _, err = run("read_log", *logs("torchtitan-2024-wps-no-mesh.log"))
    assert code == 2
    assert "states no GPU count; give it with --gpus N" in err
    code, out, _ = run(
        "read_log", *logs("torchtitan-2024-wps-no-mesh.log"), "--gpus", "4"
    )
    assert code == 0
    (measurement,) = json.loads(out)["measurements"]
    assert measurement["gpus"] == 4
    assert measurement["throughput"] == pytest.approx(2006.5 * 4)


def test_a_mix_reads_what_it_can_and_says_what_it_could_not():
    code, out, err = run(
        "read_log", *logs("megatron-2021-16gpus.log", "not-a-log.txt", "nope.log")
    )
    assert code == 0
    assert "megatron-2021-16gpus.log: Could not read line 21." in err
    assert "Cannot read" in err and "not a log this reader knows" in err
    files = json.loads(out)["files"]
    assert [f["format"] for f in files] == ["Megatron-LM", None, None]
    assert files[0]["unread_lines"] == [21]


def test_text_report_for_people():
    code, out, _ = run(
        "read_log",
        *logs("sacct-slurm-17.02.txt", "torchtitan-2025-8gpus.log"),
        "--format",
        "text",
    )
    assert code == 0
    assert "2 × 4 GPUs × 12.00 h resnet" in out
    assert "8 GPUs: 52,016.0 tokens/s" in out
    assert "left out: line 9, the first interval (warm-up)" in out


def test_read_log_runs_in_a_fresh_shell(tmp_path):
    result = fresh_shell(
        "read_log",
        *logs("hf-trainer-4.6-8gpus.log"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'none.sqlite3'}",
    )
    assert result.returncode == 0, result.stderr
    (measurement,) = json.loads(result.stdout)["measurements"]
    assert (measurement["gpus"], measurement["throughput"]) == (8, 408.727)


def test_text_report_in_a_named_locale():
    files = logs("sacct-slurm-17.02.txt", "torchtitan-2025-8gpus.log")
    code, out, _ = run("read_log", *files, "--format", "text", "--locale", "de_DE")
    assert code == 0
    assert "2 × 4 GPUs × 12,00 h resnet" in out
    assert "8 GPUs: 52.016,0 tokens/s" in out
