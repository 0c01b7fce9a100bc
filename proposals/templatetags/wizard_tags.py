"""The Django templates' filters for the pages still written in Django templates
(the wizard's step page is Jinja2: ``wizard_page``): a dict's item, and the
printers both engines share (``printers``)."""

from django import template

from proposals.domain.numbers import grouped
from proposals.templatetags import printers
from proposals.templatetags.wizard_page import get_item

register = template.Library()

register.filter("get_item", get_item)

# A number in the reader's format (``18,176``, ``18.176``, ``18 176``: the one
# activated for the request or e-mail, see ``proposals.localization``); ``—`` for
# nothing. One printer for every page and export, and for both engines (printers).
register.filter("num", printers.num)
register.filter("hours", printers.hours)
register.filter("speedup", printers.speedup)
register.filter("when", printers.when)
register.filter("pct", printers.pct)
register.filter("points", printers.points_filter)


@register.filter
def megabytes(value):
    """A size in bytes as megabytes with one decimal, in the reader's format."""
    return grouped((value or 0) / 2**20, 1, trim=False)
