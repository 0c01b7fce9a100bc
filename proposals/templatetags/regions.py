"""``{% region r %}``: render a live region (:mod:`proposals.wizard.regions`) with its own
inputs only, out of band when the surrounding template says so (``oob``) or when
asked (``oob=True``). A region marked ``cached`` is rendered once per key (its
inputs, written in the reader's conventions; ``proposals.fragment_cache``).

A region's template is a Jinja2 macro (``proposals/live/<file>.html#<macro>``, or a
row's: ``proposals/rows/<file>.html#<macro>``), called with the region's inputs as
its arguments: the page and an autosave's answer write a region with the same
macro, and a macro reads its arguments and nothing else (the environment's
undefined is strict)."""

from django import template

from proposals.templatetags.fragments import macro, render_region

register = template.Library()


@register.simple_tag(takes_context=True)
def region(context, region, oob=None):
    return render_region(region, context.get("oob") if oob is None else oob)


@register.simple_tag
def aside(proposal, regions):
    """``{% aside proposal regions %}``: the live sidebar's layout, the Jinja2 macro
    ``proposals/live/aside.html#aside`` the wizard page calls (the staff review
    page's ``_sidebar.html``)."""
    return macro("proposals/live/aside.html#aside")(proposal or None, regions)
