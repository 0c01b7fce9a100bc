"""``scaling_jobs`` (issue 37): the kit's plan as text or JSON, its exit codes, and
scripts that bash accepts."""

import json
import subprocess

import pytest

from tests.commands.test_commands import EXAMPLES, run

pytestmark = pytest.mark.django_db
COMMAND = "torchrun --nproc-per-node=4 train.py --config configs/7b.yaml"


def document(tmp_path, *, command=COMMAND, system="lumi-g", target=32, measured=4):
    """The Playground example measured on one node (1, 2 and ``measured`` GPUs),
    planning ``target``-GPU jobs."""
    data = json.loads((EXAMPLES / "playground.json").read_text(encoding="utf-8"))
    data["selection"].update(system=system, max_gpus_per_job=target)
    row = data["scalability"]["measurements"][0]
    data["scalability"]["measurements"] = [
        {**row, "gpus": n, "throughput": 100 * n} for n in (1, 2, measured)
    ]
    data["codes"][0]["launch_command"] = command
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_json_plan_for_lumi_one_node(catalogue, tmp_path):
    out = tmp_path / "kit"
    code, stdout, _ = run(
        "scaling_jobs", str(document(tmp_path)), "--out", str(out), "--format", "json"
    )
    assert code == 0
    report = json.loads(stdout)
    assert report["system"] == "lumi-g"
    assert [(j["gpus"], j["nodes"], j["hours"]) for j in report["jobs"]] == [
        (8, 2, 0.5),
        (16, 4, 0.5),
        (32, 8, 0.5),
    ]
    assert report["total_gpu_hours"] == sum(
        j["gpus"] * j["hours"] for j in report["jobs"]
    )
    assert report["total_gpu_hours"] == 28
    for job in report["jobs"]:
        script = out / job["script"]
        assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
        assert f"scaling_{job['gpus']}gpus_%j.log" in script.read_text()
    assert (out / "README.txt").exists()


def test_text_plan_and_options(catalogue, tmp_path):
    out = tmp_path / "kit"
    code, stdout, _ = run(
        "scaling_jobs",
        str(document(tmp_path, command="")),
        "--system",
        "marenostrum5-acc",
        "--launcher",
        "srun",
        "--command",
        "python train.py",
        "--steps",
        "200",
        "--out",
        str(out),
    )
    assert code == 0, stdout
    assert "MareNostrum 5 ACC" in stdout and "Total: " in stdout
    script = (out / "scaling_16gpus.sh").read_text()
    assert "#SBATCH --qos=acc_ehpc" in script
    assert "export MAX_STEPS=200" in script
    assert "srun python train.py" in script


def test_nothing_missing_exits_0_with_no_jobs(catalogue, tmp_path):
    path = document(tmp_path, target=4)
    code, stdout, err = run(
        "scaling_jobs", str(path), "--out", str(tmp_path / "k"), "--format", "json"
    )
    assert code == 0
    assert json.loads(stdout) == {"system": "lumi-g", "jobs": [], "total_gpu_hours": 0}
    assert "Nothing is missing" in err
    code, stdout, _ = run("scaling_jobs", str(path), "--out", str(tmp_path / "k"))
    assert code == 0 and "Nothing is missing" in stdout
    assert not (tmp_path / "k").exists()


def test_no_command_exits_2_saying_what_is_missing(catalogue, tmp_path):
    code, _, err = run(
        "scaling_jobs", str(document(tmp_path, command="")), "--out", str(tmp_path)
    )
    assert code == 2
    assert "No command to run" in err and "--command" in err


def test_unreadable_file_exits_2(catalogue, tmp_path):
    code, _, err = run("scaling_jobs", str(tmp_path / "none.json"), "--out", "x")
    assert code == 2 and "Cannot read" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert run("scaling_jobs", str(bad), "--out", "x")[0] == 2


def test_unknown_system_and_too_few_steps_exit_2(catalogue, tmp_path):
    path = str(document(tmp_path))
    code, _, err = run("scaling_jobs", path, "--system", "nope", "--out", "x")
    assert code == 2 and "Unknown system" in err
    code, _, err = run("scaling_jobs", path, "--steps", "5", "--out", "x")
    assert code == 2 and "steps" in err


def test_a_system_not_in_production_is_no_target(catalogue, tmp_path):
    """An announced system has no figures to plan with: refused like an unknown
    one, and not listed among the known systems."""
    path = str(document(tmp_path))
    code, _, err = run("scaling_jobs", path, "--system", "alice-recoque", "--out", "x")
    assert code == 2 and "Unknown system 'alice-recoque'" in err
    assert "lumi-g" in err and "mimer" not in err
