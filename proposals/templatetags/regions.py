"""``{% region r %}``: render a live region (:mod:`proposals.regions`) with its own
inputs only (an isolated context, like ``{% include ... only %}``), out of band
when the surrounding template says so (``oob``) or when asked (``oob=True``)."""

from django import template

register = template.Library()


@register.simple_tag(takes_context=True)
def region(context, region, oob=None):
    loaded = context.template.engine.get_template(region.template)
    oob = context.get("oob") if oob is None else oob
    return loaded.render(context.new({**region.context(), "oob": bool(oob)}))
