"""A proposal's team: its members besides the owner, invitations, the record of
every change to the team, who switched notifications off, who has the proposal
open, who changed each field last, and the organisations a staff member declared
a conflict of interest with.

The owner of record is ``Proposal.owner`` (exactly one, never a membership row):
a membership gives an editor or a viewer role (``domain.team``)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from proposals.domain.team import INVITABLE_ROLES, Role

from .proposal import Proposal

ROLE_LABELS = {
    Role.OWNER: _("Owner"),
    Role.EDITOR: _("Editor"),
    Role.VIEWER: _("Viewer"),
}

# How a person whose account was deleted is named wherever their past part in a
# proposal shows (its team's record, who changed a field last).
FORMER_MEMBER = _("former member")


def display_name(user) -> str:
    """How the team pages and the records name a person."""
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def member_name(user) -> str:
    """How a page names a person of a proposal's team: ``display_name``, or
    "former member" once their account was deleted (``None``), never "None"."""
    return display_name(user) if user is not None else str(FORMER_MEMBER)


def _member_roles():
    return [(role.value, ROLE_LABELS[role]) for role in INVITABLE_ROLES]


class Membership(models.Model):
    """A person who writes (editor) or reads (viewer) a proposal with its owner."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=8, choices=_member_roles())
    since = models.DateTimeField()

    class Meta:
        ordering = ["since", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "user"], name="membership_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in INVITABLE_ROLES]),
                name="membership_role_valid",
            ),
        ]
        indexes = [models.Index(fields=["user", "proposal"])]

    def __str__(self):
        return f"{self.user} is {self.role} of {self.proposal_id}"


class Invitation(models.Model):
    """An e-mail invitation to join a proposal's team. Its link (a secret token,
    of which only the SHA-256 is stored) works for ``domain.team.INVITATION_DAYS``
    days, once, for the account with the invited address."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="invitations"
    )
    email = models.EmailField()
    role = models.CharField(max_length=8, choices=_member_roles())
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in INVITABLE_ROLES]),
                name="invitation_role_valid",
            ),
        ]

    def __str__(self):
        return f"invitation of {self.email} to {self.proposal_id}"

    @property
    def expired(self) -> bool:
        return self.expires_at <= timezone.now()


class TeamEvent(models.Model):
    """One change to a proposal's team, as the Team page lists it: who did it,
    when, what, and to whom. Names are kept as they were when a person leaves
    the team; when a person deletes their account, their name is removed from
    the record (``by_name`` and a ``subject`` that named them become blank), as
    the privacy notice says, and the record shows a "former member"."""

    class Kind(models.TextChoices):
        # What the admin lists; the Team page says each as a sentence of its own
        # (templates/proposals/_team_event.html).
        INVITED = "invited", _("Invitation sent")
        REVOKED = "revoked", _("Invitation revoked")
        JOINED = "joined", _("Joined")
        ROLE_CHANGED = "role_changed", _("Role changed")
        REMOVED = "removed", _("Member removed")
        LEFT = "left", _("Left the team")
        TRANSFERRED = "transferred", _("Ownership handed over")
        ACCOUNT_DELETED = "account_deleted", _("Account deleted")

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="team_events"
    )
    at = models.DateTimeField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    by_name = models.CharField(max_length=150, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # The person (or address) the change was about, and a role when it matters.
    subject = models.CharField(max_length=254, blank=True)
    role = models.CharField(max_length=8, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self):
        return f"{self.by_name} {self.kind} {self.subject} on {self.proposal_id}"

    @property
    def by_label(self) -> str:
        """Who did it, as the record shows it: "former member" once their account
        was deleted (its name is removed with it)."""
        return self.by_name or str(FORMER_MEMBER)

    @property
    def subject_label(self) -> str:
        """Whom it was about: blank for a change about nobody else (left the
        team, deleted their account), "former member" when the name was removed
        with that person's account."""
        if self.kind in (
            self.Kind.JOINED,
            self.Kind.LEFT,
            self.Kind.ACCOUNT_DELETED,
        ):
            return self.subject
        return self.subject or str(FORMER_MEMBER)


class NotificationMute(models.Model):
    """A member (owner included) who switched off the mail about one proposal."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="notification_mutes"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "user"], name="notification_mute_unique"
            )
        ]

    def __str__(self):
        return f"{self.user} muted {self.proposal_id}"


class Presence(models.Model):
    """Who has a proposal open, on which step, as of their last page load or
    autosave: the step page lists the others seen recently."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="presences"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    step = models.CharField(max_length=32)
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["proposal", "user"], name="presence_unique")
        ]

    def __str__(self):
        return f"{self.user} on {self.step} of {self.proposal_id}"


class FieldStamp(models.Model):
    """Who saved a field last, and when: ``key`` names the field of the proposal
    (``title``) or of a row (``jobs:<row id>:gpus_per_job``). ``user`` is empty
    once that person's account is deleted (a "former member")."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="field_stamps"
    )
    key = models.CharField(max_length=96)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "key"], name="field_stamp_unique"
            )
        ]

    def __str__(self):
        return f"{self.key} of {self.proposal_id} by {self.user_id} at {self.at}"

    @property
    def by_label(self) -> str:
        """Who saved the field last: their name, or "former member" once their
        account was deleted."""
        if self.user is None:
            return str(FORMER_MEMBER)
        return self.user.get_full_name() or self.user.get_username()


class StaffConflict(models.Model):
    """An organisation a staff member declared a conflict of interest with: its
    proposals are treated as if the staff member were on their team."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="declared_conflicts",
    )
    # As the staff member typed it; matched by ``domain.team.organisation_key``.
    organisation = models.CharField(_("Organisation"), max_length=200)
    key = models.CharField(max_length=200, editable=False)
    declared_at = models.DateTimeField()

    class Meta:
        ordering = ["organisation"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "key"], name="staff_conflict_unique"
            )
        ]

    def __str__(self):
        return f"{self.user} declared a conflict with {self.organisation}"
