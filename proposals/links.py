"""Absolute links for e-mails, built from the configured site address
(``settings.SITE_URL``, env ``DJANGO_SITE_URL``), never from the request that caused
the mail: an autosave, a worker or a proxy's internal host name must not decide where
a link in a mail points."""

from django.conf import settings
from django.urls import reverse


def site_url(path: str = "/") -> str:
    """``path`` (site-relative, e.g. ``/staff/review/23/``) as an absolute link."""
    return settings.SITE_URL.rstrip("/") + path


def site_reverse(name: str, *args) -> str:
    """The absolute link of the URL pattern ``name``."""
    return site_url(reverse(name, args=args))
