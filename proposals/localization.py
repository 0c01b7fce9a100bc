"""The person's conventions, activated for a request (its user's) or an e-mail (its
recipient's): the interface language (Django's translation), the number format every
number is printed in (``proposals.domain.numbers.using``) and the time zone every time
is shown in, with its name (CET, CEST), dates in the locale's form (Babel).

Like Django's ``translation.activate``: callers activate, printing reads. Both are
resolved lazily, so a page that prints neither costs no query.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from datetime import date, datetime
from zoneinfo import ZoneInfo

from babel.dates import format_date, format_datetime, format_time, get_datetime_format
from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

from proposals.domain import numbers
from proposals.models.preferences import DEFAULT_TIME_ZONE

DEFAULT_ZONE = ZoneInfo(DEFAULT_TIME_ZONE)
_ZONE: contextvars.ContextVar = contextvars.ContextVar("time_zone", default=None)


def active_time_zone() -> ZoneInfo:
    """The zone activated by :func:`activated`, or Brussels'."""
    active = _ZONE.get()
    if active is None:
        return DEFAULT_ZONE
    if callable(active):
        active = active()
        _ZONE.set(active)
    return active


@contextlib.contextmanager
def activated(*, fmt, zone):
    """Print numbers in ``fmt`` and times in ``zone`` inside the block (either may
    be a callable, called when first needed)."""
    token = _ZONE.set(zone)
    try:
        with numbers.using(fmt):
            yield
    finally:
        _ZONE.reset(token)


def preferences_of(user):
    """``user``'s ``Preferences`` row, or ``None`` (anonymous, or none stored)."""
    from proposals.selectors.accounts import preferences_row

    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return preferences_row(user_id=user.pk)


def interface_languages() -> dict[str, str]:
    """The interface's languages by code (``settings.LANGUAGES``), each in its own name."""
    return dict(settings.LANGUAGES)


def _offered(code: str) -> str:
    """``code`` if the interface still speaks it, else ``""``."""
    return code if code in interface_languages() else ""


def chosen_language(preferences) -> str:
    """The language ``preferences`` chose (``de``), or ``""`` to follow the browser
    (also for a code no longer offered)."""
    return _offered(getattr(preferences, "language", "") or "")


# The signed-in person's chosen language ("" = the browser's), kept in their session
# at login and on saving Settings, so that no request queries it again.
LANGUAGE_SESSION_KEY = "interface_language"


def remember_language(request, preferences) -> str:
    """Keep ``preferences``' chosen language in ``request``'s session; return it."""
    language = chosen_language(preferences)
    session = getattr(request, "session", None)
    if session is not None:
        session[LANGUAGE_SESSION_KEY] = language
    return language


# The page language last recorded as the person's ``browser_language`` in this
# session: it is written again only when the pages' language changes.
PAGE_LANGUAGE_SESSION_KEY = "page_language"


def _record_page_language(user, page: str) -> None:
    """``page`` as ``user``'s ``browser_language`` (an account without preferences
    keeps none: its numbers follow each browser)."""
    from proposals.models import Preferences

    Preferences.objects.filter(user=user).exclude(browser_language=page).update(
        browser_language=page
    )


def remember_language_at_login(sender, request, user, **kwargs):
    """``user_logged_in``: the person's language for the whole session (one query);
    and the page language they sign in with, which their e-mails follow while they
    let the browser choose (a mail has no browser)."""
    preferences = preferences_of(user)
    remember_language(request, preferences)
    page = getattr(request, "LANGUAGE_CODE", "") or ""
    if preferences is not None and page in interface_languages():
        _record_page_language(user, page)
        request.session[PAGE_LANGUAGE_SESSION_KEY] = page


def follow_page_language(request) -> None:
    """A signed-in person who has not chosen a language in Settings reads the pages
    in their browser's (or the switch's) language: their e-mails follow it. Written
    when the session first sees that language (a session from before sign-in
    recorded it, a browser switched to another one), not on every request."""
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    if user is None or session is None or not user.is_authenticated:
        return
    page = getattr(request, "LANGUAGE_CODE", "") or ""
    if (
        page not in interface_languages()
        or session.get(PAGE_LANGUAGE_SESSION_KEY) == page
    ):
        return
    _record_page_language(user, page)
    session[PAGE_LANGUAGE_SESSION_KEY] = page


def zone_named(name: str | None) -> ZoneInfo:
    """The zone called ``name``; Brussels' for none or an unknown name."""
    try:
        return ZoneInfo(name) if name else DEFAULT_ZONE
    except (ValueError, KeyError):
        return DEFAULT_ZONE


@contextlib.contextmanager
def for_recipient(user):
    """Activate ``user``'s conventions (for an e-mail to them): their language (the
    one they chose in Settings, else the one their browser gave the pages when they
    last signed in, else the portal's English), number format and time zone."""
    preferences = preferences_of(user)
    if preferences is None:
        fmt, zone = numbers.PORTAL, DEFAULT_ZONE
    else:
        fmt = preferences.number_format_spec
        zone = zone_named(preferences.time_zone)
    language = (
        chosen_language(preferences)
        or _offered(getattr(preferences, "browser_language", ""))
        or settings.LANGUAGE_CODE
    )
    with translation.override(language), activated(fmt=fmt, zone=zone):
        yield


