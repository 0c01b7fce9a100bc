"""Benchmarks run only under ``make bench`` (``AIFACTORY_BENCH=1``), never in ``make test``.

They print figures and ratios against a baseline measured in the same run. Each test
fails only on wrong results; a target missed (:func:`meets`, printed "ABOVE target")
is listed at the end of the run and makes ``make bench`` exit non-zero, so a script
or CI sees it. The normal test suite never runs these (no timing is asserted there).

A ratio is measured in :data:`ROUNDS` alternated rounds (:func:`rounds_ms`): each
round times both sides in turns, the order reversed every other round, and gives one
ratio; the ratio printed is the rounds' median with their spread (lowest to
highest, :class:`Spread`), and a target is missed only when the whole spread is
beyond it (:func:`meets_spread`): on a shared machine one run's median swings across
a target, the lowest of seven rounds above it does not happen by chance.
"""

import os
import statistics
import time
from dataclasses import dataclass

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


@pytest.fixture(autouse=True)
def _server_template_rendering(monkeypatch):
    """Render Django templates as a server does. The test environment replaces
    ``Template._render`` with one that sends a signal for the test client to record
    each template and its context (``django.test.utils.setup_test_environment``,
    which keeps the original in ``_TestState.saved_data``); a server sends none."""
    from django.template import Template
    from django.test.utils import _TestState

    saved = getattr(_TestState, "saved_data", None)
    original = getattr(saved, "template_render", None)
    assert original is not None, "Django's test environment keeps it no more"
    monkeypatch.setattr(Template, "_render", original)


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


# Rounds per ratio: the issue 35 bench asks for at least seven.
ROUNDS = 7


def rounds_ms(
    funcs: dict, *, rounds: int = ROUNDS, repeat: int = 15, warmup: int = 3
) -> dict[str, list[float]]:
    """Per round, the median wall time in milliseconds of each of ``funcs`` (name ->
    callable): ``rounds`` rounds of ``repeat`` turns, each turn calling every one
    once, in the given order in even rounds and the reverse in odd ones (neither side
    always runs first, right after the other's garbage). A ratio of two names is then
    one value per round (:meth:`Spread.ratio`)."""
    for _ in range(warmup):
        for func in funcs.values():
            func()
    names = list(funcs)
    medians: dict[str, list[float]] = {name: [] for name in names}
    for number in range(rounds):
        order = names if number % 2 == 0 else names[::-1]
        samples: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(repeat):
            for name in order:
                start = time.perf_counter()
                funcs[name]()
                samples[name].append((time.perf_counter() - start) * 1000)
        for name in names:
            medians[name].append(statistics.median(samples[name]))
    return medians


@dataclass(frozen=True)
class Spread:
    """One figure measured in rounds: the median of the rounds and their spread."""

    values: tuple[float, ...]

    @classmethod
    def ratio(cls, rounds: dict[str, list[float]], top: str, bottom: str) -> "Spread":
        """``top / bottom`` round by round (both measured in the same rounds)."""
        return cls(
            tuple(a / b for a, b in zip(rounds[top], rounds[bottom], strict=True))
        )

    @classmethod
    def of(cls, rounds: dict[str, list[float]], name: str) -> "Spread":
        return cls(tuple(rounds[name]))

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    def shown(self, fmt: str = ".2f", unit: str = "x") -> str:
        """``2.31x (2.05-2.60x over 7 rounds)``: the median, then the spread."""
        return (
            f"{self.median:{fmt}}{unit} ({self.low:{fmt}}-{self.high:{fmt}}{unit} "
            f"over {len(self.values)} rounds)"
        )


def meets_spread(what: str, spread: Spread, limit: float) -> str:
    """A target held by a figure measured in rounds: ``ok`` when every round is
    within it; missed (``ABOVE target``, kept for the end of the run like
    :func:`meets`) only when every round is beyond it; otherwise the spread straddles
    the target, which is said (with where the median lies) but fails nothing."""
    if len(spread.values) < ROUNDS:
        raise ValueError(f"{what}: {len(spread.values)} rounds, at least {ROUNDS}")
    if spread.high <= limit:
        return "ok"
    if spread.low > limit:
        MISSED.append((what, spread.shown(".3g"), f"<= {limit:g}"))
        return "ABOVE target"
    side = "above" if spread.median > limit else "within"
    return f"spread straddles the target (median {side}; not a miss)"


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
