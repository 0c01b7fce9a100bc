"""How long a call typically takes to answer, and how long a proposal has waited.

The desk's target answer time of each call mode is data: the call terms'
``target_working_days`` with its recorded source (Playground about 2 working days,
Fast Lane about 4, the calls' typical access times). A mode without one (Large Scale,
with technical and peer review and two cut-offs a month; AI for Science, with peer
review) has an explicit "none" with its recorded reason, which the queue shows.
Working days skip weekends, the public holidays of a calendar (the ``holidays``
library, for the country and subdivision the settings or the staff member name) and
the desk's own closure days. Pure Python (numpy counts the working days).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import lru_cache

import holidays as holiday_calendars
import numpy as np

from .i18n import gettext
from .terms import CallTerms, FamilyTerms, ModeTerms, terms_text
from .tiers import TIER_LABELS

DAY = datetime.timedelta(days=1)


@dataclass(frozen=True)
class ResponseTime:
    """A call mode's typical answer time in working days (``None``: the call has
    none) and where that comes from, or why there is none."""

    working_days: int | None
    source: str

    @property
    def label(self) -> str:
        if self.working_days is None:
            return gettext("none")
        return gettext("about {days}").format(days=self.working_days)


def _mode(family: FamilyTerms, tier: str | None) -> ModeTerms | None:
    if not family.tiered:
        return family.modes[0] if family.modes else None
    return family.mode(tier) if tier else None


def response_time(terms: CallTerms, family: str, tier: str | None) -> ResponseTime:
    """The desk's target answer time of ``family``'s mode ``tier`` (the single mode
    of a family without tiers): its ``target_working_days`` with the source
    recorded for it, or "none" with the reason recorded (else the call's review
    procedure)."""
    call = terms.get(family)
    if call is None:
        return ResponseTime(None, gettext("Unknown call: no typical answer time."))
    mode = _mode(call, tier)
    if mode is None:
        return ResponseTime(None, gettext("No tier yet, so no typical answer time."))
    source = mode.source("target_working_days")
    if mode.target_working_days is None:
        if source:
            return ResponseTime(
                None, gettext("No target: {why}").format(why=source.source)
            )
        return ResponseTime(
            None,
            gettext("The call publishes no typical answer time ({review}).").format(
                review=terms_text(mode.review)
            )
            if mode.review
            else gettext("The call publishes no typical answer time."),
        )
    where = source.source if source else gettext("the call terms (no source recorded)")
    return ResponseTime(
        mode.target_working_days, gettext("Source: {where}.").format(where=where)
    )


def every_response_time(terms: CallTerms) -> list[tuple[str, ResponseTime]]:
    """``(call mode as people name it, its response time)`` for every mode of
    every call, in the terms' order: what the queue lists under its filters."""
    return [
        (
            f"{family.label}: {TIER_LABELS.get(mode.slug, mode.slug)}"
            if family.tiered
            else family.label,
            response_time(terms, family.slug, mode.slug),
        )
        for family in terms.values()
        for mode in family.modes
    ]


def typical_days_by_mode(terms: CallTerms) -> dict[tuple[str, str], int]:
    """``{(family, tier): working days}`` for every mode that has a target answer
    time; the tier is blank for a family without tiers."""
    return {
        (family.slug, mode.slug if family.tiered else ""): mode.target_working_days
        for family in terms.values()
        for mode in family.modes
        if mode.target_working_days is not None
    }


def holiday_calendar(code: str) -> tuple[str, str | None]:
    """A desk's calendar as settings name it: an ISO 3166 country with an optional
    ISO 3166-2 subdivision (``FI``, ``ES-CT`` for Catalonia, ``DE-BY`` for
    Bavaria), as (country, subdivision or ``None``)."""
    country, _, subdivision = code.strip().upper().partition("-")
    return country, subdivision or None


