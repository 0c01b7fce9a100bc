"""Narrative against figures: an efficiency, speedup, throughput, GPU count,
GPU-hour or duration figure written in the scalability narrative that the tables
contradict.

Applicants write their narrative first and fill the tables later (or the other way
round), so "80-85 % efficiency at 32 GPUs" can stay in the text after the scaling
table projects 76-82 %. Many write it in German, French, Italian or Spanish before
translating, so the claims are read in those languages too, in any common word
order: "92 % at 64 GPUs", "At 64 GPUs we reach 92 %", "Bei 64 GPUs erreichen wir
92 %", "Sur 64 GPU, l'efficacité est de 92 %", a speedup over a range of counts
("from 8 to 64 GPUs ... 7.5x", "von 8 auf 64 GPUs ... 7,5-fach").

How a sentence is read: every figure in it is found first (percentages, speedups,
throughputs with a unit, GPU counts, ranges of GPU counts, GPU-hours, months), then
each claim is paired with the GPU count it is about, and only when that pairing is
unambiguous:

- tightly, when only linking words stand between them ("92 % at 64 GPUs",
  "92 % Effizienz bei 64 GPUs"), or when a count introduced by a preposition heads
  the clause and the claim is the next figure ("At 64 GPUs we reach 92 %");
- otherwise only when the sentence has exactly one claim and one GPU count (or one
  range of counts) left.

A claim that two counts could own, or a sentence with several claims and counts in
no clear order, is left alone. Each figure is then compared only with a figure the
tables compute for the same thing; what counts as agreeing: a range that overlaps
the computed range (80-85 % against a projected 76-82 %), a bound that holds ("over
70 %" when 76 % is reached), a number that reads right in either of its readings
("1,200" is 1200 in English and 1.2 in German), a GPU-hour figure that is a part of
the total ("Of the total, 12,288 GPU-hours are for ablations", or the hours of one
job type or one schedule period), and any figure in a sentence about another or an
earlier allocation ("our previous Playground allocation of 2,000 GPU-hours").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from . import narrative_reading as nr
from . import narrative_words as w
from .i18n import gettext
from .jobplan import JobPlan
from .narrative_reading import readings, sentences
from .numbers import grouped as figure
from .numbers import points as percent_points
from .scaling import Projection, ScalingAnalysis, ScalingPoint
from .units import read_unit

# Rounding slack: a stated efficiency may be rounded to whole points, a speedup to
# one decimal, a throughput to two figures ("4.2k"), GPU-hours to the nearest few.
EFFICIENCY_POINTS = 2.0
SPEEDUP_RELATIVE = 0.05
THROUGHPUT_RELATIVE = 0.05
HOURS_RELATIVE = 0.01


@dataclass(frozen=True)
class Contradiction:
    """A figure of the narrative (``quote``, what it ``claims``) and what the tables
    compute for the same thing."""

    kind: str  # efficiency, speedup, throughput, gpus, gpu_hours, duration
    quote: str
    claimed: str
    computed: str


# ------------------------------------------------------------------ judging


def _bound(sentence: str, item: nr.Figure) -> tuple[int, str]:
    """(where the quote starts, "lower" / "upper" / "") for a single figure written
    as a bound ("over 70 %", "below 3x", "über 70 %", "plus de 70 %")."""
    if len(item.lo) != len(item.hi) or item.lo != item.hi:
        return item.start, ""
    before = sentence[max(0, item.start - 30) : item.start]
    offset = item.start - len(before)
    for kind, pattern in (("lower", w.LOWER_BOUND), ("upper", w.UPPER_BOUND)):
        found = pattern.search(before)
        if found:
            return offset + found.start(), kind
    return item.start, ""


def _measured(analysis: ScalingAnalysis, gpus: int, base: int | None):
    """(speedup, efficiency, throughput, unit) of every series that measured
    ``gpus`` (and ``base``, when given; else its own smallest count)."""
    out: list[tuple[float | None, float | None, float, str]] = []
    for series in analysis.series:
        if len(series.units) > 1 or not series.points:
            continue
        start = base if base is not None else series.points[0].gpus
        at = [p for p in series.points if p.gpus == gpus]
        ref: list[ScalingPoint | None] = [p for p in series.points if p.gpus == start]
        for p in at:
            for r in ref or [None]:
                if r is None:
                    out.append((None, None, p.throughput, p.unit))
                    continue
                speedup = p.throughput / r.throughput
                out.append((speedup, speedup / (gpus / start), p.throughput, p.unit))
    return out


def _range_holds(lo, hi, bound, low, high, slack) -> bool:
    """A claim [lo, hi] (or a bound) agrees with a computed [low, high]."""
    if bound == "lower":
        hi = float("inf")
    elif bound == "upper":
        lo = 0.0
    return not (hi < low - slack or lo > high + slack)


def _judge(
    sentence,
    claim: nr.Figure,
    count: nr.Figure,
    *,
    named,
    baselines,
    analysis,
    projection,
):
    """The contradiction of one (claim, count) pair, or ``None``: the claim agrees,
    or nothing was computed for that count (and baseline)."""
    gpus, base = count.gpus, count.base
    assert gpus is not None  # a count always has its GPUs (narrative_reading.figures)
    if claim.kind == "speedup" and base is None:
        if len(baselines) == 1:
            base = baselines[0].gpus
        elif baselines:
            return None
    start, bound = _bound(sentence, claim)
    # The claim as written and the count it is about, in one phrase.
    claimed = sentence[start : claim.end].strip()
    if count.kind == "range":
        quote = gettext("{claim} from {base} to {gpus} GPUs").format(
            claim=claimed, base=base, gpus=gpus
        )
    else:
        quote = gettext("{claim} at {gpus} GPUs").format(claim=claimed, gpus=gpus)
    measured = _measured(analysis, gpus, base)
    if claim.kind == "throughput":
        return _judge_throughput(claim, gpus, measured, quote)
    if claim.kind == "pct" and not named:
        return None
    values = [
        (e * 100 if claim.kind == "pct" else s)
        for s, e, _, _ in measured
        if s is not None
    ]
    if measured and not values:
        return None  # measured at the count, not at the baseline: no judgement
    if values:
        return _judge_measured(claim, count, base, values, bound, quote)
    return _judge_projected(claim, gpus, base, bound, quote, projection)


def _judge_measured(claim: nr.Figure, count: nr.Figure, base, values, bound, quote):
    """A claim judged against the speedups or efficiencies measured at its count
    (``values``): ``None`` when one of them agrees, within the slack."""
    gpus, is_eff = count.gpus, claim.kind == "pct"
    for lo in claim.lo:
        for hi in claim.hi:
            if lo > hi:
                continue
            for v in values:
                slack = EFFICIENCY_POINTS if is_eff else SPEEDUP_RELATIVE * v
                if _range_holds(lo, hi, bound, v, v, slack):
                    return None
    if is_eff and not all(0 < lo <= 100 for lo in claim.lo):
        return None
    if is_eff:
        shown = " / ".join(percent_points(v, 0) for v in sorted(values))
    else:
        shown = " / ".join(f"{figure(v, 2, trim=False)}x" for v in sorted(values))
    if (
        base is not None
        and count.kind == "range"
        or (base is not None and claim.kind == "speedup")
    ):
        computed = gettext("{shown} measured from {base} to {gpus} GPUs").format(
            shown=shown, base=base, gpus=gpus
        )
    else:
        computed = gettext("{shown} measured at {gpus} GPUs").format(
            shown=shown, gpus=gpus
        )
    return Contradiction(
        claim.kind if not is_eff else "efficiency", quote, quote, computed
    )


def _judge_projected(claim: nr.Figure, gpus, base, bound, quote, projection):
    """A claim about the target GPU count judged against the projection (``None``
    when it agrees, or when the projection is not about that count and baseline)."""
    is_eff = claim.kind == "pct"
    if projection is None or projection.target_gpus != gpus:
        return None
    if base is not None and base != projection.base_gpus:
        return None
    if is_eff:
        low, high = projection.efficiency_low * 100, projection.efficiency_high * 100
        slack = EFFICIENCY_POINTS
    else:
        ratio = gpus / projection.base_gpus
        low = projection.efficiency_low * ratio
        high = projection.efficiency_high * ratio
        slack = SPEEDUP_RELATIVE * high
    for lo in claim.lo:
        for hi in claim.hi:
            if lo <= hi and _range_holds(lo, hi, bound, low, high, slack):
                return None
    if is_eff:
        if not any(0 < lo <= 100 for lo in claim.lo):
            return None
        computed = gettext("{low}-{high} projected at {gpus} GPUs").format(
            low=percent_points(round(low), 0),
            high=percent_points(round(high), 0),
            gpus=gpus,
        )
        return Contradiction("efficiency", quote, quote, computed)
    computed = gettext("{low}-{high}x projected at {gpus} GPUs (from {base})").format(
        low=figure(low, 1, trim=False),
        high=figure(high, 1, trim=False),
        gpus=gpus,
        base=projection.base_gpus,
    )
    return Contradiction("speedup", quote, quote, computed)


def _judge_throughput(claim: nr.Figure, gpus: int, measured, quote):
    """A throughput at a count against the measurement at that count, in the same
    canonical unit; a figure per GPU may be compared with the total over the GPUs,
    and a total with one GPU's times the GPUs, when the two units differ in that."""
    candidates = []
    for _, _, throughput, unit in measured:
        reading = read_unit(unit)
        if reading.canonical != claim.unit:
            continue
        candidates.append(throughput)
        if reading.per_gpu != claim.per_gpu:
            candidates += [throughput / gpus, throughput * gpus]
    if not candidates:
        return None
    if any(abs(v - c) <= THROUGHPUT_RELATIVE * c for v in claim.lo for c in candidates):
        return None
    shown = " / ".join(
        f"{figure(t, 0)} {u}"
        for _, _, t, u in measured
        if read_unit(u).canonical == claim.unit
    )
    return Contradiction(
        "throughput",
        quote,
        quote,
        gettext("{shown} measured at {gpus} GPUs").format(shown=shown, gpus=gpus),
    )


