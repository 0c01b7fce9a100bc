"""Issue 36: a time's zone is named as the page's language writes it (CLDR's short
names: MEZ/MESZ in German), else by the tz database's abbreviation (CET, EET: French
CLDR has none), else as an offset from UTC (UTC+3). One rule,
``localization.zone_name``; docs/applicants.md says it."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation

from proposals import localization
from proposals.domain import numbers

# The last Sunday of March 2026: 01:00 UTC is when Central Europe moves to summer
# time. One minute before and one minute after.
BEFORE = datetime(2026, 3, 29, 0, 59, tzinfo=UTC)
AFTER = datetime(2026, 3, 29, 1, 1, tzinfo=UTC)

NAMES = {  # (winter, summer) in Berlin, by language
    "en-gb": ("CET", "CEST"),
    "de": ("MEZ", "MESZ"),
    "fr": ("CET", "CEST"),
    "it": ("CET", "CEST"),
    "es": ("CET", "CEST"),
}


@pytest.mark.parametrize("language", NAMES)
def test_the_zone_is_named_as_the_language_writes_it_across_the_change(language):
    winter, summer = NAMES[language]
    berlin = ZoneInfo("Europe/Berlin")
    fmt = numbers.NUMBER_FORMAT_BY_NAME["de_DE"]
    with translation.override(language), localization.activated(fmt=fmt, zone=berlin):
        assert localization.when(BEFORE) == f"29.03.2026, 01:59 {winter}"
        assert localization.when(AFTER) == f"29.03.2026, 03:01 {summer}"


def test_a_zone_without_a_name_is_an_offset_from_utc():
    istanbul = BEFORE.astimezone(ZoneInfo("Europe/Istanbul"))
    kolkata = BEFORE.astimezone(ZoneInfo("Asia/Kolkata"))
    assert localization.zone_name(istanbul, "de") == "UTC+3"
    assert localization.zone_name(kolkata, "fr") == "IST"
    helsinki = AFTER.astimezone(ZoneInfo("Europe/Helsinki"))
    assert localization.zone_name(helsinki, "de") == "OESZ"
    assert localization.zone_name(helsinki, "fr") == "EEST"


UNIVERSAL = ("UTC", "Etc/UTC", "Etc/UCT", "Zulu", "Etc/GMT", "Etc/GMT+0", "GMT0")


@pytest.mark.parametrize("language", NAMES)
def test_universal_time_is_utc_in_every_language(language):
    # CLDR's French calls UTC "TU" (temps universel); French users write "UTC". A
    # zone that is UTC under another name (a fixed zero offset naming no place) is
    # "UTC" too; London's winter stays GMT, a place's name.
    for key in UNIVERSAL:
        moment = BEFORE.astimezone(ZoneInfo(key))
        assert localization.zone_name(moment, language) == "UTC", key
    assert localization.zone_name(BEFORE, language) == "UTC"  # datetime.UTC
    london = BEFORE.astimezone(ZoneInfo("Europe/London"))
    assert localization.zone_name(london, language) == "GMT"
    fmt = numbers.NUMBER_FORMAT_BY_NAME["fr_FR"]
    with (
        translation.override(language),
        localization.activated(fmt=fmt, zone=ZoneInfo("Etc/UTC")),
    ):
        assert localization.when(BEFORE).endswith(" 00:59 UTC")
