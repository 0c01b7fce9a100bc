"""Reading request parameters without trusting them.

``str.isdigit()`` is true for "²" and for Arabic-Indic digits, and ``int()`` refuses
strings of more than 4,300 digits: a parameter checked one way and converted the other
ends in a server error. Every integer taken from a request goes through
:func:`parse_int`, which accepts plain ASCII decimal digits of a sane length only.
"""

import re

from django.conf import settings
from django.core.exceptions import BadRequest

# Eighteen digits fit every integer column (PostgreSQL's bigint holds 9.2e18).
MAX_DIGITS = 18
_DIGITS = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}", re.ASCII)


def parse_int(
    value: str | None, *, name: str, default: int | None = None
) -> int | None:
    """The non-negative integer ``value`` spells in ASCII digits; ``default`` when it is
    missing or blank. Anything else raises :class:`BadRequest`, which Django answers
    with a 400 page."""
    if value is None or value == "":
        return default
    if not _DIGITS.fullmatch(value):
        raise BadRequest(
            f"{name} must be a whole number of at most {MAX_DIGITS} digits."
        )
    return int(value)


def client_ip(request) -> str:
    """The client's address for throttling (django-axes and django-ratelimit). Behind
    our reverse proxy (``DJANGO_BEHIND_PROXY``) it is the last ``X-Forwarded-For``
    entry, the one the proxy itself appended; earlier entries are the client's word."""
    if settings.BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"
