"""Every non-trivial read. Functions take keyword-only arguments and are query-aware."""

from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)


def proposal_list_for_owner(*, user) -> QuerySet[Proposal]:
    """The user's own proposals, newest change first, with the target system joined."""
    return Proposal.objects.filter(owner=user).select_related("system")


def proposal_with_children(queryset: QuerySet[Proposal]) -> QuerySet[Proposal]:
    """Attach the system and every repeatable entry in a fixed number of queries."""
    return queryset.select_related("system", "owner").prefetch_related(
        Prefetch("codes", queryset=CodeEntry.objects.order_by("position", "id")),
        Prefetch(
            "measurements",
            queryset=ScalingMeasurement.objects.order_by("position", "id"),
        ),
        Prefetch("jobs", queryset=JobType.objects.order_by("position", "id")),
        Prefetch("schedule", queryset=UsageMonth.objects.order_by("position", "id")),
    )


def proposal_get_for_owner(*, user, pk: int, children: bool = True) -> Proposal:
    """The proposal if ``user`` owns it; anybody else gets a 404, never a 403."""
    queryset = Proposal.objects.filter(owner=user)
    if children:
        queryset = proposal_with_children(queryset)
    return get_object_or_404(queryset, pk=pk)
