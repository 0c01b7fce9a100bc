"""``{% macro "proposals/<folder>/<file>.html#<name>" key=value ... %}``: a Jinja2
macro (``proposals/jinja2/``) placed in a Django template, so a piece of markup
that a Jinja2 page and Django pages both show is written once, as the macro.

The macro is called with its arguments taken by name from the template's context
(those the context holds; the others keep the macro's defaults), the tag's own
``key=value`` pairs winning; ``csrf_input`` is the request's token field, as the
Jinja2 engine gives its templates. A macro reads its arguments and nothing else
(the environment's undefined is strict)."""

from django import template
from django.template.backends.utils import csrf_input

from proposals.templatetags.fragments import macro as macro_of

register = template.Library()


@register.simple_tag(takes_context=True)
def macro(context, name, **given):
    called = macro_of(name)
    values = {
        argument: context[argument]
        for argument in called.arguments
        if argument in context
    }
    if "csrf_input" in called.arguments and "csrf_input" not in given:
        request = context.get("request")
        values["csrf_input"] = csrf_input(request) if request is not None else ""
    return called(**{**values, **given})
