"""Benchmarks run only under ``make bench`` (``AIFACTORY_BENCH=1``), never in ``make test``.

They print figures and ratios against a baseline measured in the same run; they do not
fail on timings (the machine's load is not the code's fault), only on wrong results.
"""

import os
import statistics
import time

import pytest


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
