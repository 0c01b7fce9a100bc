"""The narrative check (PLAN-4) and the unit vocabulary cost the same per character
whatever a text holds.

Every compiled pattern of :mod:`proposals.domain.narrative_figures` and
:mod:`proposals.domain.units` is tried on adversarial lines generated from its own
quantifiers (:mod:`tests.domain.regex_shapes`, as the log reader's patterns are in
``test_log_reader_linear``): eight times longer lines must cost about eight times
more, not sixty-four. A complexity guard comparing two runs of one machine in one
test, not a performance target.
"""

from __future__ import annotations

import re
import time

import pytest

from proposals.domain import narrative_reading, narrative_words, units
from proposals.domain.limits import NARRATIVE_CHARS
from tests.domain.regex_shapes import shapes

# The longest line the log reader keeps (16,384 characters) is about the longest
# narrative (20,000): a text is tried at that length and at an eighth of it.
LONG = 16_384
assert LONG <= NARRATIVE_CHARS


def patterns() -> dict[str, re.Pattern]:
    found = {}
    for module in (narrative_words, narrative_reading, units):
        for attr, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found[f"{module.__name__.rsplit('.', 1)[-1]}.{attr}"] = value
    return found


PATTERNS = patterns()


def _seconds(func, repeat: int = 5) -> float:
    # The thread's processor time: a parallel run (make test) preempts long
    # searches more often than short ones (tests/domain/test_log_reader_linear.py).
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()  # not the time a busy machine made it wait
        func()
        best = min(best, time.thread_time() - start)
    return best


def _per_line(pattern: re.Pattern, lines: list[str]) -> float:
    """The best of five searches of each line, summed: each line is timed while it
    is in the processor's cache, so a longer line costs its characters and not the
    memory traffic of all lines (which made linear patterns look 20x slower at 8x
    the length on this shared machine)."""
    return sum(_seconds(lambda line=line: pattern.search(line)) for line in lines)


def test_there_are_patterns_to_try():
    assert len(PATTERNS) >= 30


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_pattern_is_linear_on_its_own_worst_lines(name):
    pattern = PATTERNS[name]
    short, long = shapes(pattern, LONG // 8), shapes(pattern, LONG)

    # Noise only makes long lines look slower: linear if any of three rounds
    # says so (a quadratic pattern fails every round).
    for _round in range(3):
        base = _per_line(pattern, short)
        cost = _per_line(pattern, long)
        if cost < max(24 * base, 0.002):
            break
    assert cost < max(24 * base, 0.002), (
        f"{name}: {cost * 1e3:.1f} ms on lines of {LONG} characters, "
        f"{base * 1e3:.2f} ms on lines of {LONG // 8}"
    )


def test_a_long_hostile_narrative_costs_what_a_plain_one_costs():
    """The whole check on every pattern's worst lines, against prose of the same
    length."""
    from tests.domain.test_narrative_figures import check_all

    hostile = "\n".join(
        line for pattern in PATTERNS.values() for line in shapes(pattern, 2048)
    )
    prose = (
        "We measured 4,225 samples/s at 16 GPUs, 88 % efficiency. "
        * (len(hostile) // 57 + 1)
    )[: len(hostile)]
    hostile_s = _seconds(lambda: check_all(hostile), 1)
    prose_s = _seconds(lambda: check_all(prose), 1)
    assert hostile_s < 10 * prose_s + 0.05, (hostile_s, prose_s)
