"""How long a call typically takes to answer, and how long a proposal has waited.

The typical response times are guidance, not rules: the project's specification
(SPEC.md, section 2, "Typical call terms") takes them second-hand from national
competence centre pages: Playground access within about 2 working days, Fast Lane
within about 4; Large Scale goes through technical and peer review with two cut-offs
a month, so it has no typical answer time here. This mapping is the one place these
figures live; when the call terms become data (one record per call), this module is
what reads them. Pure Python (numpy counts the working days).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import numpy as np

from .tiers import FAST_LANE, PLAYGROUND

TYPICAL_RESPONSE_WORKING_DAYS: dict[str, int] = {PLAYGROUND: 2, FAST_LANE: 4}
TYPICAL_RESPONSE_SOURCE = (
    "Typical call terms (second-hand, national competence centre pages): Playground "
    "about 2 working days, Fast Lane about 4."
)


def typical_response_days(tier: str | None) -> int | None:
    """The typical answer time of ``tier``'s call in working days, if it has one."""
    return TYPICAL_RESPONSE_WORKING_DAYS.get(tier or "")


def working_days_between(start: datetime.date, end: datetime.date) -> int:
    """Working days (Monday to Friday) from ``start`` to ``end``: the day a proposal
    was sent does not count, a full working day after it does. Never negative."""
    if end <= start:
        return 0
    day = datetime.timedelta(days=1)
    return int(np.busday_count(start + day, end + day))


@dataclass(frozen=True)
class Wait:
    """How long a proposal has waited against its call's typical answer time."""

    working_days: int
    typical: int | None

    @property
    def overdue(self) -> bool:
        return self.typical is not None and self.working_days > self.typical


def wait_for(*, sent: datetime.date, today: datetime.date, tier: str | None) -> Wait:
    return Wait(working_days_between(sent, today), typical_response_days(tier))
