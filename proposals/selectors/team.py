"""What the Team page and the invitation pages read."""

from dataclasses import dataclass

from django.utils import timezone

from proposals.domain.team import Role
from proposals.models import (
    Invitation,
    Membership,
    NotificationMute,
    Proposal,
    TeamEvent,
)

# The Team page lists this many of the latest changes (the admin keeps them all).
TEAM_EVENTS_SHOWN = 100


@dataclass(frozen=True)
class Member:
    user: object
    role: str
    since: object
    membership: Membership | None  # ``None`` for the owner


@dataclass(frozen=True)
class Team:
    members: list[Member]  # the owner first, then by seniority
    invitations: list[Invitation]  # open ones, newest first (expired ones too)
    events: list[TeamEvent]
    muted: bool  # the reader switched this proposal's mail off


def owner_since(proposal: Proposal):
    """When the owner became the owner: the last handing-over, else creation."""
    last = (
        TeamEvent.objects.filter(proposal=proposal, kind=TeamEvent.Kind.TRANSFERRED)
        .values_list("at", flat=True)
        .first()
    )
    return last or proposal.created_at


def team_members(proposal: Proposal) -> list[Member]:
    """The owner, then the members from the longest-standing."""
    members = []
    if proposal.owner_id is not None:
        members.append(
            Member(proposal.owner, Role.OWNER.value, owner_since(proposal), None)
        )
    for membership in Membership.objects.filter(proposal=proposal).select_related(
        "user"
    ):
        members.append(
            Member(membership.user, membership.role, membership.since, membership)
        )
    return members


def team_of(*, proposal: Proposal, reader) -> Team:
    """Everything the Team page shows to ``reader`` (a member of the team)."""
    return Team(
        members=team_members(proposal),
        invitations=list(
            Invitation.objects.filter(
                proposal=proposal, accepted_at__isnull=True, revoked_at__isnull=True
            ).select_related("invited_by")
        ),
        events=list(TeamEvent.objects.filter(proposal=proposal)[:TEAM_EVENTS_SHOWN]),
        muted=NotificationMute.objects.filter(
            proposal=proposal, user_id=reader.pk
        ).exists(),
    )


def invitations_waiting(*, user) -> list[Invitation]:
    """Open, unexpired invitations to ``user``'s address, for proposals that
    still exist and that they are not on yet."""
    if not getattr(user, "is_authenticated", False) or not user.email:
        return []
    return list(
        Invitation.objects.filter(
            email__iexact=user.email,
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
            proposal__deleted_at__isnull=True,
        )
        .exclude(proposal__owner=user)
        .exclude(proposal__memberships__user=user)
        .select_related("proposal", "invited_by")
    )
