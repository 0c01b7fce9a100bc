"""``{% aside proposal regions %}``: the live sidebar's layout for a Django page (the
staff review page's ``_sidebar.html``), the Jinja2 macro the wizard page calls
(``proposals/jinja2/proposals/live/aside.html``): each region
(:mod:`proposals.wizard.regions`) written by its own macro with its own inputs only
(``fragments.render_region``, the Jinja2 global ``region``)."""

from django import template

from proposals.templatetags.fragments import macro

register = template.Library()


@register.simple_tag
def aside(proposal, regions):
    """The sidebar of ``proposal`` (its next cut-off) with ``regions`` (the
    sidebar's, by name)."""
    return macro("proposals/live/aside.html#aside")(proposal or None, regions)
