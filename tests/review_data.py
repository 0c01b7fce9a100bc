"""Review data for the tests and benchmarks: bulk proposals already sent for review,
written with ``bulk_create`` for the queue (it reads what ``review_submit`` stores,
so the numbers need not come from a real assessment), and the demo's Large Scale
proposal in a conversation, for the review page."""

from datetime import timedelta
from decimal import Decimal

from django.core.management import call_command
from django.utils import timezone

from proposals import services
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


def large_scale_under_review():
    """The demo's Large Scale proposal, with a conversation on it: staff questions
    on three sections, the applicant's answers, and a second revision sent."""
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    proposal = Proposal.objects.get(owner__username="demo", title__icontains="Iberian")
    staff = proposal.review_state.handled_by
    with services.mail_withheld(reason="benchmark"):
        services.review_set_status(
            proposal=proposal,
            user=staff,
            to_status=Proposal.Status.CHANGES_REQUESTED,
            note="Three questions.",
        )
        for section in ("scalability", "selection", "general"):
            question = services.comment_add(
                proposal=proposal,
                author=staff,
                section=section,
                body=f"A question on {section}: how was it measured?",
            )
            services.comment_add(
                proposal=proposal,
                author=proposal.owner,
                section=section,
                body="Over ten runs; the figures are in the narrative now.",
                parent=question,
            )
        services.review_submit(
            proposal=proposal, user=proposal.owner, note="Answered.", unchanged_ok=True
        )
    return Proposal.objects.get(pk=proposal.pk), staff
