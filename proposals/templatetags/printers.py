"""The printers of numbers and moments the pages share, one function each for
both template engines: the Django templates' filters (``wizard_tags``) and the
Jinja2 macros' (``fragments.environment``)."""

from django.utils.dateformat import format as date_format
from django.utils.timezone import template_localtime

from proposals import localization
from proposals.domain.numbers import MISSING, grouped, num, percent, points
from proposals.domain.numbers import hours as hours_text

#: ``num``: a number in the reader's format (``18,176``, ``18.176``, ``18 176``);
#: ``—`` for nothing. One printer for every page and export.
__all__ = ["hours", "iso", "num", "pct", "points_filter", "speedup", "when"]


def hours(value):
    """GPU-hours as an estimate reads (``proposals.domain.numbers.hours``): two
    significant figures below 10 (``0.2``), whole hours above."""
    if value == "":
        return MISSING
    return hours_text(value)


def speedup(value):
    """A speedup with two decimals in the reader's format (``1.50``, ``1,50``)."""
    return grouped(value, 2, trim=False)


def when(value, time=True):
    """A moment in the reader's time zone, zone named, in their locale's form
    (``3 Dec 2026, 14:05 CET``); ``when:False`` for the date alone."""
    return localization.when(value, with_time=bool(time))


def iso(value):
    """A moment in ISO 8601, in the reader's time zone (a ``<time datetime>``):
    Django's ``|date:'c'``."""
    if value in (None, ""):
        return ""
    return date_format(template_localtime(value), "c")


def pct(fraction, decimals=0):
    """A fraction as a percentage in the reader's format (``0.95`` → ``95%``,
    ``95 %``)."""
    return percent(fraction, int(decimals))


def points_filter(value, decimals=1):
    """A value already in percent (an MFU of ``38``) in the reader's format (``38%``,
    ``38 %``); ``—`` for nothing."""
    return MISSING if value == "" else points(value, int(decimals))
