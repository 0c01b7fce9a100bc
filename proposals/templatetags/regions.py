"""``{% region r %}``: render a live region (:mod:`proposals.wizard.regions`) with its own
inputs only (an isolated context, like ``{% include ... only %}``), out of band
when the surrounding template says so (``oob``) or when asked (``oob=True``). A
region marked ``cached`` is rendered once per key (its inputs, written in the
reader's conventions; ``proposals.fragment_cache``)."""

from django import template

from proposals.fragment_cache import key_of, rendered

register = template.Library()


@register.simple_tag(takes_context=True)
def region(context, region, oob=None):
    oob = bool(context.get("oob") if oob is None else oob)

    def render():
        loaded = context.template.engine.get_template(region.template)
        return loaded.render(context.new({**region.context(), "oob": oob}))

    if not region.cached:
        return render()
    return rendered(key_of("region", region.template, region.key, str(oob)), render)
