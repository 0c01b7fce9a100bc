"""Narrative against figures: an efficiency, speedup, GPU count or GPU-hour figure
written in the scalability narrative that the tables contradict.

Applicants write their narrative first and fill the tables later (or the other way
round), so "80-85 % efficiency at 32 GPUs" can stay in the text after the scaling
table projects 76-82 %. Each figure is read only where the sentence says what it is
(an efficiency with the word "efficiency" and a GPU count, a speedup with "x" or
"speedup", a GPU-hour figure with "total" or "request"), and compared only with a
figure the tables compute for the same thing; anything else is left alone, so a
sentence the reader cannot pin down never produces a warning.

What counts as agreeing: a range that overlaps the computed range (80-85 % against a
projected 76-82 %), a bound that holds ("over 70 %" when 76 % is reached), a GPU-hour
figure that is a part of the total ("Of the total, 12,288 GPU-hours are for
ablations", or the hours of one job type or one schedule period), and any figure in
a sentence about another or an earlier allocation ("our previous Playground
allocation of 2,000 GPU-hours").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .i18n import gettext
from .jobplan import JobPlan
from .numbers import grouped as figure
from .numbers import points as percent_points
from .scaling import Projection, ScalingAnalysis

# Rounding slack: a stated efficiency may be rounded to whole points, a speedup to
# one decimal, GPU-hours to the nearest few.
EFFICIENCY_POINTS = 2.0
SPEEDUP_RELATIVE = 0.05
HOURS_RELATIVE = 0.01

_NUM = r"\d{1,3}(?:[.,]\d+)?"
_PCT = re.compile(
    rf"(?P<lo>{_NUM})\s*%?\s*(?:-|–|—|to)\s*(?P<hi>{_NUM})\s*%|(?P<one>{_NUM})\s*%"
)
# A GPU count: "32 GPUs", "32 GCDs", or "at/on/with 32" (a bare number after one of
# those words, as in "88 % at 16").
_COUNT = re.compile(
    r"(?:(?:at|on|with|using|across|for)\s+)?(?P<n>\d{1,3}(?:,\d{3})*|\d+)"
    r"\s*(?P<word>GPUs?|GCDs?|A100s?|H100s?|MI250Xs?|accelerators)\b"
    r"|(?:at|on|with|using|across)\s+(?P<bare>\d+)\b(?!\s*(?:%|nodes?|h\b|hours?))",
    re.IGNORECASE,
)
# "at 32 GPUs" straight after a percentage (an efficiency word may sit between).
_AT_COUNT = re.compile(
    r"\s*(?:(?:parallel |scaling )?efficiency\s+)?(?:at|on|with|using|across)\s+"
    r"\d[\d,]*\s*(?:GPUs?|GCDs?)\b",
    re.IGNORECASE,
)
# The GPU count a percentage is about comes within a few words, with no other
# percentage in between.
_NEAR_COUNT = re.compile(
    r"[^%]{0,40}?\b(?:\d[\d,]*\s*(?:GPUs?|GCDs?)|(?:at|on)\s+\d+\b)", re.IGNORECASE
)
# Words before a percentage that make it something other than an efficiency.
_OTHER_BEFORE = re.compile(
    r"MFU|utili[sz]ation|overhead|communication|loading|memory|idle|share",
    re.IGNORECASE,
)
_SPEEDUP = re.compile(
    r"(?P<value>\d+(?:\.\d+)?)\s*(?:x|×|-fold|fold|times)(?![\w])", re.IGNORECASE
)
# Words that make the GPU count after a speedup its baseline ("3.5x over 4 GPUs").
_BASELINE = re.compile(
    r"\b(?:over|relative to|compared (?:to|with)|vs\.?|versus|than|against|from)\b",
    re.IGNORECASE,
)
_SPEED_WORD = re.compile(r"speed-?ups?|faster", re.IGNORECASE)
_EFFICIENCY_WORD = re.compile(r"efficien", re.IGNORECASE)
# A percentage that is about something else: MFU, utilisation, overhead, a share of
# time or of the budget.
_OTHER_PCT = re.compile(
    r"^\s*(?:of\s+(?:the\s+)?)?(?:MFU|model flops|utili[sz]ation|overhead|"
    r"communication|of (?:the )?(?:step|time|budget|allocation|hours))",
    re.IGNORECASE,
)
_MAX_GPUS = re.compile(
    r"(?:up to|at most|maximum(?: of)?|max\.?(?: of)?|no more than|largest job"
    r"(?: uses| of| on| runs on)?)\s+(?P<n>\d[\d,]*)\s*(?P<word>GPUs?|GCDs?)\b",
    re.IGNORECASE,
)
_PER_JOB = re.compile(
    r"(?P<n>\d[\d,]*)\s*(?P<word>GPUs?|GCDs?)\s+(?:per|each|a)\s+job", re.IGNORECASE
)
_JOB_WORD = re.compile(r"\bjobs?\b|\bruns?\b", re.IGNORECASE)
_TEST_WORD = re.compile(r"\btest|measur|benchmark|\bscaled\b", re.IGNORECASE)
_HOURS = re.compile(
    r"(?P<n>\d{1,3}(?:[,. \u00a0\u202f]\d{3})+|\d+(?:\.\d+)?)\s*(?P<k>k|K|thousand)?"
    r"\s*GPU[- ]?hours?\b",
    re.IGNORECASE,
)
_HOURS_CONTEXT = re.compile(
    r"\b(?:total|in all|overall|request|requesting|requested|ask|asking|apply|"
    r"applying|allocation|budget)\b",
    re.IGNORECASE,
)
# A bound before a figure: "over 70 %" says at least 70, "below 3x" at most 3.
_LOWER_BOUND = re.compile(
    r"(?:over|above|more than|greater than|at least|exceed(?:s|ing)?|beyond|"
    r"upwards of|no less than|>|≥|>=)\s*$",
    re.IGNORECASE,
)
_UPPER_BOUND = re.compile(
    r"(?:under|below|less than|at most|up to|no more than|within|<|≤|<=)\s*$",
    re.IGNORECASE,
)
# A GPU-hour figure that is a part of the total, not the total.
_PART_OF = re.compile(
    r"\bof (?:the|this|that|our|these|those) (?:total|request|allocation|budget|"
    r"hours|GPU[- ]?hours)\b|\bof which\b|\bof these\b|\bof them\b|\bincluding\b|"
    r"\b(?:is|are|go|goes|will go|will be) (?:used |spent |reserved |set aside )?"
    r"(?:for|to|on)\b|\breserved\b|\bset aside\b|\bdedicated\b|\bper (?:run|job)\b|"
    r"\beach\b",
    re.IGNORECASE,
)
# A sentence about another or an earlier allocation.
_OTHER_ALLOCATION = re.compile(
    r"\b(?:previous(?:ly)?|prior|earlier|past|former|last|another|other|preceding|"
    r"ongoing|existing|current(?:ly)?|was granted|were granted|granted us|received|"
    r"consumed|already used|have used|had used|used up)\b",
    re.IGNORECASE,
)
# A sentence about earlier work or another system: its efficiencies and speedups
# are not the tables' (which are this proposal's measurements).
_ELSEWHERE = re.compile(
    r"\b(?:previous(?:ly)?|prior|earlier|past|former|last year|"
    r"(?:another|other|a different) (?:system|cluster|machine|allocation|project|"
    r"model|code))\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\"“])|\n+")


@dataclass(frozen=True)
class Contradiction:
    """A figure of the narrative (``quote``, what it ``claims``) and what the tables
    compute for the same thing."""

    kind: str  # efficiency, speedup, gpus, gpu_hours
    quote: str
    claimed: str
    computed: str


def _float(text: str) -> float:
    return float(text.replace(",", "."))


def _pct(value: float) -> str:
    return percent_points(value, 0)


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a decimal point does not end one)."""
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


