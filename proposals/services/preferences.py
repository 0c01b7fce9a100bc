"""Writes of a person's own settings."""

import zoneinfo

from django.conf import settings

from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME
from proposals.domain.response_times import calendar_problem
from proposals.models import Preferences
from proposals.models.preferences import StaffMail


def preferences_set(
    *, user, number_format: str, time_zone: str = "", language: str | None = None
) -> Preferences:
    """Store how ``user`` writes numbers (a CLDR locale) and, when given, their time
    zone (an IANA name such as ``Europe/Brussels``) and interface language (one of
    ``settings.LANGUAGES``, or ``""`` to follow the browser)."""
    if number_format not in NUMBER_FORMAT_BY_NAME:
        raise ValueError(f"Unknown number format {number_format!r}.")
    defaults: dict[str, object] = {"number_format": number_format}
    if language is not None:
        if language and language not in dict(settings.LANGUAGES):
            raise ValueError(f"Unknown language {language!r}.")
        defaults["language"] = language
    if time_zone:
        if time_zone not in zoneinfo.available_timezones():
            raise ValueError(f"Unknown time zone {time_zone!r}.")
        defaults["time_zone"] = time_zone
        defaults["time_zone_chosen"] = True
    preferences, _ = Preferences.objects.update_or_create(user=user, defaults=defaults)
    return preferences


def staff_settings_set(
    *,
    user,
    holiday_calendar: str,
    staff_mail: str | None = None,
    digest_hour: int | None = None,
) -> Preferences:
    """Store a support staff member's desk settings: the public-holiday calendar
    they count working days on (a country with an optional subdivision,
    ``ES-CT``, or ``""`` for the desk's ``DJANGO_HOLIDAY_COUNTRY``) and, when
    given, which staff mail they get (``StaffMail``) and their digest's hour."""
    code = holiday_calendar.strip().upper()
    problem = calendar_problem(code)
    if problem:
        raise ValueError(problem)
    defaults: dict[str, str | int] = {"holiday_calendar": code}
    if staff_mail is not None:
        if staff_mail not in StaffMail.values:
            raise ValueError(f"Unknown staff mail choice {staff_mail!r}.")
        defaults["staff_mail"] = staff_mail
    if digest_hour is not None:
        if not 0 <= digest_hour <= 23:
            raise ValueError(f"No hour {digest_hour!r}.")
        defaults["digest_hour"] = digest_hour
    preferences, _ = Preferences.objects.update_or_create(user=user, defaults=defaults)
    return preferences
