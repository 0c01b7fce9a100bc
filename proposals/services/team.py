"""A proposal's team: invitations, roles, removals, leaving, handing ownership
over, and each member's notification switch. Every change is recorded as a
``TeamEvent`` (who, when, what) in the same transaction; the invitation mail is
stored with it and sent by the worker.

Only the owner manages the team (``Capability.MANAGE``); the services check it
themselves, whatever the view checked before."""

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from proposals import notifications, selectors
from proposals.domain.team import (
    INVITABLE_ROLES,
    INVITATION_DAYS,
    Capability,
    Role,
    allows,
)
from proposals.models import (
    Invitation,
    Membership,
    NotificationMute,
    Presence,
    Proposal,
    TeamEvent,
)
from proposals.models.team import display_name, member_name  # noqa: F401 (here too)

from .mail import mail_queue


class TeamError(Exception):
    """A team change that cannot be made; the message says why, for the person."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _record(proposal, by, kind, subject: str = "", role: str = "") -> TeamEvent:
    return TeamEvent.objects.create(
        proposal=proposal,
        at=timezone.now(),
        by=by,
        by_name=display_name(by),
        kind=kind,
        subject=subject,
        role=role,
    )


def _lock(proposal: Proposal) -> Proposal:
    """The proposal's row locked: one team change at a time per proposal."""
    return Proposal.objects.select_for_update().get(pk=proposal.pk)


def _require(user, proposal, capability=Capability.MANAGE) -> str:
    role = selectors.team_role(user=user, proposal=proposal)
    if not allows(role, capability):
        raise TeamError(_("Only the proposal's owner can change its team."))
    return role


def _check_role(role: str) -> Role:
    if role not in {r.value for r in INVITABLE_ROLES}:
        raise TeamError(_("Choose editor or viewer."))
    return Role(role)


@transaction.atomic
def team_invite(*, proposal: Proposal, by, email: str, role: str) -> str:
    """Invite ``email`` to ``proposal``'s team as ``role``; returns the link's
    secret token (only its hash is stored). An earlier open invitation of the
    same address is replaced (its link stops working)."""
    _require(by, _lock(proposal))
    role = _check_role(role)
    email = email.strip().lower()  # as accounts keep addresses
    User = get_user_model()
    existing = User.objects.filter(email__iexact=email, is_active=True)
    if proposal.owner_id and existing.filter(pk=proposal.owner_id).exists():
        raise TeamError(_("That address is the owner's."))
    if Membership.objects.filter(proposal=proposal, user__email__iexact=email).exists():
        raise TeamError(_("That person is already on the team."))
    now = timezone.now()
    Invitation.objects.filter(
        proposal=proposal,
        email__iexact=email,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
    ).update(revoked_at=now)
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        proposal=proposal,
        email=email,
        role=role.value,
        token_hash=token_hash(token),
        invited_by=by,
        created_at=now,
        expires_at=now + timedelta(days=INVITATION_DAYS),
    )
    _record(proposal, by, TeamEvent.Kind.INVITED, email, role.value)
    mail_queue(
        mails=notifications.invitation_to_person(
            invitation=invitation, token=token, by=by
        ),
        proposal=proposal,
    )
    return token


def invitation_for_token(token: str) -> Invitation | None:
    """The invitation whose link carries ``token`` (any state), or ``None``."""
    if not token or len(token) > 100:
        return None
    return (
        Invitation.objects.select_related("proposal", "invited_by")
        .filter(token_hash=token_hash(token))
        .first()
    )


def invitation_problem(invitation: Invitation | None, user) -> str:
    """Why ``user`` cannot accept ``invitation`` (blank: they can)."""
    if invitation is None:
        return _("This invitation link is not valid. Ask for a new one.")
    if invitation.revoked_at is not None:
        return _("This invitation was revoked or replaced by a newer one.")
    if invitation.accepted_at is not None:
        return _("This invitation was already accepted.")
    if invitation.expires_at <= timezone.now():
        return _("This invitation has expired. Ask the owner for a new one.")
    if invitation.proposal.deleted_at is not None:
        return _("The proposal of this invitation was deleted.")
    if (user.email or "").casefold() != invitation.email.casefold():
        return _(
            "This invitation was sent to %(email)s. Log in with the account of that "
            "address (or sign up with it) to accept it."
        ) % {"email": invitation.email}
    if not selectors.account_is_verified(user=user):
        return _(
            "Confirm your e-mail address first (with the link we sent you), then "
            "accept the invitation."
        )
    return ""


