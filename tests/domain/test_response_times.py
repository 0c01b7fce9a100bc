"""Working days waited against the calls' typical response times."""

import datetime

import pytest

from proposals.domain.response_times import (
    typical_response_days,
    wait_for,
    working_days_between,
)

MON = datetime.date(2026, 11, 30)
FRI = datetime.date(2026, 12, 4)
DAY = datetime.timedelta(days=1)


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


def test_typical_times_from_the_call_terms():
    assert typical_response_days("playground") == 2
    assert typical_response_days("fast_lane") == 4
    assert typical_response_days("large_scale") is None
    assert typical_response_days("") is None


def test_late_only_after_the_typical_time():
    assert not wait_for(sent=MON, today=MON + 2 * DAY, tier="playground").overdue
    assert wait_for(sent=MON, today=MON + 3 * DAY, tier="playground").overdue
    assert not wait_for(sent=MON, today=MON + 3 * DAY, tier="fast_lane").overdue
    assert not wait_for(sent=MON, today=MON + 30 * DAY, tier="large_scale").overdue
