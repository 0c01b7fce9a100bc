"""Adversarial lines for a regular expression, generated from its own quantifiers.

For every unbounded repetition in a pattern (``*``, ``+``, ``{n,}``), :func:`shapes`
builds lines that reach it (the literal text the pattern needs before it), then hold
a long run of what it repeats, then end, or end on a character that makes the match
fail, so that a backtracking engine tries every split of the run. A second family
repeats a short witness of the whole pattern many times (a pattern that scans the
rest of the line from each of many starts). Used by the reader's linear-time tests
(:mod:`tests.domain.test_log_reader_linear`): the lines are what a hostile upload
would send, without anyone having to think of them.
"""

from __future__ import annotations

import re
from re import _constants as C  # noqa: N812
from re import _parser as P  # noqa: N812

_CATEGORY_CHARS = {
    C.CATEGORY_DIGIT: "7",
    C.CATEGORY_NOT_DIGIT: "x",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_SPACE: "x",
    C.CATEGORY_WORD: "a",
    C.CATEGORY_NOT_WORD: " ",
}
#: Variants kept per pattern position: enough for every alternative of a branch.
_WIDTH = 24
_FAIL = ("", "\x01", "x", "7", " ", ".", ":")


def _members(items) -> list[str]:
    """Characters a character set matches (one per member, in order)."""
    found = []
    for op, av in items:
        if op == C.LITERAL:
            found.append(chr(av))
        elif op == C.RANGE:
            found.append(chr(av[0]))
        elif op == C.CATEGORY:
            found.append(_CATEGORY_CHARS.get(av, "a"))
        elif op == C.NEGATE:
            return ["x", " ", "7"]
    return found or ["a"]


class _Walk:
    """Strings that follow a parsed pattern, with the ``target``-th unbounded
    repetition (in the order the walk meets them) as a run of ``run`` characters
    and every other one taken once (or not at all)."""

    def __init__(self, target: int, run: int):
        self.target, self.run, self.seen = target, run, 0

    def seq(self, seq) -> list[str]:
        out = [""]
        for op, av in seq:
            pieces = self.item(op, av)
            out = list(dict.fromkeys(o + p for o in out for p in pieces))
            if len(out) > _WIDTH:
                # An even sample: every alternative of a branch keeps a voice.
                step = len(out) / _WIDTH
                out = [out[int(i * step)] for i in range(_WIDTH)]
        return out

    def item(self, op, av) -> list[str]:
        if op == C.LITERAL:
            return [chr(av)]
        if op == C.NOT_LITERAL:
            return ["x" if av != ord("x") else "y"]
        if op == C.IN:
            return _members(av)[:3]
        if op == C.ANY:
            return ["a", " "]
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            low, high, sub = av
            index = self.seen
            self.seen += 1
            inner = self.seq(sub)[:4]
            if high == C.MAXREPEAT and index == self.target:
                return [
                    (piece or " ") * (self.run // max(len(piece), 1) or 1)
                    for piece in inner
                ]
            pieces = [piece * max(low, 1) for piece in inner]
            return pieces + ([""] if low == 0 else [])
        if op == C.SUBPATTERN:
            return self.seq(av[-1])
        if op == C.ATOMIC_GROUP:
            return self.seq(av)
        if op == C.BRANCH:
            return [s for branch in av[1] for s in self.seq(branch)[:4]]
        return [""]  # anchors, look-arounds, back references: nothing to add


def _walks(tree, run: int) -> list[str]:
    """One walk per unbounded repetition (each in turn the long run), and one
    with none long (the plain witness)."""
    probe = _Walk(-1, run)
    found = probe.seq(tree)
    for target in range(probe.seen):
        found += _Walk(target, run).seq(tree)
    return found


def shapes(pattern: re.Pattern, length: int) -> list[str]:
    """Hostile lines of at most ``length`` characters for ``pattern``."""
    tree = P.parse(pattern.pattern, pattern.flags)
    lines = []
    for witness in _walks(list(tree), length):
        for end in _FAIL:
            for cut in (len(witness), len(witness) - 1):
                lines.append((witness[: max(cut, 0)] + end)[:length])
    # Many starts: a short witness repeated along the line, then a failing end.
    for witness in _Walk(-1, 1).seq(list(tree))[:8]:
        if witness:
            for sep in ("", " "):
                lines.append(
                    ((witness + sep) * (length // (len(witness) + 1)))[:length]
                )
    return list(dict.fromkeys(line for line in lines if line))
