"""The training-log reader costs the same per megabyte whatever a file holds.

A hostile upload once held lines of spaces after ``world_size`` (two ``\\s*``
around an optional token: quadratic), and a file of empty lines cost 2.7 s per
million lines. These tests generate the hostile lines from each pattern's own
quantifiers (:mod:`tests.domain.regex_shapes`), so a pattern added later is tried
without anyone thinking of its worst line.

The time checks are complexity guards, not performance targets (those are in
``make bench``): each compares two runs of the same machine in the same test, with
margins a linear cost meets several times over and a quadratic one misses by a
factor of ten or more. They time the thread's processor time, not the wall clock:
in a parallel run (``make test``, on a busy machine) a 40 ms search is
often preempted where a 1 ms one is not, which made linear patterns miss.
"""

from __future__ import annotations

import importlib
import io
import pkgutil
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proposals.domain.training_logs import (
    MAX_LINE_CHARS,
    READERS,
    as_dict,
    iter_lines,
    lines,
    read_file,
    read_log,
    read_text,
    scan,
)
from tests.domain.regex_shapes import shapes

LOGS = Path(__file__).parent / "logs"
HELD_OUT = Path(__file__).parent / "logs_heldout"
#: Every module of the reader (a reader added in a new module is tried too).
MODULES = tuple(
    info.name
    for info in pkgutil.iter_modules(
        importlib.import_module("proposals.domain.training_logs").__path__
    )
)


def patterns() -> dict[str, re.Pattern]:
    """Every compiled pattern of the reader's modules, and the metric pattern the
    Trainer reader formats per key."""
    found = {}
    for name in MODULES:
        module = importlib.import_module(f"proposals.domain.training_logs.{name}")
        for attr, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found[f"{name}.{attr}"] = value
    loops = importlib.import_module("proposals.domain.training_logs.loops")
    found["loops._HF_METRIC"] = re.compile(
        loops._HF_METRIC.format("train_samples_per_second")
    )
    return found


PATTERNS = patterns()


def _seconds(func, repeat: int = 3) -> float:
    """The best of ``repeat`` runs, in this thread's processor time: time the
    thread waited for a busy machine's other processes is not the pattern's."""
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        func()
        best = min(best, time.thread_time() - start)
    return best


# Rounds of a measurement: noise only ever makes the long lines look slower, so a
# pattern is linear if any round says so; a quadratic one fails every round.
ROUNDS = 3


