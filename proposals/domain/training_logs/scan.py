"""Feeding lines to the readers: one line at a time, or a file in blocks.

Every reader names the words its lines contain (``Reader.triggers``, lower case);
a line containing none of them is fed to no reader. :func:`feed_blocks` uses that to read
a file a block of bytes at a time: it finds the words in the whole block with
``bytes.find`` (C), decodes only the lines that hold one and counts the others with
``bytes.count``, so a line no reader wants costs no Python step at all (a 50 MB log
of empty lines, or of noise, reads in well under a second). The two ways give the
same reading (``tests/domain/test_log_reader_linear.py`` checks it on every
fixture and on generated text).

What is read is bounded three ways: a file's bytes (:data:`.MAX_FILE_BYTES`, by the
caller), a line's characters (:data:`.MAX_LINE_CHARS`: the rest of a longer line is
never decoded) and the number of lines (:data:`.MAX_LINES`: the rest of a longer
file is not read, and the reading says so). Every pattern a reader applies is linear
in the line (no two unbounded quantifiers can share a run: possessive quantifiers
and searches that start from the previous match), so the time to read a file grows
with its size and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .lines import Reader, Unread
from .results import ANSI, MAX_LINE_CHARS, MAX_LINES
from .sacct import Sacct

#: Bytes read at a time.
BLOCK = 1 << 20
#: The bytes of a line decoded at most (a UTF-8 character takes up to four).
_LINE_BYTES = MAX_LINE_CHARS * 4
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: A byte that is not ASCII white space (the first line with text is looked for).
_TEXT = re.compile(rb"\S")
#: What ends a segment: a newline, or a progress bar's carriage return.
_SEPARATOR = re.compile(rb"[\r\n]")


class Feed:
    """The readers of one file and what was fed to them."""

    def __init__(self, readers: tuple[type[Reader], ...]):
        self.unread = Unread()
        self.readers = [reader(self.unread) for reader in readers]
        self.sacct: Sacct | None = None
        self.first = True
        self.lines = 0
        #: The lines read at most (:data:`.MAX_LINES`), and whether more were left.
        self.limit = MAX_LINES
        self.stopped = False
        # Each trigger (bytes, lower case) and the readers (by index) it wakes.
        words: dict[bytes, int] = {}
        for index, reader in enumerate(self.readers):
            for word in reader.triggers:
                key = word.encode()
                words[key] = words.get(key, 0) | 1 << index
        words[b"\x1b"] = -1  # a coloured line: every reader, after the codes go
        self.words = tuple(words.items())

    # ------------------------------------------------------------------ lines

    def line(self, number: int, raw: str, wake: int = -1) -> None:
        """Feed line ``number``; ``wake`` (a bit per reader) says which readers
        its words woke, -1 for "look".
        """
        if number == 1:
            # A file saved by a Windows editor (or PowerShell) starts with a byte
            # order mark, which would hide sacct's header.
            raw = raw.removeprefix("\ufeff")
        line = raw
        if "\x1b" in raw:
            line = ANSI.sub("", raw)
            wake = -1
        if self.first and line.strip():
            self.first = False
            header = Sacct.header(line)
            if header:
                self.sacct = Sacct(header, number, self.unread)
                return
        if self.sacct is not None:
            self.sacct.feed(number, line)
            return
        if wake == -1:
            # As the block scan lowers bytes: ASCII letters only.
            lower = line.translate(_ASCII_LOWER)
            wake = 0
            for index, reader in enumerate(self.readers):
                if any(word in lower for word in reader.triggers):
                    wake |= 1 << index
        index = 0
        while wake:
            if wake & 1:
                self.readers[index].feed(number, line)
            wake >>= 1
            index += 1

    def lines_of(self, lines: Iterable[str]) -> None:
        """Feed an iterable of lines (pasted text, a test's list). A progress bar's
        updates are fed one at a time, with their line's number: those within a
        line (``"a\rb"``) and those :func:`.iter_lines` yields apart (an item
        ending in ``"\r"``: the line goes on in the next one)."""
        number = 1
        for raw in lines:
            if number > self.limit:
                self.stopped = True
                break
            self.lines = number
            if "\r" not in raw:
                self.line(number, raw[:MAX_LINE_CHARS])
                number += 1
                continue
            *updates, last = raw.split("\r")
            for update in updates:
                self.line(number, update[:MAX_LINE_CHARS])
            if last:
                self.line(number, last[:MAX_LINE_CHARS])
            if not raw.endswith("\r"):
                number += 1

    # ----------------------------------------------------------------- blocks

    def block(self, block: bytes) -> None:
        """Feed ``block``: whole lines, each ending in a newline, or, when a line
        holds no newline for a whole block (a progress bar's carriage returns),
        the whole updates of it, ending in a carriage return. Updates are fed one
        at a time with the number of their line (newlines counted)."""
        count = block.count(b"\n")
        if self.lines + count > self.limit:
            # Only up to the last line allowed.
            end = -1
            for _ in range(self.limit - self.lines):
                end = block.find(b"\n", end + 1)
            block = block[: end + 1]
            self.stopped = True
        start = 0
        while self.first:
            # Blank lines before the first line with text: counted, not fed.
            text = _TEXT.search(block, start)
            if text is None:
                self.lines += block.count(b"\n", start)
                return
            begin = _segment_start(block, start, text.start())
            end = _segment_end(block, begin)
            self.line(
                self.lines + block.count(b"\n", start, begin) + 1,
                _decode(block, begin, end),
            )
            self.lines += block.count(b"\n", start, end + 1)
            start = end + 1
        if self.sacct is not None:
            for begin, end in _segments(block, start):
                self.sacct.feed(self.lines + 1, _decode(block, begin, end))
                if block[end] == 10:  # "\n"
                    self.lines += 1
            return
        base, at = self.lines, start
        for begin, wake in _woken(block, start, self.words):
            base += block.count(b"\n", at, begin)
            end = _segment_end(block, begin)
            self.line(base + 1, _decode(block, begin, end), wake)
            at = begin
        self.lines += block.count(b"\n", start)


def _woken(block: bytes, start: int, words) -> list[tuple[int, int]]:
    """The starts of the segments of ``block`` (from ``start``; a segment is a
    line, or one update of a progress bar between carriage returns) that hold a
    trigger, in order, each with the readers its words wake."""
    lower = block.lower()  # bytes: only ASCII letters change, positions stay
    found: dict[int, int] = {}
    for word, wake in words:
        at = lower.find(word, start)
        while at >= 0:
            begin = _segment_start(block, start, at)
            found[begin] = found.get(begin, 0) | wake
            at = lower.find(word, _segment_end(block, at))
    return sorted(found.items())


def _segment_start(block: bytes, start: int, at: int) -> int:
    """Where the segment holding ``at`` begins: after the last newline or
    carriage return before it (each looked for within the line only)."""
    line = block.rfind(b"\n", start, at) + 1 or start
    return block.rfind(b"\r", line, at) + 1 or line


def _segment_end(block: bytes, at: int) -> int:
    """The newline or carriage return that ends the segment holding ``at`` (a
    block ends in one)."""
    end = block.find(b"\n", at)
    if end < 0:
        end = len(block)
    ret = block.find(b"\r", at, end)
    return ret if ret >= 0 else end


def _segments(block: bytes, start: int):
    """``(begin, end)`` of each segment from ``start`` (ends included, in order)."""
    for match in _SEPARATOR.finditer(block, start):
        yield start, match.start()
        start = match.end()


def _decode(block: bytes, start: int, end: int) -> str:
    raw = block[start : min(end, start + _LINE_BYTES)]
    return raw.decode("utf-8", errors="replace")[:MAX_LINE_CHARS]


def feed_blocks(
    stream, feed: Feed, progress: Callable[[int], None] | None = None
) -> None:
    """Feed a binary ``stream`` to ``feed`` a block at a time; ``progress`` is
    called with the bytes read so far after each block."""
    carry = b""  # the start of a line the last block ended in (bounded)
    done = 0
    while not feed.stopped:
        chunk = stream.read(BLOCK)
        done += len(chunk)
        if not chunk:
            if carry:
                feed.block(carry + b"\n")
            break
        cut = chunk.rfind(b"\n")
        if cut < 0:
            # A progress bar's line: its whole updates are fed, the rest kept.
            cut = chunk.rfind(b"\r")
        if cut < 0:
            if len(carry) <= _LINE_BYTES:
                carry = (carry + chunk)[: _LINE_BYTES + 1]
            continue
        feed.block(carry + chunk[: cut + 1] if carry else chunk[: cut + 1])
        carry = chunk[cut + 1 :][: _LINE_BYTES + 1]
        if progress is not None:
            progress(done)