def _gpu_count(match: re.Match, gcds_per_gpu: int) -> int | None:
    raw = match.group("n") or match.group("bare")
    count = int(raw.replace(",", ""))
    word = (match.group("word") or "").lower()
    if word.startswith("gcd"):
        if gcds_per_gpu < 2 or count % gcds_per_gpu:
            return None
        count //= gcds_per_gpu
    return count or None


def _next_count(sentence: str, start: int, gcds_per_gpu: int) -> int | None:
    """The first GPU count after position ``start`` of ``sentence``."""
    match = _COUNT.search(sentence, start)
    return _gpu_count(match, gcds_per_gpu) if match else None


def _measured(analysis: ScalingAnalysis, gpus: int) -> list:
    return [p for p in analysis.points if p.gpus == gpus]


def _efficiencies(sentence, previous, analysis, projection, gcds_per_gpu):
    """Percentages the sentence calls an efficiency, or (after a sentence about
    efficiency) a percentage written straight before "at <N> GPUs"."""
    named = bool(_EFFICIENCY_WORD.search(sentence))
    if not named and not _EFFICIENCY_WORD.search(previous):
        return
    for match in _PCT.finditer(sentence):
        after = sentence[match.end() :]
        before = re.split(r"[,;:(]", sentence[: match.start()])[-1]
        if _OTHER_PCT.match(after) or (
            _OTHER_BEFORE.search(before) and not _EFFICIENCY_WORD.search(before)
        ):
            continue
        near = _NEAR_COUNT.match(after)
        if not near or (not named and not _AT_COUNT.match(after)):
            continue
        lo = _float(match.group("lo") or match.group("one"))
        hi = _float(match.group("hi") or match.group("one"))
        if not 0 < lo <= hi <= 100:
            continue
        gpus = _next_count(sentence, match.end(), gcds_per_gpu)
        if gpus is None:
            continue
        start, bound = _bound(sentence, match.start(), match.group("one"))
        if bound == "lower":
            hi = 100.0
        elif bound == "upper":
            lo = 0.0
        quote = sentence[start : match.end()].strip()
        points = _measured(analysis, gpus)
        if points:
            values = sorted(p.efficiency * 100 for p in points)
            if all(
                v < lo - EFFICIENCY_POINTS or v > hi + EFFICIENCY_POINTS for v in values
            ):
                shown = " / ".join(_pct(v) for v in values)
                yield Contradiction(
                    "efficiency",
                    f"{quote} at {gpus} GPUs",
                    f"{quote} at {gpus} GPUs",
                    gettext("{shown} measured at {gpus} GPUs").format(
                        shown=shown, gpus=gpus
                    ),
                )
        elif projection is not None and projection.target_gpus == gpus:
            low = projection.efficiency_low * 100
            high = projection.efficiency_high * 100
            # A claim agrees when its range overlaps the projected one.
            if hi < low - EFFICIENCY_POINTS or lo > high + EFFICIENCY_POINTS:
                yield Contradiction(
                    "efficiency",
                    f"{quote} at {gpus} GPUs",
                    f"{quote} at {gpus} GPUs",
                    gettext("{low}-{high} projected at {gpus} GPUs").format(
                        low=percent_points(round(low), 0),
                        high=percent_points(round(high), 0),
                        gpus=gpus,
                    ),
                )


