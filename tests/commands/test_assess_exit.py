"""``assess`` exit codes on real-world input: 1 for an error finding such as zero
GPU-hours, 2 when it cannot run, and it runs in a fresh shell as the README shows."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.test_commands import EXAMPLES, run

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def document(tmp_path, **selection):
    data = json.loads((EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8"))
    data["selection"].update(selection)
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_zero_gpu_hours_is_an_error_and_exits_1(catalogue, tmp_path):
    code, out, _ = run("assess", str(document(tmp_path, total_gpu_hours=0)))
    assert code == 1
    sel1 = [f for f in json.loads(out)["findings"] if f["code"] == "SEL-1"]
    assert [f["field"] for f in sel1] == ["selection.total_gpu_hours"]


def test_positive_hours_exit_0(catalogue, tmp_path):
    code, _, _ = run("assess", str(document(tmp_path, total_gpu_hours=18176)))
    assert code == 0


def fresh_shell(*args, **env):
    """Run ``manage.py`` as a new shell would: no DJANGO_* variables set."""
    clean = {"PATH": os.environ.get("PATH", ""), "HOME": str(ROOT / "var"), **env}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        capture_output=True,
        text=True,
        env=clean,
        cwd=ROOT,
        timeout=120,
    )


def test_assess_runs_in_a_fresh_shell(tmp_path):
    result = fresh_shell(
        "assess",
        str(EXAMPLES / "playground.json"),
        "--format",
        "text",
        DATABASE_URL=f"sqlite:///{tmp_path / 'none.sqlite3'}",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Tier: Playground")


def test_assess_exits_2_when_it_cannot_run():
    result = fresh_shell(
        "assess", str(EXAMPLES / "playground.json"), DATABASE_URL="bogus://nowhere"
    )
    assert result.returncode == 2
    assert "Cannot run" in result.stderr and "Traceback" not in result.stderr


def test_version_1_files_still_import_and_report_mode_and_units(
    catalogue, user, tmp_path
):
    data = json.loads((EXAMPLES / "bsc-large-scale.json").read_text(encoding="utf-8"))
    assert data["format"] == "aifactory-proposal/1"
    data["call_family"] = "ai_for_science"
    data["organisation"]["kind"] = "academic"
    data["selection"]["system"] = "leonardo-booster"
    path = tmp_path / "science.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("import_proposal", str(path), "--owner", user.username)
    assert code == 0, err
    code, out, _ = run("assess", str(path))
    report = json.loads(out)
    assert report["tier"] is None and report["call_mode"] == "ai_for_science"
    assert report["billing"]["unit"] == "node_hours"
    assert report["billing"]["requested"] == 110848 / 4
    # The call counts node-hours too (20,000 to 90,000): 27,712 is inside.
    call = report["call_request"]
    assert (call["unit"], call["requested"], call["gpus_per_node"]) == (
        "node_hours",
        110848 / 4,
        4,
    )
    assert "TIER-7" not in {f["code"] for f in report["findings"]}
    assert "SCAL-8" not in {f["code"] for f in report["findings"]}
