"""Bulk data for the review queue tests and benchmark: proposals already sent for
review, written with ``bulk_create`` (the queue reads what ``review_submit`` stores, so
the numbers need not come from a real assessment)."""

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from proposals.models import Cluster, Proposal, ProposalRevision, ReviewState
from tests.factories import UserFactory

TIERS = ["playground", "fast_lane", "large_scale"]
STATUSES = [
    Proposal.Status.SUBMITTED,
    Proposal.Status.CHANGES_REQUESTED,
    Proposal.Status.READY,
]
SNAPSHOT = {"format": "aifactory-proposal/1", "title": "bulk"}


def queue_rows(count: int, *, owners: int = 10, start: int = 0) -> list[Proposal]:
    """``count`` proposals with one revision each and a review state, spread over
    ``owners`` applicants, the catalogue's systems, tiers and statuses."""
    users = [UserFactory() for _ in range(owners)]
    systems = list(Cluster.objects.order_by("slug"))
    now = timezone.now()
    proposals = Proposal.objects.bulk_create(
        Proposal(
            owner=users[i % owners],
            title=f"Queue proposal {start + i}",
            organisation_name=f"Org {(start + i) % 97}",
            status=STATUSES[i % len(STATUSES)],
            system=systems[i % len(systems)],
            total_gpu_hours=Decimal(1000 * (1 + i % 80)),
        )
        for i in range(count)
    )
    revisions = ProposalRevision.objects.bulk_create(
        ProposalRevision(
            proposal=proposal,
            number=1,
            snapshot=SNAPSHOT,
            tier=TIERS[(i // 3) % len(TIERS)],
            system=proposal.system,
            total_gpu_hours=proposal.total_gpu_hours,
            error_count=i % 2,
            warning_count=i % 5,
            info_count=1,
            created_by=proposal.owner,
        )
        for i, proposal in enumerate(proposals)
    )
    ReviewState.objects.bulk_create(
        ReviewState(
            proposal=proposal,
            latest_revision=revision,
            submitted_at=now - timedelta(minutes=start + i),
            status_changed_at=now - timedelta(minutes=start + i),
        )
        for i, (proposal, revision) in enumerate(zip(proposals, revisions, strict=True))
    )
    return proposals