def _bound(sentence: str, start: int, single) -> tuple[int, str]:
    """(where the quote starts, "lower" / "upper" / "") for a single figure at
    ``start`` written as a bound ("over 70 %", "below 3x")."""
    if not single:
        return start, ""
    before = sentence[:start]
    for kind, pattern in (("lower", _LOWER_BOUND), ("upper", _UPPER_BOUND)):
        found = pattern.search(before)
        if found:
            return found.start(), kind
    return start, ""


def _holds(claimed: float, bound: str, value: float, slack: float) -> bool:
    """A computed ``value`` is consistent with the claim (a bound, or equal)."""
    if bound == "lower":
        return value >= claimed - slack
    if bound == "upper":
        return value <= claimed + slack
    return abs(value - claimed) <= slack


def _speedups(sentence, analysis, projection, gcds_per_gpu):
    if not _SPEED_WORD.search(sentence) and "×" not in sentence:
        return
    for match in _SPEEDUP.finditer(sentence):
        claimed = float(match.group("value"))
        gpus = _next_count(sentence, match.end(), gcds_per_gpu)
        after = _COUNT.search(sentence, match.end())
        if after and _BASELINE.search(sentence[match.end() : after.start() + 1]):
            # "At 16 GPUs the speedup is 3.5x over 4 GPUs": 4 is the baseline, the
            # speedup is at the count before it; judged only against the tables'
            # own baseline (the smallest measured count).
            before = [m for m in _COUNT.finditer(sentence, 0, match.start())]
            baseline = gpus
            gpus = _gpu_count(before[-1], gcds_per_gpu) if before else None
            smallest = min((p.gpus for p in analysis.points), default=None)
            if baseline != smallest:
                continue
        if gpus is None or claimed <= 0:
            continue
        points = _measured(analysis, gpus)
        start, bound = _bound(sentence, match.start(), True)
        quote = sentence[start : match.end()].strip()
        if points:
            values = sorted(p.speedup for p in points)
            if not any(_holds(claimed, bound, v, SPEEDUP_RELATIVE * v) for v in values):
                shown = " / ".join(f"{figure(v, 2, trim=False)}x" for v in values)
                yield Contradiction(
                    "speedup",
                    f"{quote} at {gpus} GPUs",
                    f"{quote} at {gpus} GPUs",
                    gettext("{shown} measured at {gpus} GPUs").format(
                        shown=shown, gpus=gpus
                    ),
                )
        elif projection is not None and projection.target_gpus == gpus:
            ratio = gpus / projection.base_gpus
            low = projection.efficiency_low * ratio
            high = projection.efficiency_high * ratio
            slack = SPEEDUP_RELATIVE * high
            lo_claim = 0.0 if bound == "upper" else claimed
            hi_claim = float("inf") if bound == "lower" else claimed
            if hi_claim < low - slack or lo_claim > high + slack:
                yield Contradiction(
                    "speedup",
                    f"{quote} at {gpus} GPUs",
                    f"{quote} at {gpus} GPUs",
                    gettext(
                        "{low}-{high}x projected at {gpus} GPUs (from {base})"
                    ).format(
                        low=figure(low, 1, trim=False),
                        high=figure(high, 1, trim=False),
                        gpus=gpus,
                        base=projection.base_gpus,
                    ),
                )


