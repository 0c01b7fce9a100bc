"""An account's reads: its proposals, its addresses, its verification."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet

from proposals.assess import with_children
from proposals.domain.team import Role
from proposals.models import (
    AccountProfile,
    Membership,
    NotificationMute,
    Preferences,
    Proposal,
    ProposalRevision,
    ReviewComment,
    StatusChange,
)

from .compiled import PLACEHOLDERS, CompiledQuery


@dataclass(frozen=True)
class TeamHandover:
    """A proposal with a team, of a person who deletes their account: who takes
    it over (its longest-standing editor), or, with viewers only, nobody."""

    proposal: Proposal
    heir: Membership | None
    members: int


def account_team_handovers(*, user) -> list[TeamHandover]:
    """``user``'s proposals (not deleted) that have other members, oldest first,
    each with the member who becomes its owner if ``user`` deletes their account:
    the editor (of an active account) with the earliest ``Membership.since``.
    Two queries, however many proposals."""
    memberships = Membership.objects.select_related("user").order_by("since", "id")
    proposals = (
        Proposal.objects.filter(owner=user, deleted_at__isnull=True)
        .filter(Exists(Membership.objects.filter(proposal=OuterRef("pk"))))
        .prefetch_related(Prefetch("memberships", queryset=memberships))
        .order_by("created_at", "pk")
    )
    handovers = []
    for proposal in proposals:
        members = list(proposal.memberships.all())
        heir = next(
            (
                member
                for member in members
                if member.role == Role.EDITOR and member.user.is_active
            ),
            None,
        )
        handovers.append(TeamHandover(proposal, heir, len(members)))
    return handovers


def account_data_proposals(*, user) -> QuerySet[Proposal]:
    """Every proposal ``user`` owns, for the export of their data: archived ones, and
    deleted ones that the staff keep too; with their rows, team, revisions
    (snapshots included), status changes and the comments the applicant may read.
    A fixed number of queries, however many proposals."""
    return (
        with_children(Proposal.objects.filter(owner=user))
        .select_related("owner")
        .prefetch_related(
            Prefetch("memberships", queryset=Membership.objects.select_related("user")),
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


def account_memberships(*, user) -> QuerySet[Membership]:
    """The teams ``user`` is a member of (not as owner), for the export of their
    data: each with its proposal (deleted ones included), whether they switched
    its mail off (``muted``) and the comments they wrote on it. A fixed number of
    queries, however many."""
    mutes = NotificationMute.objects.filter(
        proposal=OuterRef("proposal"), user=OuterRef("user")
    )
    return (
        Membership.objects.filter(user=user)
        .select_related("proposal")
        .annotate(muted=Exists(mutes))
        .prefetch_related(
            Prefetch(
                "proposal__review_comments",
                queryset=ReviewComment.objects.filter(author=user).order_by(
                    "created_at", "id"
                ),
                to_attr="own_comments",
            )
        )
        .order_by("since", "id")
    )


def account_proposal_counts(*, user) -> dict[str, int]:
    """How many of ``user``'s proposals deleting the account removes (``drafts``:
    never sent for review) and keeps for the staff (``sent``), not counting those
    that go to an editor of their team (``account_team_handovers``); and how many
    others' proposals ``user`` is a member of (``member_of``). Two queries."""
    editor = Membership.objects.filter(
        proposal=OuterRef("pk"), role=Role.EDITOR.value, user__is_active=True
    )
    handed_over = Q(Exists(editor), deleted_at__isnull=True)
    counts = (
        Proposal.objects.filter(owner=user)
        .exclude(handed_over)
        .aggregate(
            drafts=Count("pk", filter=Q(review_state__isnull=True)),
            sent=Count("pk", filter=Q(review_state__isnull=False)),
        )
    )
    counts["member_of"] = Proposal.objects.filter(
        memberships__user=user, deleted_at__isnull=True
    ).count()
    return counts


def _preferences(user_id: int):
    return Preferences.objects.filter(user_id=user_id)


# Compiled once (read on every page a signed-in person sees).
_PREFERENCES = CompiledQuery(_preferences, arity=1)


def preferences_row(*, user_id: int) -> Preferences | None:
    """The person's ``Preferences`` row, or ``None`` (none stored): one query,
    for ``localization.preferences_of``."""
    return _PREFERENCES.first(user_id)


def account_is_verified(*, user) -> bool:
    """Whether the owner of ``user.email`` confirmed it (and it has not changed
    since)."""
    if not getattr(user, "is_authenticated", False) or not user.email:
        return False
    return _VERIFIED.first(user.pk, user.email.lower()) is not None


def _verified(user_id: int, email: str):
    return AccountProfile.objects.filter(
        user_id=user_id, email=email, verified_at__isnull=False
    ).only("pk")


# Compiled once (asked on every page a signed-in person sees).
_VERIFIED = CompiledQuery(_verified, placeholders=(PLACEHOLDERS[0], "\x00email"))


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


def account_provider_identities(*, user) -> list:
    """The OpenID Connect identities linked to ``user``, oldest first."""
    from proposals.models import ProviderIdentity

    return list(ProviderIdentity.objects.filter(user=user).order_by("linked_at"))


def address_confirmed(*, user) -> bool:
    """Whether mail to ``user`` reaches them: an active account with a confirmed
    address (``verified_addresses``)."""
    return bool(user.email and verified_addresses(addresses=[user.email]))