# CLDR's bare "en" is American English (Dec 3, 2026, 2:05 PM); the portal's English,
# and its default number format's dates, are British (3 Dec 2026, 14:05).
_DATE_LOCALES = {numbers.DEFAULT_NUMBER_FORMAT: "en_GB"}


def date_locale(name: str) -> str:
    """The locale dates are written in for number format ``name``."""
    return _DATE_LOCALES.get(name, name)


# What :func:`when` wrote, by (value, with_time, locale, zone, language): a page
# writes the same few moments again and again (a history, the comments), and Babel
# takes a quarter of a millisecond for each.
_WRITTEN: dict[tuple, str] = {}


def when(value, *, with_time: bool = True) -> str:
    """A moment (or a date) as the active person reads it: in their zone, with the
    zone's name as their language writes it (:func:`zone_name`), in their locale's
    form (``3 Dec 2026, 14:05 CET`` in en_GB, ``03.12.2026, 15:05 MESZ`` on a German
    page in summer)."""
    if value is None or value == "":
        return numbers.MISSING
    locale = date_locale(numbers.active_format().name)
    if not isinstance(value, (datetime, date)):
        return str(value)
    key = (
        value,
        with_time,
        locale,
        str(active_time_zone()),
        translation.get_language(),
    )
    written = _WRITTEN.get(key)
    if written is None:
        written = _write(value, with_time, locale)
        if len(_WRITTEN) > 5000:
            _WRITTEN.clear()
        _WRITTEN[key] = written
    return written


def _write(value: date, with_time: bool, locale: str) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=DEFAULT_ZONE)
        local = value.astimezone(active_time_zone())
        if not with_time:
            return format_date(local.date(), "medium", locale=locale)
        day = format_date(local.date(), "medium", locale=locale)
        clock = format_time(local, "short", tzinfo=local.tzinfo, locale=locale)
        joined = get_datetime_format("medium", locale=locale)
        return f"{joined.replace('{1}', day).replace('{0}', clock)} {zone_name(local)}"
    return format_date(value, "medium", locale=locale)


# A zone's short name in CLDR: letters only ("MEZ", "CET", "TU"). Babel falls back
# to an offset ("+0100") where the language has none, or to a long name ("Eastern
# Standard Time"), neither of which is a short name.
_SHORT_ZONE_NAME = re.compile(r"[^\W\d_]{2,6}")
# The tz database's names for UTC itself: a fixed zero offset that names no place
# (``Etc/`` ones too). Europe/London's winter GMT is a place's, and stays GMT.
_UNIVERSAL_ZONES = frozenset(
    ("UTC", "UCT", "Universal", "Zulu", "GMT", "GMT0", "GMT+0", "GMT-0", "Greenwich")
)
# CLDR's name by (zone, offset, abbreviation, language): a moment's name depends on
# no more (Babel takes about as long as the rest of a date to find it).
_CLDR_ZONE_NAMES: dict[tuple, str] = {}


def zone_name(moment: datetime, language: str | None = None) -> str:
    """The name of ``moment``'s zone (an aware datetime) at that moment, as
    ``language`` (the active one by default) writes it. The one rule
    (docs/applicants.md, "Time zones"):

    1. the short name CLDR gives the zone in that language: ``MEZ``/``MESZ`` in
       German, ``CET``/``CEST`` in English, Italian and Spanish;
    2. where CLDR has none (French writes an offset), the tz database's
       abbreviation, as the portal's English writes it: ``CET``, ``EET``, ``BST``;
    3. where that is an offset too (``+03`` in Istanbul), ``UTC+3``.

    UTC itself (``Etc/UTC``, ``Etc/GMT``, ``Zulu``) is ``UTC`` in every language, as
    people write it (CLDR's French says ``TU``)."""
    if str(moment.tzinfo).removeprefix("Etc/") in _UNIVERSAL_ZONES:
        return "UTC"
    code = language or translation.get_language() or settings.LANGUAGE_CODE
    abbreviation = moment.tzname() or ""
    key = (str(moment.tzinfo), moment.utcoffset(), abbreviation, code)
    cldr = _CLDR_ZONE_NAMES.get(key)
    if cldr is None:
        try:
            cldr = format_datetime(
                moment, "z", tzinfo=moment.tzinfo, locale=translation.to_locale(code)
            )
        except (ValueError, LookupError):
            cldr = ""
        if len(_CLDR_ZONE_NAMES) > 1000:
            _CLDR_ZONE_NAMES.clear()
        _CLDR_ZONE_NAMES[key] = cldr
    if _SHORT_ZONE_NAME.fullmatch(cldr):
        return cldr
    if _SHORT_ZONE_NAME.fullmatch(abbreviation):
        return abbreviation
    offset = moment.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    if not minutes:
        return "UTC"
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def browser_languages(request) -> list[str]:
    """The languages of the request's Accept-Language header, preferred first."""
    header = request.headers.get("Accept-Language", "")
    return [language for language, _ in parse_accept_lang_header(header)]
