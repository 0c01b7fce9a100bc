"""The next cut-off of a proposal's route, in the reader's zone (the wizard's
sidebar and the staff view): ``{% next_cutoff %}``, the Jinja2 macro
``proposals/live/aside.html#next_cutoff`` with ``routing.cutoff_shown``."""

from django import template

from proposals.routing import cutoff_shown
from proposals.templatetags.fragments import macro

register = template.Library()

#: The block's markup (a Jinja2 macro).
NEXT_CUTOFF = "proposals/live/aside.html#next_cutoff"


@register.simple_tag(takes_context=True)
def next_cutoff(context):
    """The block of the context's ``proposal`` (nothing without a cut-off)."""
    proposal = context.get("proposal")
    return macro(NEXT_CUTOFF)(cutoff_shown(proposal), proposal)
