"""Lines in bounded memory, the interval series and the readers' base."""

from __future__ import annotations

import codecs
import itertools
from array import array
from collections.abc import Iterator

import numpy as np

from .results import (
    EXCERPT_CHARS,
    EXCERPT_LINES,
    MAX_LINE_CHARS,
    MAX_LISTED,
    STEADY_MIN_INTERVALS,
    WARMUP_INTERVALS,
    Measurement,
)

# --------------------------------------------------------------------------- lines


def iter_lines(stream, *, encoding: str = "utf-8") -> Iterator[str]:
    """The lines of a binary ``stream``, decoded (bad bytes replaced), without their
    line ends, a line longer than :data:`MAX_LINE_CHARS` cut there: memory stays
    bounded whatever the file holds (a file without a newline included).

    A progress bar (tqdm, PyTorch Lightning, NeMo, Accelerate scripts) rewrites its
    line with carriage returns: one line of the file holds every update, often more
    than :data:`MAX_LINE_CHARS` characters of them, sometimes the whole run. Each
    update is yielded on its own, ending in ``"\r"`` when the line goes on after it
    (the next item has the same line number, :meth:`.scan.Feed.lines_of`); each is
    cut at :data:`MAX_LINE_CHARS`. A line ending in ``"\r\n"`` (Windows) ends
    there, as any other.

    A block is decoded and split in one call each (C), so a line costs one slice,
    never a copy of the rest of the block; of a line longer than the limit only
    the first :data:`MAX_LINE_CHARS` characters are kept while the rest streams
    past."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    # The start of the segment the last block ended in (at most MAX_LINE_CHARS + 1
    # characters: one more than kept, to know it was cut).
    pending = ""
    while True:
        chunk = stream.read(_BLOCK)
        text = decoder.decode(chunk, final=not chunk)
        if text:
            parts = text.split("\n")
            if len(parts) > 1:
                first = pending + parts[0] if pending else parts[0]
                yield from _segments(first)
                if "\r" in text:
                    for part in itertools.islice(parts, 1, len(parts) - 1):
                        yield from _segments(part)
                else:
                    for part in itertools.islice(parts, 1, len(parts) - 1):
                        yield part[:MAX_LINE_CHARS]
                pending = ""
            last = pending + parts[-1] if pending else parts[-1]
            # Updates of a progress bar that are already whole (a carriage return
            # follows them, and is not the last character: "\r\n" may be split).
            cut = last.rfind("\r", 0, len(last) - 1)
            if cut >= 0:
                for segment in last[:cut].split("\r"):
                    yield segment[:MAX_LINE_CHARS] + "\r"
                last = last[cut + 1 :]
            pending = last[: MAX_LINE_CHARS + 1]
        if not chunk:
            break
    if pending:
        yield from _segments(pending)


#: Bytes read (and decoded) at a time.
_BLOCK = 1 << 20


def _segments(line: str) -> Iterator[str]:
    """A whole line's updates: every one but the last ends in ``"\r"``."""
    line = line.removesuffix("\r")
    if "\r" not in line:
        yield line[:MAX_LINE_CHARS]
        return
    *updates, last = line.split("\r")
    for update in updates:
        yield update[:MAX_LINE_CHARS] + "\r"
    yield last[:MAX_LINE_CHARS]


# --------------------------------------------------------------------------- series


def _median(values: array) -> float:
    """The median, without a list of float objects (numpy reads the array's
    buffer)."""
    return float(np.median(np.frombuffer(values, dtype=np.float64)))


def cited(context: tuple[int, ...], lines: tuple[int, ...]) -> tuple[int, ...]:
    """Context lines (GPU count, sequence length) and the interval lines, in order,
    without building a set of the (possibly many) interval lines."""
    context = tuple(sorted(set(context) - {lines[0]} if lines else set(context)))
    if not lines or not context or context[-1] < lines[0]:
        return context + tuple(lines)
    return tuple(sorted(set(context) | set(lines)))


class Series:
    """Interval values and their line numbers, in compact arrays."""

    def __init__(self):
        self.values = array("d")
        self.lines = array("l")
        self.extra: dict[str, array] = {}
        self.excerpt: list[str] = []

    def add(self, value: float, line: int, text: str, **extra: float | None):
        self.values.append(value)
        self.lines.append(line)
        for key, item in extra.items():
            if item is not None:
                self.extra.setdefault(key, array("d")).append(item)
        if len(self.excerpt) < EXCERPT_LINES - 1:
            self.excerpt.append(text.strip()[:EXCERPT_CHARS])
        self._last = text  # cut when the excerpt is made

    def __len__(self):
        return len(self.values)

    def steady(self) -> tuple[float, tuple[int, ...], str]:
        """The median of the intervals after the first, its lines, and what was
        left out."""
        if len(self.values) < STEADY_MIN_INTERVALS:
            return (
                self.values[0],
                (self.lines[0],),
                "only one interval was logged: it includes the warm-up",
            )
        taken = self.values[WARMUP_INTERVALS:]
        return (
            _median(taken),
            tuple(self.lines[WARMUP_INTERVALS:]),
            f"line {self.lines[0]}, the first interval (warm-up)",
        )

    def steady_extra(self, key: str) -> float | None:
        values = self.extra.get(key)
        if not values:
            return None
        return _median(values[1:] if len(values) > 1 else values)

    def excerpt_lines(self) -> tuple[str, ...]:
        lines = list(self.excerpt[1:] or self.excerpt)
        last = getattr(self, "_last", "").strip()[:EXCERPT_CHARS]
        if last and last not in lines:
            lines.append(last)
        return tuple(lines[:EXCERPT_LINES])


class Unread:
    def __init__(self):
        self.lines: list[int] = []
        self.count = 0

    def add(self, line: int):
        self.count += 1
        if len(self.lines) < MAX_LISTED:
            self.lines.append(line)


# --------------------------------------------------------------------------- readers


class Reader:
    """One format: fed every line, it keeps what it needs."""

    name = ""
    #: Words (lower case) every line this reader acts on contains: a line with
    #: none of them is not fed to it (:mod:`.scan`).
    triggers: tuple[str, ...] = ()

    def __init__(self, unread: Unread):
        self.unread = unread
        self.seen = False

    def feed(self, number: int, line: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def measurements(self, file: str, gpus: int | None) -> list[Measurement]:
        raise NotImplementedError  # pragma: no cover

    def _gpus(
        self, stated: tuple[int, int, str] | None, given: int | None, notes: list
    ) -> tuple[int | None, str, tuple[int, ...]]:
        """The GPU count the log states; a given count that contradicts it is
        said, not used (one the log does not state: :meth:`Measurement.with_gpus`)."""
        if stated:
            value, line, what = stated
            if given and given != value:
                notes.append(
                    f"the GPU count given ({given}) differs from the log's "
                    f"{what} = {value} (line {line}); the log's is used"
                )
            return value, f"{what} = {value} (line {line})", (line,)
        return None, "", ()
