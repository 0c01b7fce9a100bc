"""``localization.when`` writes a moment once per reader's conventions (issue 34:
the staff review page writes the same moments again and again, and Babel is slow),
and never hands one reader's text to another."""

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from django.utils import translation

from proposals import localization
from proposals.domain import numbers

MOMENT = datetime(2026, 12, 3, 13, 5, tzinfo=UTC)
GERMAN = numbers.NUMBER_FORMAT_BY_NAME["de_DE"]
BERLIN, LISBON = ZoneInfo("Europe/Berlin"), ZoneInfo("Europe/Lisbon")


def test_the_same_moment_is_written_by_babel_once(monkeypatch):
    calls = []
    real = localization.format_date
    monkeypatch.setattr(
        localization, "format_date", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    moment = datetime(2026, 12, 3, 13, 7, 11, tzinfo=UTC)  # written nowhere else
    with translation.override("de"), localization.activated(fmt=GERMAN, zone=BERLIN):
        first = localization.when(moment)
        assert localization.when(moment) == first == "03.12.2026, 14:07 MEZ"
    assert len(calls) == 1


def test_each_reader_reads_their_own():
    with translation.override("de"), localization.activated(fmt=GERMAN, zone=BERLIN):
        assert localization.when(MOMENT) == "03.12.2026, 14:05 MEZ"
        assert localization.when(MOMENT, with_time=False) == "03.12.2026"
    with translation.override("en-gb"), localization.activated(fmt=GERMAN, zone=BERLIN):
        assert localization.when(MOMENT) == "03.12.2026, 14:05 CET"
    with translation.override("de"), localization.activated(fmt=GERMAN, zone=LISBON):
        assert localization.when(MOMENT) == "03.12.2026, 13:05 WEZ"
    with (
        translation.override("en-gb"),
        localization.activated(fmt=numbers.PORTAL, zone=BERLIN),
    ):
        assert localization.when(MOMENT) == "3 Dec 2026, 14:05 CET"
        assert localization.when(date(2026, 12, 3)) == "3 Dec 2026"
        assert localization.when(None) == numbers.MISSING
