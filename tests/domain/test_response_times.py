"""Working days waited against the call modes' typical response times, with the
desk's public holidays skipped."""

import datetime

import pytest

from proposals.domain.response_times import (
    late_if_sent_by,
    response_time,
    typical_days_by_mode,
    wait_for,
    working_days_between,
)
from proposals.domain.terms import DEFAULT_FILE, load_terms

MON = datetime.date(2026, 11, 30)
FRI = datetime.date(2026, 12, 4)
DAY = datetime.timedelta(days=1)
TERMS = load_terms(DEFAULT_FILE)
INDUSTRY = "industrial_innovation"


@pytest.mark.parametrize(
    "start,end,expected",
    [
        (MON, MON, 0),  # sent today
        (MON, MON + DAY, 1),
        (MON, FRI, 4),
        (FRI, FRI + DAY, 0),  # Saturday is no working day
        (FRI, FRI + 3 * DAY, 1),  # Monday after
        (MON, MON + 7 * DAY, 5),  # a week later
        (FRI, MON, 0),  # never negative
    ],
)
def test_working_days(start, end, expected):
    assert working_days_between(start, end) == expected


def test_public_holidays_are_not_working_days():
    # Christmas 2026 is a Friday; in Belgium so are 1 January 2027 and Easter Monday
    # 29 March 2027.
    christmas_eve = datetime.date(2026, 12, 24)
    assert working_days_between(christmas_eve, christmas_eve + 4 * DAY) == 2
    assert (
        working_days_between(christmas_eve, christmas_eve + 4 * DAY, country="BE") == 1
    )
    new_year_week = (datetime.date(2026, 12, 31), datetime.date(2027, 1, 4))
    assert working_days_between(*new_year_week, country="BE") == 1
    assert working_days_between(*new_year_week) == 2
    # Another country, another calendar: 26 December (a Friday in 2025) is a
    # public holiday in Germany, not in Belgium.
    boxing = (datetime.date(2025, 12, 25), datetime.date(2025, 12, 29))
    assert working_days_between(*boxing, country="DE") == 1
    assert working_days_between(*boxing, country="BE") == 2


def test_every_call_mode_has_a_response_time_or_an_explicit_none():
    playground = response_time(TERMS, INDUSTRY, "playground")
    assert playground.working_days == 2 and "Typical call terms" in playground.source
    assert response_time(TERMS, INDUSTRY, "fast_lane").working_days == 4
    large = response_time(TERMS, INDUSTRY, "large_scale")
    assert (large.working_days, large.label) == (None, "none")
    assert "two cut-offs a month" in large.source
    science = response_time(TERMS, "ai_for_science", "")
    assert science.working_days is None and "peer review" in science.source
    assert "No tier yet" in response_time(TERMS, INDUSTRY, "").source
    for family in TERMS.values():
        for mode in family.modes:
            answer = response_time(TERMS, family.slug, mode.slug)
            assert answer.source
    assert typical_days_by_mode(TERMS) == {
        (INDUSTRY, "playground"): 2,
        (INDUSTRY, "fast_lane"): 4,
    }


def test_late_only_after_the_typical_time():
    playground = response_time(TERMS, INDUSTRY, "playground")
    fast_lane = response_time(TERMS, INDUSTRY, "fast_lane")
    large = response_time(TERMS, INDUSTRY, "large_scale")
    assert not wait_for(sent=MON, today=MON + 2 * DAY, response=playground).overdue
    assert wait_for(sent=MON, today=MON + 3 * DAY, response=playground).overdue
    assert not wait_for(sent=MON, today=MON + 3 * DAY, response=fast_lane).overdue
    assert not wait_for(sent=MON, today=MON + 30 * DAY, response=large).overdue


@pytest.mark.parametrize("typical", [0, 2, 4])
@pytest.mark.parametrize("country", ["", "BE"])
def test_late_if_sent_by_is_the_boundary(typical, country):
    today = datetime.date(2027, 1, 5)
    day = late_if_sent_by(today=today, typical=typical, country=country)
    assert working_days_between(day, today, country=country) > typical
    assert working_days_between(day + DAY, today, country=country) <= typical