@dataclass(frozen=True)
class Reading:
    """What ``sentence`` says, whatever the tables hold: its (claim, count) pairs,
    each with whether only linking words stand between them (``tight``), its
    baseline counts, and whether it names an efficiency and a speedup. Never
    changed once read (:func:`reading` shares it)."""

    pairs: tuple[tuple[nr.Figure, nr.Figure, bool], ...]
    baselines: tuple[nr.Figure, ...]
    named: bool
    speed: bool


@lru_cache(maxsize=512)
def reading(sentence: str, gcds_per_gpu: int) -> Reading:
    """``sentence`` read (a function of its text and the GCDs per GPU alone): read
    once per sentence, not at every autosave of the proposal."""
    items = nr.figures(sentence, gcds_per_gpu)
    pairs = tuple(
        (
            claim,
            count,
            count.start > claim.end and nr.gap_links(sentence[claim.end : count.start]),
        )
        for claim, count in nr.pairs(sentence, items)
    )
    return Reading(
        pairs,
        tuple(i for i in items if i.counts and i.baseline),
        bool(w.EFFICIENCY_WORD.search(sentence)),
        bool(w.SPEED_WORD.search(sentence)) or "×" in sentence,
    )


def _claims(sentence, previous, analysis, projection, gcds_per_gpu):
    """Efficiency, speedup and throughput claims of ``sentence`` that the tables
    contradict (an efficiency needs an efficiency word in the sentence, or in the
    one before it when the claim is written straight before its count)."""
    read = reading(sentence, gcds_per_gpu)
    named_before = bool(w.EFFICIENCY_WORD.search(previous))
    baselines = list(read.baselines)
    for claim, count, tight in read.pairs:
        if claim.kind == "speedup" and not read.speed:
            continue
        found = _judge(
            sentence,
            claim,
            count,
            named=read.named or (named_before and tight),
            baselines=baselines,
            analysis=analysis,
            projection=projection,
        )
        if found:
            yield found