def test_the_reader_has_patterns_to_try():
    # A refactoring that moved the patterns elsewhere would make the next test
    # try nothing.
    assert len(PATTERNS) >= 40
    assert {"progress", "nemo", "consoles", "sacct"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_pattern_is_linear_on_its_own_worst_lines(name):
    """Eight times longer lines cost about eight times more (a quadratic pattern:
    64 times): the margin is 24."""
    pattern = PATTERNS[name]
    short, long = shapes(pattern, MAX_LINE_CHARS // 8), shapes(pattern, MAX_LINE_CHARS)
    if isinstance(pattern.pattern, bytes):
        short = [line.encode() for line in short]
        long = [line.encode() for line in long]

    def search(lines):
        return lambda: [pattern.search(line) for line in lines]

    for _round in range(ROUNDS):
        base = _seconds(search(short))
        cost = _seconds(search(long))
        # Below a millisecond the clock says nothing: the pattern is fast anyway.
        if cost < max(24 * base, 0.001):
            break
    assert cost < max(24 * base, 0.001), (
        f"{name}: {cost * 1e3:.1f} ms on lines of {MAX_LINE_CHARS} characters, "
        f"{base * 1e3:.2f} ms on lines of {MAX_LINE_CHARS // 8}"
    )


def _hostile_file() -> bytes:
    """Every pattern's worst lines, at the longest line the reader keeps."""
    return (
        "\n".join(
            line
            for pattern in PATTERNS.values()
            if isinstance(pattern.pattern, str)
            for line in shapes(pattern, 4096)
        )
        + "\n"
    ).encode()


def _realistic_file(size: int) -> bytes:
    """Real logs of every format, repeated to ``size`` bytes."""
    text = b"".join(path.read_bytes() for path in sorted(LOGS.glob("*.log")))
    return (text * (size // len(text) + 1))[:size]


def test_hostile_lines_cost_per_megabyte_what_real_logs_cost():
    hostile = _hostile_file()
    real = _realistic_file(len(hostile))
    hostile_s = _seconds(lambda: read_file(io.BytesIO(hostile), file="x"), 1)
    real_s = _seconds(lambda: read_file(io.BytesIO(real), file="x"), 1)
    megabytes = len(hostile) / 2**20
    assert hostile_s < 10 * real_s + 0.05, (
        f"{hostile_s / megabytes:.2f} s per MB of hostile lines, "
        f"{real_s / megabytes:.2f} s per MB of real logs"
    )


def test_a_file_of_empty_lines_is_counted_not_read_line_by_line():
    """38 MB of empty lines once ended in a killed worker: now the lines no reader
    wants cost no Python step, so they cost about what the file's bytes cost."""
    empty = b"\n" * (8 * 2**20)
    words = b"lorem ipsum dolor\n" * (8 * 2**20 // 18)
    empty_s = _seconds(lambda: read_file(io.BytesIO(empty), file="x"), 1)
    plain_s = _seconds(lambda: sum(1 for _ in io.BytesIO(empty)), 1)
    words_s = _seconds(lambda: read_file(io.BytesIO(words), file="x"), 1)
    plain_words_s = _seconds(lambda: sum(1 for _ in io.BytesIO(words)), 1)
    # Empty lines: one count per block. Text no reader wants: one search per
    # reader's word and block, so the readers' words searched for in the whole
    # text are the measure (how fast a search is against a Python step differs by
    # processor: 52 searches cost under 12x the plain loop on one machine, 15x on
    # another).
    triggers = [word for word, _ in scan.Feed(READERS).words]
    lower = words.lower()
    searches_s = _seconds(lambda: [lower.find(word) for word in triggers], 1)
    assert empty_s < plain_s, (empty_s, plain_s)
    assert words_s < 1.5 * searches_s + 2 * plain_words_s, (words_s, searches_s)


# --------------------------------------------------------------------- one reading


def _both(data: bytes, gpus=None):
    by_lines = read_log(iter_lines(io.BytesIO(data)), file="f", gpus=gpus)
    by_blocks = read_file(io.BytesIO(data), file="f", gpus=gpus)
    return by_lines, by_blocks


@pytest.mark.parametrize(
    "path",
    sorted(LOGS.glob("*")) + sorted(HELD_OUT.glob("*")),
    ids=lambda path: path.name,
)
def test_blocks_and_lines_give_the_same_reading(path, monkeypatch):
    data = path.read_bytes()
    by_lines, by_blocks = _both(data)
    assert as_dict(by_blocks) == as_dict(by_lines)
    assert by_blocks.unread == by_lines.unread
    assert by_blocks.refused == by_lines.refused
    # Blocks of 64 bytes: lines, characters and a CRLF split between blocks.
    monkeypatch.setattr(scan, "BLOCK", 64)
    small = read_file(io.BytesIO(data), file="f")
    assert as_dict(small) == as_dict(by_lines)
    assert small.unread == by_lines.unread


RUNS = st.sampled_from([" ", "\t", "0", "9", ".", ",", ":", "=", "|", "-", "/", "%"])
PIECES = st.sampled_from(
    [
        "world_size",
        "num_processes",
        "step",
        "step:",
        "iteration",
        "elapsed time per iteration (ms):",
        "global batch size:",
        "tps:",
        "tok/s",
        "samples/s",
        "MFU",
        "[config.py:1:print]",
        "CurrSamplesPerSec=",
        "train_samples_per_second",
        "'train_samples_per_second':",
        "{",
        "}",
        "MEMBER:",
        " ... ",
        "\x1b[1m",
        "train_step_timing in s=",
        "%|",
        " 12/100 [00:01<00:02, 3.00it/s, ",
        "completed step: 3, seconds: ",
        "Tokens/s/device: ",
        "\t Train throughput/tokens_per_sec: ",
        "Num processes: ",
        "\r",
        "\n",
        "é",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            PIECES,
            st.tuples(RUNS, st.integers(0, 3000)).map(lambda run: run[0] * run[1]),
        ),
        max_size=30,
    )
)
def test_long_runs_of_space_digits_and_separators_never_raise(pieces):
    text = "".join(pieces)
    reading = read_text(text)
    assert reading.ok or reading.refused
    by_lines, by_blocks = _both(text.encode())
    assert as_dict(by_blocks) == as_dict(by_lines)
    assert by_blocks.unread == by_lines.unread


# ------------------------------------------------------------------------ bounds


def test_a_file_longer_than_the_line_limit_is_read_up_to_it_and_says_so(
    monkeypatch,
):
    monkeypatch.setattr(scan, "MAX_LINES", 50)
    step = "step {n} | loss 2.0 | {v} tok/s\n"
    head = "world_size=8\n" + "".join(step.format(n=n, v=1000) for n in range(1, 40))
    tail = "".join(step.format(n=n, v=9_000_000) for n in range(40, 200))
    reading = read_file(io.BytesIO((head + tail).encode()), file="long.log")
    (measurement,) = reading.measurements
    # Lines 41 to 50 (steps 40 to 49) were read, those after were not.
    assert max(measurement.source.lines) == 50
    assert measurement.throughput == 1000
    assert any("only the first 50 lines were read" in note for note in reading.notes)
    as_lines = read_log(iter_lines(io.BytesIO((head + tail).encode())), file="long.log")
    assert as_dict(as_lines) == as_dict(reading)


def test_a_file_within_the_limit_says_nothing_of_it(monkeypatch):
    monkeypatch.setattr(scan, "MAX_LINES", 50)
    text = "world_size=8\n" + "".join(f"step {n} | 5 tok/s\n" for n in range(49))
    reading = read_file(io.BytesIO(text.encode()), file="x")
    assert reading.ok and not reading.notes


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 20])
def test_the_splitter_keeps_every_line_whatever_the_block(block, monkeypatch):
    monkeypatch.setattr(lines, "_BLOCK", block)
    data = (
        "first\r\nsécond\n\n" + "x" * (MAX_LINE_CHARS + 5) + "\nthird \udcff\nlast"
    ).encode("utf-8", errors="surrogateescape")
    got = list(iter_lines(io.BytesIO(data)))
    assert got == [
        "first",
        "sécond",
        "",
        "x" * MAX_LINE_CHARS,
        "third \ufffd",
        "last",
    ]


def test_the_splitter_costs_per_megabyte_what_a_plain_line_loop_costs():
    """It once re-copied the rest of its 64 KB buffer for every line (8-10 times a
    plain loop): now a block is split once."""
    data = b"short line of a log, as most are\n" * 300_000
    split_s = _seconds(lambda: sum(1 for _ in iter_lines(io.BytesIO(data))))
    plain_s = _seconds(
        lambda: sum(
            1
            for _ in io.TextIOWrapper(
                io.BytesIO(data), encoding="utf-8", errors="replace"
            )
        )
    )
    assert split_s < 4 * plain_s, (split_s, plain_s)
