"""Writes of a person's own settings."""

import zoneinfo

from django.conf import settings

from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME
from proposals.domain.response_times import calendar_problem
from proposals.models import Preferences


def preferences_set(
    *, user, number_format: str, time_zone: str = "", language: str | None = None
) -> Preferences:
    """Store how ``user`` writes numbers (a CLDR locale) and, when given, their time
    zone (an IANA name such as ``Europe/Brussels``) and interface language (one of
    ``settings.LANGUAGES``, or ``""`` to follow the browser)."""
    if number_format not in NUMBER_FORMAT_BY_NAME:
        raise ValueError(f"Unknown number format {number_format!r}.")
    defaults = {"number_format": number_format}
    if language is not None:
        if language and language not in dict(settings.LANGUAGES):
            raise ValueError(f"Unknown language {language!r}.")
        defaults["language"] = language
    if time_zone:
        if time_zone not in zoneinfo.available_timezones():
            raise ValueError(f"Unknown time zone {time_zone!r}.")
        defaults["time_zone"] = time_zone
    preferences, _ = Preferences.objects.update_or_create(user=user, defaults=defaults)
    return preferences


def staff_calendar_set(*, user, holiday_calendar: str) -> Preferences:
    """Store the public-holiday calendar ``user`` (support staff) counts working
    days on: a country with an optional subdivision (``ES-CT``), or ``""`` for the
    desk's (``DJANGO_HOLIDAY_COUNTRY``)."""
    code = holiday_calendar.strip().upper()
    problem = calendar_problem(code)
    if problem:
        raise ValueError(problem)
    preferences, _ = Preferences.objects.update_or_create(
        user=user, defaults={"holiday_calendar": code}
    )
    return preferences
