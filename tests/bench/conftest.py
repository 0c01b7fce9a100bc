"""Benchmarks run only under ``make bench`` (``AIFACTORY_BENCH=1``), never in ``make test``.

They print figures and ratios against a baseline measured in the same run. Each test
fails only on wrong results; a target missed (:func:`meets`, printed "ABOVE target")
is listed at the end of the run and makes ``make bench`` exit non-zero, so a script
or CI sees it. The normal test suite never runs these (no timing is asserted there).
"""

import os
import statistics
import time

import pytest

# The targets missed in this run: (what, measured, target), in the order measured.
MISSED: list[tuple[str, str, str]] = []


def pytest_collection_modifyitems(config, items):
    if os.environ.get("AIFACTORY_BENCH") == "1":
        return
    skip = pytest.mark.skip(reason="benchmark: run with `make bench`")
    for item in items:
        if "/bench/" in str(item.fspath):
            item.add_marker(skip)


def median_ms(func, *, repeat: int = 30, warmup: int = 3) -> float:
    """Median wall time of ``func()`` in milliseconds."""
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def medians_ms(funcs: dict, *, repeat: int = 100, warmup: int = 3) -> dict:
    """Median wall time in milliseconds of each of ``funcs`` (name -> callable),
    measured in turns: each round calls every one once, so a slower spell of a
    shared machine weighs on a ratio's both sides alike."""
    for _ in range(warmup):
        for func in funcs.values():
            func()
    samples: dict = {name: [] for name in funcs}
    for _ in range(repeat):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(times) for name, times in samples.items()}


def report(title: str, rows: list[tuple[str, str]]):
    width = max(len(label) for label, _ in rows)
    print(f"\n== {title}")
    for label, value in rows:
        print(f"   {label.ljust(width)}  {value}")


def meets(what: str, value: float, limit: float, *, shown: str = "") -> str:
    """``ok`` when ``value`` is at most ``limit``; else ``ABOVE target``, and the
    miss is kept for the end of the run (:func:`pytest_sessionfinish`)."""
    if value <= limit:
        return "ok"
    MISSED.append((what, shown or f"{value:.3g}", f"<= {limit:g}"))
    return "ABOVE target"


def pytest_terminal_summary(terminalreporter):
    if not MISSED:
        return
    terminalreporter.section("benchmark targets missed", red=True)
    for what, shown, limit in MISSED:
        terminalreporter.line(f"{what}: {shown} (target {limit})", red=True)


def pytest_sessionfinish(session, exitstatus):
    """A run whose tests all passed but which missed a target exits with 1."""
    if MISSED and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
