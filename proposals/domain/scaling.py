"""Scaling table and projection to the target GPU count.

Measurements are grouped per code entry. In each group the smallest measured GPU count
``n0`` is the base: ``speedup(n) = throughput(n) / throughput(n0)`` and
``efficiency(n) = speedup(n) / (n / n0)``. Unusable rows (GPU count or throughput not
positive) are left out of the table and reported by the findings, never raised.

The projection fits two models: Amdahl's law on the speedup (least squares over the
serial fraction ``f`` in [0, 1], a numpy grid search) and efficiency linear in log2
of the GPU count (least squares from the sums); the band between the two at the
target is what the wizard shows.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from .i18n import gettext
from .numbers import num
from .terms import ModeTerms, default_terms
from .tiers import INDUSTRIAL
from .types import Measurement

# Efficiencies are shown with 0 decimals: above this, the table would show > 100%.
SUPERLINEAR_EFFICIENCY = 1.005


@dataclass(frozen=True)
class ScalingPoint:
    """One usable measurement with its speedup and efficiency (a fraction)."""

    index: int  # position in scalability.measurements
    code: int | None
    gpus: int
    throughput: float
    unit: str
    speedup: float
    efficiency: float
    mfu_pct: float | None
    comm_overhead_pct: float | None


@dataclass(frozen=True)
class ScalingSeries:
    """The usable measurements of one code entry, sorted by GPU count."""

    code: int | None
    points: tuple[ScalingPoint, ...]
    units: tuple[str, ...]

    @property
    def distinct_gpus(self) -> tuple[int, ...]:
        """Distinct measured GPU counts, ascending."""
        return tuple(sorted({p.gpus for p in self.points}))


@dataclass(frozen=True)
class ScalingAnalysis:
    """All series, plus the measurement indices that could not be used."""

    series: tuple[ScalingSeries, ...]
    unusable: tuple[int, ...]
    unsorted: bool

    @property
    def points(self) -> tuple[ScalingPoint, ...]:
        """Every usable point, series after series."""
        return tuple(p for s in self.series for p in s.points)


@dataclass(frozen=True)
class Projection:
    """Both models evaluated at the target GPU count, and what the tier allows."""

    code: int | None
    target_gpus: int
    base_gpus: int
    largest_measured_gpus: int
    extrapolation_factor: float
    serial_fraction: float
    amdahl_speedup: float
    amdahl_efficiency: float
    log2_slope: float
    log2_intercept: float
    log2_efficiency: float
    efficiency_low: float
    efficiency_high: float
    extrapolation_allowed: bool
    # The log-linear fit falls below zero at the target (its ``log2_efficiency`` is
    # the raw fit); the band shows it as 0 %, since no efficiency is negative.
    log2_below_zero: bool = False

    @property
    def band_width(self) -> float:
        """Width of the efficiency band between the two models."""
        return self.efficiency_high - self.efficiency_low

    @property
    def needed(self) -> bool:
        """Whether the target lies above the largest measured GPU count: only then
        is anything projected (at or below it the measurements cover the target,
        and "0.25x beyond the data" would mean nothing)."""
        return self.target_gpus > self.largest_measured_gpus

    @property
    def not_needed_text(self) -> str:
        """What to say instead of a projection when none is needed ("" when one
        is), in the active language."""
        if self.needed:
            return ""
        if self.target_gpus < self.base_gpus:
            text = gettext(
                "No projection is needed: the largest job, {gpus} GPUs, is below "
                "the measured range ({base} to {measured} GPUs)."
            )
        else:
            text = gettext(
                "No projection is needed: the largest job, {gpus} GPUs, is within "
                "the measured range ({base} to {measured} GPUs)."
            )
        return text.format(
            gpus=num(self.target_gpus, 0),
            base=num(self.base_gpus, 0),
            measured=num(self.largest_measured_gpus, 0),
        )


def _usable(m: Measurement) -> bool:
    return (
        isinstance(m.gpus, int)
        and m.gpus > 0
        and math.isfinite(m.throughput)
        and m.throughput > 0
    )


def analyse(measurements: tuple[Measurement, ...]) -> ScalingAnalysis:
    """Group usable measurements per code entry and compute speedup and efficiency."""
    groups: dict[int | None, list[tuple[int, Measurement]]] = defaultdict(list)
    unusable = []
    for index, m in enumerate(measurements):
        if _usable(m):
            groups[m.code].append((index, m))
        else:
            unusable.append(index)
    series = []
    unsorted = False
    for code in sorted(groups, key=lambda c: (c is not None, c or 0)):
        rows = groups[code]
        counts = [m.gpus for _, m in rows]
        unsorted = unsorted or counts != sorted(counts)
        rows = sorted(rows, key=lambda row: (row[1].gpus, row[0]))
        n0, thr0 = rows[0][1].gpus, rows[0][1].throughput
        points = []
        for index, m in rows:
            speedup = m.throughput / thr0
            points.append(
                ScalingPoint(
                    index=index,
                    code=code,
                    gpus=m.gpus,
                    throughput=m.throughput,
                    unit=m.unit,
                    speedup=speedup,
                    efficiency=speedup / (m.gpus / n0),
                    mfu_pct=m.mfu_pct,
                    comm_overhead_pct=m.comm_overhead_pct,
                )
            )
        series.append(
            ScalingSeries(
                code=code,
                points=tuple(points),
                units=tuple(sorted({m.unit.strip() for _, m in rows})),
            )
        )
    return ScalingAnalysis(tuple(series), tuple(unusable), unsorted)


def amdahl_speedup(ratio, serial_fraction):
    """Amdahl's law: speedup at ``ratio`` times the base GPU count."""
    return 1.0 / (serial_fraction + (1.0 - serial_fraction) / ratio)


