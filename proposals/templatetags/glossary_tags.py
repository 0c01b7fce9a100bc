"""Links from a word to its glossary entry, with its one-sentence definition shown
on hover and on keyboard focus (CSS only: no script, so the strict CSP holds)."""

from django import template
from django.urls import reverse

from proposals.domain.glossary import term as glossary_term
from proposals.templatetags.fragments import fragment

register = template.Library()


def term_link(context, slug: str, text) -> str:
    """``text`` as a link to the glossary entry ``slug``, described by a tooltip;
    tooltip ids are numbered per rendering, so a term may appear several times."""
    count = context.render_context.get("glossary_tips", 0) + 1
    context.render_context["glossary_tips"] = count
    return numbered_term_link(slug, text, count)


def numbered_term_link(slug: str, text, count: int) -> str:
    """:func:`term_link` with the rendering's ``count`` of tooltips so far."""
    entry = glossary_term(slug)
    tip_id = f"term-tip-{slug}-{count}"
    return fragment("term_link")(reverse("proposals:glossary"), entry, tip_id, text)


@register.simple_tag(takes_context=True)
def term(context, slug, text=""):
    """``{% term "mfu" %}`` or ``{% term "mfu" "MFU %" %}``: the word (by default the
    term's own name) linked to its glossary entry, with hover/focus help."""
    return term_link(context, slug, text or glossary_term(slug).name)
