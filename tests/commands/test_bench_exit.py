"""A missed performance target makes ``make bench`` and ``make loadtest`` exit
non-zero (issue 21): both printed "ABOVE target" or "MISSED" and exited 0."""

import importlib
from types import SimpleNamespace

import pytest

from tests.bench import conftest as bench


def _loadtest():
    return importlib.import_module("scripts.loadtest")  # ``make loadtest`` runs it


@pytest.fixture
def missed(monkeypatch):
    monkeypatch.setattr(bench, "MISSED", [])
    return bench.MISSED


def _finish(exitstatus):
    session = SimpleNamespace(exitstatus=exitstatus)
    bench.pytest_sessionfinish(session, exitstatus)
    return session.exitstatus


def test_a_bench_run_that_missed_a_target_exits_with_1(missed):
    assert bench.meets("autosave / SELECT + UPDATE", 2.9, 3) == "ok"
    assert _finish(pytest.ExitCode.OK) == pytest.ExitCode.OK
    assert bench.meets("autosave / SELECT + UPDATE", 3.4, 3) == "ABOVE target"
    assert missed == [("autosave / SELECT + UPDATE", "3.4", "<= 3")]
    assert _finish(pytest.ExitCode.OK) == pytest.ExitCode.TESTS_FAILED
    # A run that failed otherwise keeps its own status.
    assert _finish(pytest.ExitCode.INTERRUPTED) == pytest.ExitCode.INTERRUPTED


def test_a_loadtest_round_above_its_p95_target_is_missed():
    loadtest = _loadtest()
    target = loadtest.TARGET_P95_MS
    assert loadtest.round_verdict(target - 1, [], []) == "ok"
    assert loadtest.round_verdict(target + 1, [], []) == "MISSED"
    assert loadtest.round_verdict(target - 1, ["500"], []) == "MISSED"
    assert loadtest.round_verdict(target - 1, [], ["typist 3"]) == "MISSED"
    assert loadtest.at_most(3.1, loadtest.TARGET_RATIO) == "ABOVE target"
    assert loadtest.at_most(2.0, loadtest.TARGET_RATIO) == "ok"
