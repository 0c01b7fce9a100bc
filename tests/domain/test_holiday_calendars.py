"""The desk's holiday calendar: a country or a country's region (Catalonia, where
BSC's desk is, has 12 public holidays in 2026 against Spain's 8), checked when the
site starts rather than failing the staff queue."""

import datetime

import pytest

from proposals.domain.response_times import (
    calendar_problem,
    holiday_calendar,
    public_holidays,
    working_days_between,
)


@pytest.mark.parametrize(
    ("code", "parsed"),
    [("FI", ("FI", None)), ("es-ct", ("ES", "CT")), (" DE-BY ", ("DE", "BY"))],
)
def test_a_calendar_is_a_country_and_an_optional_subdivision(code, parsed):
    assert holiday_calendar(code) == parsed


def test_catalonia_has_its_own_holidays_beside_spains():
    spain, catalonia = public_holidays("ES", 2026), public_holidays("ES-CT", 2026)
    assert (len(spain), len(catalonia)) == (8, 12)
    assert set(spain) <= set(catalonia)
    # 11 September (Diada) is a working day in Madrid, not in Barcelona.
    diada = datetime.date(2026, 9, 11)
    assert diada not in spain and diada in catalonia
    week = (datetime.date(2026, 9, 7), datetime.date(2026, 9, 14))
    assert working_days_between(*week, country="ES") == 5
    assert working_days_between(*week, country="ES-CT") == 4


@pytest.mark.parametrize("code", ["", "BE", "FI", "ES-CT", "DE-BY", "it"])
def test_known_calendars_have_no_problem(code):
    assert calendar_problem(code) is None


@pytest.mark.parametrize(
    ("code", "said"),
    [("XX", "no public-holiday calendar"), ("ES-XX", "no subdivision 'XX'")],
)
def test_unknown_calendars_are_named(code, said):
    assert said in calendar_problem(code)