@dataclass(frozen=True)
class Scan:
    """What a sentence says of GPU counts per job, GPU-hours and the duration, read
    from its text alone (:func:`scan`); the figures it is judged against come at
    each assessment."""

    #: About another or an earlier allocation or system: no claim of it is judged.
    elsewhere: bool
    #: ``(exact, count, quote)``: "up to 64 GPUs" per job (``exact``: must be the
    #: declared maximum) or "128 GPUs per job" (must not exceed it).
    gpu_counts: tuple[tuple[bool, int, str], ...]
    #: ``(values, quote)`` of each GPU-hour figure written as the total (none in a
    #: sentence about a part of it or another allocation).
    hours: tuple[tuple[tuple[float, ...], str], ...]
    #: ``(months, quote)`` of the allocation's duration, when the sentence gives one.
    months: tuple[int, str] | None


@lru_cache(maxsize=512)
def scan(sentence: str, gcds_per_gpu: int) -> Scan:
    """``sentence`` read for :func:`contradictions` (a function of its text and the
    GCDs per GPU alone): the narrative's regular expressions run once per sentence,
    not at every assessment (a measurement typed in reassesses the narrative)."""
    return Scan(
        bool(w.ELSEWHERE.search(sentence)),
        tuple(_gpu_counts(sentence, gcds_per_gpu)),
        tuple(_gpu_hours(sentence)),
        _months(sentence),
    )


def _gpu_counts(sentence, gcds_per_gpu):
    """The GPU counts per job ``sentence`` gives: "up to 64 GPUs" in a sentence
    about jobs, not tests (``exact``), and "128 GPUs per job"."""
    about_jobs = w.JOB_WORD.search(sentence) and not w.TEST_WORD.search(sentence)
    for pattern, exact in ((w.MAX_GPUS, True), (w.PER_JOB, False)):
        if exact and not about_jobs:
            continue
        for match in pattern.finditer(sentence):
            count = nr.gpu_count(match.group("n"), match.group("word"), gcds_per_gpu)
            if count is not None:
                yield exact, count, match.group(0).strip()


