"""``{% region r %}``: render a live region (:mod:`proposals.wizard.regions`) with its own
inputs only (an isolated context, like ``{% include ... only %}``), out of band
when the surrounding template says so (``oob``) or when asked (``oob=True``). A
region marked ``cached`` is rendered once per key (its inputs, written in the
reader's conventions; ``proposals.fragment_cache``).

A region's template is a Django template (``name.html`` or ``name.html#partial``)
or one of the rows' Jinja2 macros (``proposals/rows/<file>.html#<macro>``), called
with the region's inputs as its arguments: a row's figures or a form's findings
are written by the same macro in the page and in an autosave's answer."""

from django import template

from proposals.fragment_cache import key_of, rendered
from proposals.templatetags.fragments import is_macro, macro

register = template.Library()


@register.simple_tag(takes_context=True)
def region(context, region, oob=None):
    oob = bool(context.get("oob") if oob is None else oob)

    def render():
        if is_macro(region.template):
            return macro(region.template)(**region.context(), oob=oob)
        loaded = context.template.engine.get_template(region.template)
        return loaded.render(context.new({**region.context(), "oob": oob}))

    if not region.cached:
        return render()
    return rendered(key_of("region", region.template, region.key, str(oob)), render)
