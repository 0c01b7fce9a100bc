"""Reading a sentence of the scalability narrative: every figure in it
(percentages, speedups, throughputs, GPU counts and ranges of counts, GPU-hours) and
which claim is about which GPU count, only where the sentence says so unambiguously.
:mod:`.narrative_figures` judges the pairs against the tables."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import narrative_words as w
from .units import read_unit


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a decimal point does not end one)."""
    return [s.strip() for s in w.SENTENCE.split(text or "") if s.strip()]


def readings(text: str) -> tuple[float, ...]:
    """Every value a written number can mean: "18,176" is 18176; "1,200" is 1200
    in English and 1.2 in German; "7,5" is 7.5; "18 176" is 18176."""
    text = text.replace("\u00a0", " ").replace("\u202f", " ")
    if " " in text:
        whole, _, rest = text.partition(" ")
        text = text.replace(" ", "")
        head = re.fullmatch(r"(\d+)(?:[.,](\d+))?", text)
        return (float(f"{head[1]}.{head[2]}" if head[2] else head[1]),) if head else ()
    seps = [c for c in text if c in ".,"]
    if not seps:
        return (float(text),)
    if len(seps) == 1:
        whole, frac = re.split(r"[.,]", text)
        decimal = float(f"{whole}.{frac}")
        if len(frac) == 3:
            return (float(whole + frac), decimal)
        return (decimal,)
    group, last = seps[0], seps[-1]
    if all(c == group for c in seps):
        return (float(text.replace(group, "")),)
    # "1,200.5" or "1.200,5": the last separator is the decimal one.
    whole, _, frac = text.rpartition(last)
    return (float(whole.replace(group, "") + "." + frac),)


@dataclass
class Figure:
    kind: str  # pct, other_pct, speedup, throughput, count, range
    start: int
    end: int
    text: str
    lo: tuple[float, ...] = ()
    hi: tuple[float, ...] = ()
    gpus: int | None = None
    base: int | None = None
    unit: str = ""
    per_gpu: bool = False
    baseline: bool = False
    paired: list = field(default_factory=list)

    @property
    def claim(self) -> bool:
        return self.kind in ("pct", "speedup", "throughput")

    @property
    def counts(self) -> bool:
        return self.kind in ("count", "range")


def gpu_count(raw: str, word: str, gcds_per_gpu: int) -> int | None:
    values = [v for v in readings(raw) if v == int(v)]
    if not values:
        return None
    count = int(max(values))
    if word.lower().startswith("gcd"):
        if gcds_per_gpu < 2 or count % gcds_per_gpu:
            return None
        count //= gcds_per_gpu
    return count or None


def _overlaps(a: Figure, items: list[Figure]) -> bool:
    return any(a.start < b.end and b.start < a.end for b in items)


