"""Starting a proposal on a route chosen in the call router."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction

from proposals.models import AccessRoute, Cluster, Proposal, ProposalRoute

from .proposals import proposal_create


@transaction.atomic
def proposal_create_on_route(
    *,
    owner,
    route: AccessRoute,
    system: Cluster | None,
    title: str,
    organisation_kind: str = "",
    country: str = "",
    gpu_hours: float | None = None,
    experience: str = "",
) -> Proposal:
    """Create a draft in the route's call family on ``system`` (one of the route's
    systems), with the router's answers that the wizard asks again (organisation
    kind and country, GPU-hours, experience), and remember the route."""
    if not route.family:
        raise ValidationError("The wizard has no form for this route.")
    if system is not None and not route.systems.filter(pk=system.pk).exists():
        raise ValidationError("The route does not offer this system.")
    proposal = proposal_create(
        owner=owner, title=title, call_family=route.family, system=system
    )
    changes = {
        "organisation_kind": organisation_kind,
        "organisation_country": country,
        "hpc_experience": experience,
    }
    if gpu_hours:
        changes["total_gpu_hours"] = Decimal(str(round(gpu_hours)))
    changes = {k: v for k, v in changes.items() if v}
    if changes:
        Proposal.objects.filter(pk=proposal.pk).update(**changes)
        proposal.refresh_from_db()
    ProposalRoute.objects.create(proposal=proposal, route=route)
    return proposal