def calendar_problem(code: str) -> str | None:
    """Why ``code`` names no holiday calendar the ``holidays`` library has (``None``
    when it does, or for a blank code: weekends only)."""
    if not code.strip():
        return None
    country, subdivision = holiday_calendar(code)
    supported = holiday_calendars.list_supported_countries()
    if country not in supported:
        return f"{code!r}: no public-holiday calendar for a country {country!r}"
    if subdivision is not None and subdivision not in supported[country]:
        known = ", ".join(supported[country]) or "none"
        return (
            f"{code!r}: {country} has no subdivision {subdivision!r} in the holiday "
            f"calendars (its subdivisions: {known})"
        )
    return None


@lru_cache(maxsize=64)
def public_holidays(country: str, year: int) -> tuple[datetime.date, ...]:
    """The public holidays of ``country`` (an ISO 3166 code, with an optional
    subdivision: ``ES-CT``, see :func:`holiday_calendar`) in ``year``; none for a
    blank country."""
    if not country:
        return ()
    code, subdivision = holiday_calendar(country)
    return tuple(
        sorted(holiday_calendars.country_holidays(code, subdiv=subdivision, years=year))
    )


def days_off(
    start: datetime.date, end: datetime.date, country: str = "", closed=()
) -> list[datetime.date]:
    """The public holidays of ``country`` and the desk's ``closed`` days (closure
    days set in the admin) from ``start`` to ``end``."""
    return [
        day
        for year in range(start.year, end.year + 1)
        for day in public_holidays(country, year)
    ] + [day for day in closed if start <= day <= end]


def working_days_between(
    start: datetime.date, end: datetime.date, *, country: str = "", closed=()
) -> int:
    """Working days (Monday to Friday, not a public holiday of ``country`` nor one
    of the desk's ``closed`` days) from ``start`` to ``end``: the day a proposal was
    sent does not count, a full working day after it does. Never negative."""
    if end <= start:
        return 0
    off = days_off(start, end, country, closed)
    return int(np.busday_count(start + DAY, end + DAY, holidays=off))


def late_if_sent_by(
    *, today: datetime.date, typical: int, country: str = "", closed=()
) -> datetime.date:
    """The last sending day that is late today: a proposal sent on it, or before,
    has waited more than ``typical`` working days."""
    return sent_by(today=today, waited=typical + 1, country=country, closed=closed)


def sent_by(
    *, today: datetime.date, waited: int, country: str = "", closed=()
) -> datetime.date:
    """The last sending day from which ``waited`` working days or more have passed
    by ``today`` (a proposal sent on it, or before, has waited that long)."""
    day = today
    while working_days_between(day, today, country=country, closed=closed) < waited:
        day -= DAY
    return day


def sending_days_back(
    *, today: datetime.date, waits: int, country: str = "", closed=()
) -> dict[int, datetime.date]:
    """``{w: the last sending day from which w working days have passed by
    today}`` for ``w`` from 1 to ``waits``: one walk back over the calendar (a
    proposal sent on that day or before has waited at least ``w``)."""
    off = set(days_off(today - 3 * 366 * DAY, today, country, closed))
    found: dict[int, datetime.date] = {}
    waited, day = 0, today
    while len(found) < waits and (today - day).days < 3 * 366:
        if day.weekday() < 5 and day not in off:
            waited += 1
        day -= DAY
        if waited and waited not in found:
            found[waited] = day
    return found


@dataclass(frozen=True)
class Wait:
    """How long a proposal has waited against its call's typical answer time."""

    working_days: int
    response: ResponseTime
    # False when the wait does not run against the target (the applicant
    # archived the proposal): never overdue.
    counted: bool = True

    @property
    def typical(self) -> int | None:
        return self.response.working_days

    @property
    def overdue(self) -> bool:
        return (
            self.counted
            and self.typical is not None
            and self.working_days > self.typical
        )


def wait_for(
    *,
    sent: datetime.date,
    today: datetime.date,
    response: ResponseTime,
    country: str = "",
    closed=(),
    counted: bool = True,
) -> Wait:
    return Wait(
        working_days_between(sent, today, country=country, closed=closed),
        response,
        counted,
    )
