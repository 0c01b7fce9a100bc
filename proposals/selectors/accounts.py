"""An account's reads: its proposals, its addresses, its verification."""

from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, Q, QuerySet

from proposals.assess import with_children
from proposals.models import (
    AccountProfile,
    Proposal,
    ProposalRevision,
    ReviewComment,
    StatusChange,
)


def account_data_proposals(*, user) -> QuerySet[Proposal]:
    """Every proposal ``user`` owns, for the export of their data: archived ones, and
    deleted ones that the staff keep too; with their rows, revisions (snapshots
    included), status changes and the comments the applicant may read. A fixed number
    of queries, however many proposals."""
    return (
        with_children(Proposal.objects.filter(owner=user))
        .prefetch_related(
            Prefetch(
                "revisions",
                queryset=ProposalRevision.objects.order_by("number").only(
                    "proposal_id", "number", "snapshot", "created_at"
                ),
            ),
            Prefetch("status_changes", queryset=StatusChange.objects.order_by("at")),
            Prefetch(
                "review_comments",
                queryset=ReviewComment.objects.filter(staff_only=False).order_by(
                    "created_at", "id"
                ),
            ),
        )
        .order_by("pk")
    )


def account_proposal_counts(*, user) -> dict[str, int]:
    """How many of ``user``'s proposals deleting the account removes (``drafts``:
    never sent for review) and keeps for the staff (``sent``), in one query."""
    return Proposal.objects.filter(owner=user).aggregate(
        drafts=Count("pk", filter=Q(review_state__isnull=True)),
        sent=Count("pk", filter=Q(review_state__isnull=False)),
    )


def account_is_verified(*, user) -> bool:
    """Whether the owner of ``user.email`` confirmed it (and it has not changed
    since)."""
    if not getattr(user, "is_authenticated", False) or not user.email:
        return False
    return AccountProfile.objects.filter(
        user=user, email=user.email.lower(), verified_at__isnull=False
    ).exists()


def account_address_in_use(*, address: str) -> bool:
    """Whether any account holds ``address`` (case-insensitively)."""
    return (
        get_user_model().objects.filter(email__iexact=address).exists()
        or AccountProfile.objects.filter(email=address.lower()).exists()
    )


def verified_addresses(*, addresses) -> set[str]:
    """Those of ``addresses`` that belong to an active account whose owner confirmed
    them (compared in lower case)."""
    wanted = {address.lower() for address in addresses if address}
    if not wanted:
        return set()
    rows = AccountProfile.objects.filter(
        email__in=wanted, verified_at__isnull=False, user__is_active=True
    ).values_list("email", "user__email")
    # Verified only while the account still has the address that was confirmed.
    found = {email for email, current in rows if current.lower() == email}
    return {address for address in addresses if address and address.lower() in found}
