"""``assess`` reports the calendar (issue 14): a ``calendar`` key in JSON, a line
in the text for people, and the narrative check (PLAN-4) on the LUMI guide (its
model sentence agrees with the tables)."""

import json

import pytest

from tests.commands.test_assess_exit import document
from tests.commands.test_commands import EXAMPLES, run

pytestmark = pytest.mark.django_db


def test_json_report_has_the_calendar(catalogue):
    code, out, _ = run("assess", str(EXAMPLES / "lumi-fast-lane.json"))
    assert code == 0
    report = json.loads(out)
    cal = report["calendar"]
    assert cal["duration_months"] == 3
    assert cal["node_hours"] == 4544
    assert cal["average_busy_nodes"] == pytest.approx(2.073, abs=1e-3)
    assert cal["plan_parallel_gpus"] == 2144
    assert (cal["system"], cal["system_nodes"]) == ("LUMI-G", 2978)
    assert cal["max_machine_share"] == 0.1
    assert cal["cannot_use_up"] is False
    # The guide's "80-85 % up to 32 GPUs" overlaps the 76-82 % projected: no PLAN-4.
    assert [f for f in report["findings"] if f["code"] == "PLAN-4"] == []


def test_text_report_has_the_calendar_line(catalogue):
    _, out, _ = run("assess", str(EXAMPLES / "lumi-fast-lane.json"), "--format", "text")
    lines = out.splitlines()
    calendar = next(i for i, line in enumerate(lines) if line.startswith("Calendar:"))
    findings = next(i for i, line in enumerate(lines) if line.startswith("Findings:"))
    assert calendar == findings - 1
    assert "2.07 nodes" in lines[calendar]


def test_no_duration_no_calendar(catalogue, tmp_path):
    _, out, _ = run("assess", str(document(tmp_path, duration_months=None)))
    assert json.loads(out)["calendar"] is None
