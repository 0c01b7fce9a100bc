"""The next cut-off of a proposal's route, in the reader's zone (the wizard's
sidebar and the staff view: ``{% next_cutoff %}``)."""

from django import template
from django.utils import timezone

from proposals import localization, routing

register = template.Library()


@register.inclusion_tag("proposals/_next_cutoff.html", takes_context=True)
def next_cutoff(context):
    """The route of the context's ``proposal`` and its next cut-off (nothing shown
    without a proposal or a route)."""
    proposal = context.get("proposal")
    if proposal is None or not getattr(proposal, "pk", None):
        return {"shown": None}
    shown = routing.proposal_cutoff(
        proposal, zone=localization.active_time_zone(), now=timezone.now()
    )
    return {"shown": shown, "proposal": proposal}
