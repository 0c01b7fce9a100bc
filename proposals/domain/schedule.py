"""Usage schedule: GPU-hours per month range, checked against total and duration."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .types import UsagePeriod

# Rounding slack when comparing GPU-hour sums.
HOURS_TOLERANCE = 0.5


@dataclass(frozen=True)
class ScheduleSummary:
    """Sum of the schedule, its last month, and whether both fit the request.

    ``matches_total``/``within_duration`` are ``None`` when there is nothing to
    compare with (no rows, or no total / duration entered).
    """

    total_gpu_hours: float
    last_month: int | None
    matches_total: bool | None
    within_duration: bool | None
    rows: tuple[UsagePeriod, ...]


def hours_match(a: float, b: float) -> bool:
    """Whether two GPU-hour figures agree up to rounding."""
    return abs(a - b) <= HOURS_TOLERANCE


def summarise(
    rows: tuple[UsagePeriod, ...],
    total_gpu_hours: float | None,
    duration_months: int | None,
) -> ScheduleSummary:
    """Sum the rows and compare with the requested total and the duration."""
    total = math.fsum(row.gpu_hours for row in rows)
    last = max((max(row.from_month, row.to_month) for row in rows), default=None)
    matches = None
    within = None
    if rows and total_gpu_hours is not None:
        matches = hours_match(total, total_gpu_hours)
    if last is not None and duration_months is not None:  # last: None without rows
        within = last <= duration_months
    return ScheduleSummary(total, last, matches, within, tuple(rows))