def _gpu_counts(sentence, target_gpus, gcds_per_gpu):
    """ "Up to 64 GPUs" per job (in a sentence about jobs, not tests) must be the
    declared maximum; "128 GPUs per job" must not exceed it."""
    if not target_gpus:
        return
    about_jobs = _JOB_WORD.search(sentence) and not _TEST_WORD.search(sentence)
    for pattern, exact in ((_MAX_GPUS, True), (_PER_JOB, False)):
        if exact and not about_jobs:
            continue
        for match in pattern.finditer(sentence):
            count = int(match.group("n").replace(",", ""))
            if match.group("word").lower().startswith("gcd"):
                if gcds_per_gpu < 2 or count % gcds_per_gpu:
                    continue
                count //= gcds_per_gpu
            if count != target_gpus if exact else count > target_gpus:
                yield Contradiction(
                    "gpus",
                    match.group(0).strip(),
                    f"{count} GPUs per job",
                    gettext(
                        "{gpus} GPUs per job at most (AI Factory selection)"
                    ).format(gpus=target_gpus),
                )


def _hours_value(match: re.Match) -> float | None:
    raw = match.group("n")
    grouped = re.fullmatch(r"\d{1,3}(?:[,. \u00a0\u202f]\d{3})+", raw)
    value = float(re.sub(r"[,. \u00a0\u202f]", "", raw)) if grouped else float(raw)
    if match.group("k"):
        value *= 1000
    return value


def _gpu_hours(sentence, requested, plan, parts=()):
    """A GPU-hour figure written as the total must be the requested total (or the
    job plan's). Parts of the total and other allocations are left alone."""
    if not _HOURS_CONTEXT.search(sentence):
        return
    if _PART_OF.search(sentence) or _OTHER_ALLOCATION.search(sentence):
        return
    known = [v for v in (requested, plan.total_gpu_hours if plan.rows else None) if v]
    if not known:
        return
    parts = [row.gpu_hours for row in plan.rows] + list(parts)
    for match in _HOURS.finditer(sentence):
        value = _hours_value(match)
        if not value or any(abs(value - part) <= 0.5 for part in parts):
            continue
        if all(abs(value - v) > max(0.5, HOURS_RELATIVE * v) for v in known):
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
                "gpu_hours",
                match.group(0).strip(),
                f"{figure(value, 0)} GPU-hours",
                computed,
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
) -> list[Contradiction]:
    """Every figure of ``narrative`` that the computed figures contradict, in text
    order, each once (``schedule_hours``: the usage schedule's periods, parts of
    the total a text may name)."""
    found: list[Contradiction] = []
    previous = ""
    for sentence in sentences(narrative):
        measured: list[Contradiction] = []
        if not _ELSEWHERE.search(sentence):
            measured += _efficiencies(
                sentence, previous, analysis, projection, gcds_per_gpu
            )
            measured += _speedups(sentence, analysis, projection, gcds_per_gpu)
            # "Our previous allocation ran 64 GPUs per job" is not this request's.
            measured += _gpu_counts(sentence, target_gpus, gcds_per_gpu)
        for item in (
            *measured,
            *_gpu_hours(sentence, requested_gpu_hours, plan, schedule_hours),
        ):
            if item not in found:
                found.append(item)
        previous = sentence
    return found
