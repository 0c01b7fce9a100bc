"""Retargeting: a copy of a proposal aimed at another catalogue system (the "compare
systems" page's one click)."""

from django.db import transaction

from proposals.domain import limits
from proposals.models import Cluster, Proposal

from .proposals import proposal_duplicate


class UnknownSystem(Exception):
    """The system asked for is not in the catalogue."""


@transaction.atomic
def proposal_retarget_copy(*, proposal: Proposal, owner, system_slug: str) -> Proposal:
    """A new draft copied from ``proposal`` (every value and row, as
    ``proposal_duplicate``) whose target system is ``system_slug``. The figures are
    kept as entered: the comparison's rescaled GPU-hours are an estimate for the
    applicant to check, not a value to write silently."""
    # No slug holds a NUL, and PostgreSQL refuses one in a query's text.
    cluster = (
        None
        if "\x00" in system_slug
        else Cluster.objects.filter(slug=system_slug).first()
    )
    if cluster is None:
        raise UnknownSystem(system_slug)
    suffix = f" (on {cluster.name})"
    title = proposal.title[: limits.LINE_CHARS - len(suffix)] + suffix
    copy = proposal_duplicate(proposal=proposal, owner=owner, title=title)
    copy.system = cluster
    if cluster.gcds_per_gpu < 2:
        copy.gpu_unit = "gpus"
    copy.save(update_fields=["system", "gpu_unit"])
    return copy