def figures(sentence: str, gcds_per_gpu: int) -> list[Figure]:
    """Every figure of ``sentence``, in text order (a figure inside another, such
    as the "64 GPUs" of "from 8 to 64 GPUs", only once)."""
    found: list[Figure] = []

    def add(item: Figure) -> None:
        if not _overlaps(item, found):
            found.append(item)

    for m in w.RANGE.finditer(sentence):
        base = gpu_count(m["base"], m["word"], gcds_per_gpu)
        to = gpu_count(m["to"], m["word"], gcds_per_gpu)
        if base and to and base < to:
            add(Figure("range", m.start(), m.end(), m[0], gpus=to, base=base))
    for m in w.HOURS.finditer(sentence):
        add(Figure("hours", m.start(), m.end(), m[0]))
    for m in w.THROUGHPUT.finditer(sentence):
        unit = read_unit(m["unit"])
        if not unit.canonical:
            continue
        factor = {"k": 1e3, "m": 1e6, "mio": 1e6, "mio.": 1e6}.get(
            (m["k"] or "").lower(), 1e6 if m["k"] else 1.0
        )
        values = tuple(v * factor for v in readings(m["n"]))
        add(
            Figure(
                "throughput",
                m.start(),
                m.end(),
                m[0],
                lo=values,
                unit=unit.canonical,
                per_gpu=unit.per_gpu,
            )
        )
    for m in w.PCT.finditer(sentence):
        lo = m["blo"] or m["lo"] or m["one"]
        hi = m["bhi"] or m["hi"] or m["one"]
        kind = "pct"
        after = sentence[m.end() : m.end() + 40]
        clause = re.split(r"[,;:(]", sentence[max(0, m.start() - 60) : m.start()])[-1]
        if w.OTHER_AFTER.match(after) or (
            w.OTHER_BEFORE.search(clause) and not w.EFFICIENCY_WORD.search(clause)
        ):
            kind = "other_pct"
        add(Figure(kind, m.start(), m.end(), m[0], lo=readings(lo), hi=readings(hi)))
    for m in w.SPEEDUP.finditer(sentence):
        value = readings(m["value"] or m["fvalue"])
        add(Figure("speedup", m.start(), m.end(), m[0], lo=value, hi=value))
    for m in w.COUNT.finditer(sentence):
        gpus = gpu_count(m["n"], m["word"], gcds_per_gpu)
        item = Figure("count", m.start(), m.end(), m[0], gpus=gpus)
        item.baseline = bool(
            w.BASELINE.search(sentence[max(0, m.start() - 30) : m.start()])
        )
        if gpus:
            add(item)
    for m in w.BARE.finditer(sentence):
        start = m.start("n")
        item = Figure("count", start, m.end(), m["n"], gpus=int(m["n"]) or None)
        if item.gpus:
            add(item)
    return sorted(found, key=lambda item: item.start)


def gap_links(gap: str) -> bool:
    """Only linking words (and efficiency or speed words) between two figures."""
    if len(gap) > 40 or re.search(r"\d|%", gap):
        return False
    return all(
        word in w.LINK_WORDS
        or w.EFFICIENCY_WORD.search(word)
        or w.SPEED_WORD.search(word)
        for word in w.WORD.findall(gap.lower())
    )


def _head_of_clause(sentence: str, count: Figure) -> bool:
    """The count is introduced by a preposition ("At 64 GPUs", "Bei 64 GPUs")."""
    if count.kind == "range":
        return True
    words = w.WORD.findall(sentence[max(0, count.start - 20) : count.start].lower())
    return bool(words) and words[-1] in w.HEAD_PREPOSITIONS


def pairs(sentence: str, items: list[Figure]) -> list[tuple[Figure, Figure]]:
    """(claim, count) pairs the sentence states unambiguously."""
    counts = [i for i in items if i.counts and not i.baseline]
    # Written claim first ("92 % at 64 GPUs"): only linking words between.
    owned: set[int] = set()
    for claim, nxt in zip(items, items[1:], strict=False):
        if (
            claim.claim
            and nxt.counts
            and not nxt.baseline
            and gap_links(sentence[claim.end : nxt.start])
        ):
            claim.paired.append(nxt)
            owned.add(id(nxt))
    # Written count first ("At 64 GPUs we reach 92 %"): a count that heads its
    # clause and is not already the count of the claim before it.
    for prev, claim in zip(items, items[1:], strict=False):
        if (
            claim.claim
            and prev.counts
            and not prev.baseline
            and id(prev) not in owned
            and len(sentence[prev.end : claim.start]) <= 80
            and _head_of_clause(sentence, prev)
        ):
            claim.paired.append(prev)
    pairs = []
    used: set[int] = set()
    for item in items:
        if not item.claim or not item.paired:
            continue
        owners = {id(c) for c in item.paired}
        targets = {(c.gpus, c.base) for c in item.paired}
        if len(targets) == 1:
            pairs.append((item, item.paired[0]))
            used |= owners
        else:
            used |= {id(item)} | owners  # two counts could own it: left alone
    free_claims = [i for i in items if i.claim and not i.paired and id(i) not in used]
    free_counts = [c for c in counts if id(c) not in used]
    claimed = [i for i in items if i.kind in ("pct", "speedup", "throughput")]
    if len(free_claims) == 1 and len(free_counts) == 1 and len(claimed) >= 1:
        pairs.append((free_claims[0], free_counts[0]))
    return pairs