@transaction.atomic
def invitation_accept(*, invitation: Invitation, user) -> Membership:
    """``user`` joins the team with the role of ``invitation`` (found by its
    link's token, or among those waiting for the user's confirmed address)."""
    locked = (
        Invitation.objects.select_for_update()
        .select_related("proposal")
        .filter(pk=invitation.pk)
        .first()
    )
    problem = invitation_problem(locked, user)
    if problem:
        raise TeamError(problem)
    assert locked is not None  # invitation_problem refuses a missing one
    invitation = locked
    proposal = _lock(invitation.proposal)
    if selectors.team_role(user=user, proposal=proposal) is not None:
        raise TeamError(_("You are already on this proposal's team."))
    now = timezone.now()
    try:
        with transaction.atomic():
            membership = Membership.objects.create(
                proposal=proposal, user=user, role=invitation.role, since=now
            )
    except IntegrityError:
        raise TeamError(_("You are already on this proposal's team.")) from None
    invitation.accepted_at = now
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    _record(proposal, user, TeamEvent.Kind.JOINED, role=invitation.role)
    return membership


@transaction.atomic
def invitation_revoke(*, invitation: Invitation, by) -> None:
    _require(by, _lock(invitation.proposal))
    updated = Invitation.objects.filter(
        pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    if not updated:
        raise TeamError(_("This invitation was already accepted or revoked."))
    _record(invitation.proposal, by, TeamEvent.Kind.REVOKED, invitation.email)


def _forget(proposal, user) -> None:
    """What the team kept about a person who leaves it (not their past edits)."""
    NotificationMute.objects.filter(proposal=proposal, user=user).delete()
    Presence.objects.filter(proposal=proposal, user=user).delete()


@transaction.atomic
def member_set_role(*, membership: Membership, role: str, by) -> None:
    _require(by, _lock(membership.proposal))
    role = _check_role(role)
    updated = Membership.objects.filter(pk=membership.pk).update(role=role.value)
    if not updated:
        raise TeamError(_("That person is no longer on the team."))
    membership.role = role.value
    _record(
        membership.proposal,
        by,
        TeamEvent.Kind.ROLE_CHANGED,
        display_name(membership.user),
        role.value,
    )


@transaction.atomic
def member_remove(*, membership: Membership, by) -> None:
    """The owner removes a member, or a member leaves (``by`` is the member)."""
    proposal = _lock(membership.proposal)
    leaving = by is not None and by.pk == membership.user_id
    if not leaving:
        _require(by, proposal)
    deleted, _rows = Membership.objects.filter(pk=membership.pk).delete()
    if not deleted:
        raise TeamError(_("That person is no longer on the team."))
    _forget(proposal, membership.user)
    if leaving:
        _record(proposal, by, TeamEvent.Kind.LEFT)
    else:
        _record(proposal, by, TeamEvent.Kind.REMOVED, display_name(membership.user))


@transaction.atomic
def ownership_transfer(*, proposal: Proposal, to: Membership, by) -> None:
    """Hand ``proposal`` to the member ``to``; the owner stays as an editor. The
    whole team is told by mail."""
    proposal = _lock(proposal)
    if by is not None:
        _require(by, proposal)
    member = (
        Membership.objects.select_related("user")
        .filter(pk=to.pk, proposal=proposal)
        .first()
    )
    if member is None:
        raise TeamError(_("That person is no longer on the team."))
    to = member
    previous = proposal.owner
    now = timezone.now()
    to.delete()
    if previous is not None and previous.is_active:
        Membership.objects.create(
            proposal=proposal, user=previous, role=Role.EDITOR.value, since=now
        )
    Proposal.objects.filter(pk=proposal.pk).update(owner=to.user)
    proposal.owner = to.user
    _record(proposal, by, TeamEvent.Kind.TRANSFERRED, display_name(to.user))
    mail_queue(
        mails=notifications.ownership_to_team(proposal=proposal, by=by, to=to.user),
        proposal=proposal,
    )


@transaction.atomic
def team_notifications_set(*, proposal: Proposal, user, on: bool) -> None:
    """Switch ``user``'s mail about ``proposal`` on or off."""
    if selectors.team_role(user=user, proposal=proposal) is None:
        raise TeamError(_("You are not on this proposal's team."))
    if on:
        NotificationMute.objects.filter(proposal=proposal, user=user).delete()
    else:
        NotificationMute.objects.get_or_create(proposal=proposal, user=user)