#: The positions of a grid's 201 points (``np.linspace`` computes its points from
#: these: ``low + k * step``, the last set to ``high``), made once.
_GRID = np.arange(201, dtype=float)


def fit_amdahl(ratios, speedups) -> float:
    """Least-squares serial fraction in [0, 1] for the measured speedups.

    A grid over [0, 1] followed by successively finer grids around the best value;
    deterministic and accurate to about 1e-10. Each grid is ``np.linspace(low,
    high, 201)`` computed as numpy does (the same points, so the same fit), from
    positions made once: the linspace calls were a third of a fit.
    """
    r = np.asarray(ratios, dtype=float)
    s = np.asarray(speedups, dtype=float)
    low, high, best = 0.0, 1.0, 0.0
    with np.errstate(over="ignore"):
        for _ in range(5):
            step = (high - low) / 200
            grid = _GRID * step
            grid += low
            grid[-1] = high
            column = grid[:, None]
            model = 1.0 / (column + (1.0 - column) / r)
            errors = ((model - s) ** 2).sum(axis=1)
            best = float(grid[int(errors.argmin())])
            low, high = max(0.0, best - step), min(1.0, best + step)
    return best


def least_squares_line(xs, ys) -> tuple[float, float]:
    """``(slope, intercept)`` of the least-squares line through the points (at least
    two distinct ``xs``): the line ``np.polyfit(xs, ys, 1)`` fits, computed from
    the sums (equal but for rounding in the last bits)."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    return slope, mean_y - slope * mean_x


def mode_terms(mode: ModeTerms | str | None) -> ModeTerms | None:
    """``mode`` itself, or the industrial mode of that name in the default terms."""
    if mode is None or isinstance(mode, ModeTerms):
        return mode
    return default_terms()[INDUSTRIAL].mode(mode)


def extrapolation_allowed(
    mode: ModeTerms | str | None, factor: float, band: float
) -> bool:
    """Whether the mode's terms accept a projection ``factor`` times beyond the data
    with a band of ``band`` between the models.

    With the guides' terms: Fast Lane at most 4x and 15 points; Large Scale no
    extrapolation (factor 1); Playground (or no mode): scaling data is not required.
    """
    terms = mode_terms(mode)
    if terms is None or not terms.scaling_data_required:
        return True
    limit = terms.max_extrapolation_factor
    if not terms.extrapolation_allowed:
        limit = 1.0
    if limit is not None and factor > limit:
        return False
    band_limit = terms.max_projection_band
    return band_limit is None or band <= band_limit + 1e-12


def projection_series(
    analysis: ScalingAnalysis, main_codes: tuple[int, ...] = ()
) -> ScalingSeries | None:
    """The series to project: a main code's if it has two GPU counts, else the
    series with the most distinct GPU counts (``None`` if none has two)."""
    candidates = [s for s in analysis.series if len(s.distinct_gpus) >= 2]
    if not candidates:
        return None
    main = [s for s in candidates if s.code in main_codes]
    pool = main or candidates
    return max(pool, key=lambda s: len(s.distinct_gpus))


def project(
    series: ScalingSeries | None,
    target: int | None,
    tier: ModeTerms | str | None,
) -> Projection | None:
    """Fit both models on ``series`` and evaluate them at ``target`` GPUs.

    Returns ``None`` without a positive target or without two distinct GPU counts.
    Repeated GPU counts are averaged before fitting. The fit depends on the series
    and the target only, and the same (frozen) inputs give the same fit, so it is
    kept: the wizard assesses on every keystroke and most keystrokes leave the
    measurements alone. Whether the tier accepts the extrapolation is decided at
    each call (the tier's terms carry their sources, a mapping: not a key).
    """
    try:
        fitted = _fit_kept(series, target)
    except TypeError:  # an input that cannot be a key (unhashable)
        fitted = _fit(series, target)
    return _for_tier(fitted, tier)


@functools.lru_cache(maxsize=512)
def _fit_kept(series, target) -> Projection | None:
    return _fit(series, target)


def _project(series, target, tier) -> Projection | None:
    """``project`` computed afresh (nothing kept)."""
    return _for_tier(_fit(series, target), tier)


def _for_tier(fitted: Projection | None, tier) -> Projection | None:
    """``fitted`` with whether ``tier`` accepts its extrapolation."""
    if fitted is None:
        return None
    allowed = bool(
        extrapolation_allowed(
            tier,
            fitted.extrapolation_factor,
            fitted.efficiency_high - fitted.efficiency_low,
        )
    )
    if allowed == fitted.extrapolation_allowed:
        return fitted
    return replace(fitted, extrapolation_allowed=allowed)


def _fit(series, target) -> Projection | None:
    """Both models fitted on ``series`` and evaluated at ``target`` GPUs (the
    projection as if the tier accepted any extrapolation)."""
    if series is None or not target or target <= 0:
        return None
    by_gpus: dict[int, list[float]] = defaultdict(list)
    for p in series.points:
        by_gpus[p.gpus].append(p.throughput)
    counts = sorted(by_gpus)
    if len(counts) < 2:
        return None
    # Plain floats (the same IEEE arithmetic as numpy's): a fit has a handful of
    # points, on which numpy's calls cost more than the sums; the grid search
    # stays numpy's. A lone measurement is its own mean.
    throughput = [
        float(v[0]) if len(v) == 1 else float(np.mean(v))
        for v in (by_gpus[n] for n in counts)
    ]
    n0 = float(counts[0])
    ratios = [n / n0 for n in counts]
    try:
        speedups = [t / throughput[0] for t in throughput]
    except (OverflowError, ZeroDivisionError):
        return None  # absurd magnitudes: reported by the findings, not fitted
    if not all(map(math.isfinite, speedups)):
        return None
    with np.errstate(all="ignore"):
        f = fit_amdahl(ratios, speedups)
    target_ratio = target / n0
    a_speedup = float(amdahl_speedup(target_ratio, f))
    a_eff = float(a_speedup / target_ratio)
    slope, intercept = least_squares_line(
        [math.log2(n) for n in counts],
        [s / r for s, r in zip(speedups, ratios, strict=True)],
    )
    l_eff = float(intercept + slope * math.log2(target))
    # A straight line in log2(GPUs) crosses zero far enough out; an efficiency does
    # not: the band is clamped at 0 and the projection says the fit went below.
    shown = max(0.0, l_eff)
    low, high = min(a_eff, shown), max(a_eff, shown)
    factor = target / float(counts[-1])
    return Projection(
        code=series.code,
        target_gpus=target,
        base_gpus=int(n0),
        largest_measured_gpus=counts[-1],
        extrapolation_factor=factor,
        serial_fraction=f,
        amdahl_speedup=a_speedup,
        amdahl_efficiency=a_eff,
        log2_slope=float(slope),
        log2_intercept=float(intercept),
        log2_efficiency=l_eff,
        efficiency_low=low,
        efficiency_high=high,
        extrapolation_allowed=True,
        log2_below_zero=l_eff < 0,
    )