def _gpus_contradicted(found: Scan, target_gpus):
    """ "Up to 64 GPUs" per job must be the declared maximum; "128 GPUs per job"
    must not exceed it."""
    if not target_gpus:
        return
    for exact, count, quote in found.gpu_counts:
        if count != target_gpus if exact else count > target_gpus:
            yield Contradiction(
                "gpus",
                quote,
                f"{count} GPUs per job",
                gettext("{gpus} GPUs per job at most (AI Factory selection)").format(
                    gpus=target_gpus
                ),
            )


def _hours_values(match: re.Match) -> tuple[float, ...]:
    factor = 1000 if match.group("k") else 1
    return tuple(v * factor for v in readings(match.group("n")))


def _gpu_hours(sentence):
    """The GPU-hour figures written as the total; parts of the total and other
    allocations are left alone."""
    if not w.HOURS_CONTEXT.search(sentence):
        return
    if w.PART_OF.search(sentence) or w.OTHER_ALLOCATION.search(sentence):
        return
    for match in w.HOURS.finditer(sentence):
        values = tuple(v for v in _hours_values(match) if v)
        if values:
            yield values, match.group(0).strip()


def _hours_contradicted(found: Scan, requested, plan, parts=()):
    """A GPU-hour figure written as the total must be the requested total (or the
    job plan's); one that is a part of it (a job type's, a schedule period's
    hours) is left alone."""
    if not found.hours:
        return
    known = [v for v in (requested, plan.total_gpu_hours if plan.rows else None) if v]
    if not known:
        return
    parts = [row.gpu_hours for row in plan.rows] + list(parts)
    for values, quote in found.hours:
        if any(abs(v - p) <= 0.5 for v in values for p in parts):
            continue
        if all(
            abs(v - k) > max(0.5, HOURS_RELATIVE * k) for v in values for k in known
        ):
            computed = (
                gettext("{hours} GPU-hours requested").format(
                    hours=figure(requested, 0)
                )
                if requested
                else ""
            )
            if plan.rows:
                computed += ("; " if computed else "") + gettext(
                    "{hours} in the job plan"
                ).format(hours=figure(plan.total_gpu_hours, 0))
            yield Contradiction(
                "gpu_hours", quote, f"{figure(values[0], 0)} GPU-hours", computed
            )


def _months(sentence) -> tuple[int, str] | None:
    """ "A 6-month allocation", "Laufzeit von 12 Monaten", "une durée de 6 mois":
    the allocation's duration. Phases, bounds and other allocations are left alone;
    so is a sentence with two month figures."""
    if not w.DURATION_CONTEXT.search(sentence):
        return None
    if w.DURATION_NOT.search(sentence) or w.OTHER_ALLOCATION.search(sentence):
        return None
    found = list(w.MONTHS.finditer(sentence))
    if len(found) != 1:
        return None
    (match,) = found
    return int(match["n"]), match.group(0).strip()


def _duration_contradicted(found: Scan, months) -> Iterator[Contradiction]:
    """The allocation's duration must be the declared one."""
    if not months or found.months is None:
        return
    value, quote = found.months
    if value and value != months:
        yield Contradiction(
            "duration",
            quote,
            quote,
            gettext("a duration of {months} months (AI Factory selection)").format(
                months=months
            ),
        )


def contradictions(
    narrative: str,
    *,
    analysis: ScalingAnalysis,
    projection: Projection | None,
    plan: JobPlan,
    requested_gpu_hours: float | None,
    target_gpus: int | None,
    gcds_per_gpu: int = 1,
    schedule_hours: tuple[float, ...] = (),
    duration_months: int | None = None,
) -> list[Contradiction]:
    """Every figure of ``narrative`` that the computed figures contradict, in text
    order, each once (``schedule_hours``: the usage schedule's periods, parts of
    the total a text may name)."""
    found: list[Contradiction] = []
    previous = ""
    for sentence in sentences(narrative):
        found_in = scan(sentence, gcds_per_gpu)
        measured: list[Contradiction] = []
        if not found_in.elsewhere:
            measured += _claims(sentence, previous, analysis, projection, gcds_per_gpu)
            # "Our previous allocation ran 64 GPUs per job" is not this request's.
            measured += _gpus_contradicted(found_in, target_gpus)
        for item in (
            *measured,
            *_hours_contradicted(found_in, requested_gpu_hours, plan, schedule_hours),
            *_duration_contradicted(found_in, duration_months),
        ):
            if item not in found:
                found.append(item)
        previous = sentence
    return found
