"""Every write. Keyword-only arguments, one transaction each."""

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from proposals import accounts, assess, notifications, selectors
from proposals.domain import jsonformat, workflow
from proposals.models import (
    AccountProfile,
    CodeEntry,
    JobType,
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewState,
    ScalingMeasurement,
    StatusChange,
    UsageMonth,
)


@transaction.atomic
def proposal_create(
    *, owner, title: str, call_family: str = "", system=None
) -> Proposal:
    """Create a draft with one code entry ready for the main training loop."""
    proposal = Proposal.objects.create(
        owner=owner,
        title=title,
        call_family=call_family or Proposal.CallFamily.INDUSTRIAL_INNOVATION,
        system=system,
    )
    CodeEntry.objects.create(proposal=proposal, role=CodeEntry.Role.MAIN, position=0)
    return proposal


class RevisionConflict(Exception):
    """The change was based on an older revision than the one stored."""

    def __init__(self, current: int):
        super().__init__(f"The proposal is at revision {current}.")
        self.current = current


def _bump_revision(*, proposal: Proposal, expected_revision: int) -> int:
    """Advance the revision if it is still ``expected_revision`` (atomic, race-free)."""
    updated = Proposal.objects.filter(
        pk=proposal.pk, revision=expected_revision
    ).update(revision=F("revision") + 1, updated_at=timezone.now())
    if not updated:
        current = Proposal.objects.values_list("revision", flat=True).get(
            pk=proposal.pk
        )
        raise RevisionConflict(current)
    proposal.revision = expected_revision + 1
    return proposal.revision


@dataclass
class SaveOutcome:
    revision: int
    saved: list = field(default_factory=list)  # (instance, field names)
    refused: list = field(default_factory=list)  # forms whose values contradict


@transaction.atomic
def proposal_save_changes(
    *, proposal: Proposal, expected_revision: int, changes: list
) -> SaveOutcome:
    """Store validated changes (``wizard.Change``) if the revision still matches.

    Nothing is written on a conflict. A row whose new values together break a database
    constraint is skipped (and reported) while the others are saved. Saved values are
    applied to the in-memory objects too, so the same request can assess the result.
    """
    if not changes:
        if expected_revision != proposal.revision:
            raise RevisionConflict(proposal.revision)
        return SaveOutcome(revision=proposal.revision)
    outcome = SaveOutcome(
        revision=_bump_revision(proposal=proposal, expected_revision=expected_revision)
    )
    for change in changes:
        model = type(change.instance)
        try:
            with transaction.atomic():
                model.objects.filter(pk=change.instance.pk).update(**change.values)
        except IntegrityError:
            outcome.refused.append(change.form)
            continue
        for name, value in change.values.items():
            setattr(change.instance, name, value)
        outcome.saved.append((change.instance, sorted(change.values)))
    return outcome


ROW_MODELS = {
    "codes": CodeEntry,
    "measurements": ScalingMeasurement,
    "jobs": JobType,
    "schedule": UsageMonth,
}


@transaction.atomic
def proposal_add_row(*, proposal: Proposal, expected_revision: int, kind: str):
    """Append a blank row of ``kind``; measurements inherit the previous unit and
    hardware, so a scaling table is quick to fill in."""
    model = ROW_MODELS[kind]
    rows = model.objects.filter(proposal=proposal)
    last = rows.order_by("-position", "-id").first()
    values = {"proposal": proposal, "position": (last.position + 1) if last else 0}
    if kind == "codes":
        values["role"] = CodeEntry.Role.OTHER if last else CodeEntry.Role.MAIN
    if kind == "measurements" and last is not None:
        values.update(unit=last.unit, hardware=last.hardware, code_id=last.code_id)
    if kind == "schedule" and last is not None and last.to_month:
        values.update(from_month=last.to_month + 1, to_month=last.to_month + 1)
    _bump_revision(proposal=proposal, expected_revision=expected_revision)
    return model.objects.create(**values)


@transaction.atomic
def proposal_delete_row(*, proposal: Proposal, expected_revision: int, row) -> None:
    _bump_revision(proposal=proposal, expected_revision=expected_revision)
    row.delete()


@transaction.atomic
def proposal_move_row(
    *, proposal: Proposal, expected_revision: int, row, direction: int
) -> None:
    """Swap ``row`` with its neighbour above (-1) or below (+1); renumber positions."""
    model = type(row)
    rows = list(model.objects.filter(proposal=proposal).order_by("position", "id"))
    index = next(i for i, other in enumerate(rows) if other.pk == row.pk)
    other = index + direction
    if not 0 <= other < len(rows):
        return
    _bump_revision(proposal=proposal, expected_revision=expected_revision)
    rows[index], rows[other] = rows[other], rows[index]
    for position, item in enumerate(rows):
        item.position = position
    model.objects.bulk_update(rows, ["position"])


@dataclass(frozen=True)
class RowAction:
    """A table operation requested with a step's data: add, delete, up or down."""

    action: str
    kind: str
    row: object = None


@transaction.atomic
def proposal_save_step(
    *, proposal: Proposal, expected_revision: int, changes: list, row_action=None
):
    """Store a step's changes and then its row operation, both or neither.

    Returns ``(outcome, new_row)``; raises ``RevisionConflict`` with nothing written
    when the proposal moved on since ``expected_revision``.
    """
    outcome = proposal_save_changes(
        proposal=proposal, expected_revision=expected_revision, changes=changes
    )
    if row_action is None:
        return outcome, None
    revision = outcome.revision
    if row_action.action == "add":
        row = proposal_add_row(
            proposal=proposal, expected_revision=revision, kind=row_action.kind
        )
        return outcome, row
    if row_action.action == "delete":
        proposal_delete_row(
            proposal=proposal, expected_revision=revision, row=row_action.row
        )
    else:
        proposal_move_row(
            proposal=proposal,
            expected_revision=revision,
            row=row_action.row,
            direction=-1 if row_action.action == "up" else 1,
        )
    return outcome, None


# --------------------------------------------------------------------------------------
# Staff review: submission, status changes and comments.
# --------------------------------------------------------------------------------------


class ReviewError(Exception):
    """A review action that is not allowed (the message says why)."""


def _link_base(link_base: str) -> str:
    return link_base.rstrip("/")


def _set_status(*, proposal, to_status: str, by, note: str, revision=None):
    """Record the change and move the proposal (the caller checked the workflow)."""

    now = timezone.now()
    change = StatusChange.objects.create(
        proposal=proposal,
        from_status=proposal.status,
        to_status=to_status,
        by=by,
        note=note,
        revision=revision,
    )
    # A status change is not an edit of the applicant's text: leave ``revision`` and
    # ``updated_at`` alone.
    Proposal.objects.filter(pk=proposal.pk).update(status=to_status)
    proposal.status = to_status
    ReviewState.objects.filter(proposal=proposal).update(status_changed_at=now)
    return change


def _locked(proposal: Proposal) -> Proposal:
    """Re-read the proposal's status under a row lock (no lost updates)."""
    proposal.status = (
        Proposal.objects.select_for_update()
        .values_list("status", flat=True)
        .get(pk=proposal.pk)
    )
    return proposal


@transaction.atomic
def review_submit(*, proposal: Proposal, user, note: str = "", link_base: str = ""):
    """Send the proposal for review: store an immutable snapshot (JSON format plus
    the assessment summary), record the status change and tell the staff.

    Findings, even errors, do not block the submission; the confirmation page lists
    them. Only the owner may submit, from draft or after changes were requested."""

    if proposal.owner_id != user.pk:
        raise ReviewError("Only the applicant can send this proposal for review.")
    _locked(proposal)
    try:
        workflow.check_transition(
            proposal.status, workflow.SUBMITTED, workflow.APPLICANT
        )
    except workflow.IllegalTransition as exc:
        raise ReviewError(str(exc)) from exc

    loaded = assess.with_children(Proposal.objects.filter(pk=proposal.pk)).get()
    catalogue = assess.catalogue_from_db()
    document = jsonformat.dump(assess.proposal_to_domain(loaded))
    assessment = assess.assess_proposal(loaded, catalogue)
    counts = assessment.counts
    last = (
        ProposalRevision.objects.filter(proposal=proposal)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    revision = ProposalRevision.objects.create(
        proposal=proposal,
        number=(last or 0) + 1,
        snapshot=document,
        tier=assessment.tier or "",
        recommended_tier=assessment.recommended_tier or "",
        system=loaded.system,
        total_gpu_hours=loaded.total_gpu_hours,
        error_count=counts["error"],
        warning_count=counts["warning"],
        info_count=counts["info"],
        findings=[finding.to_dict() for finding in assessment.findings],
        created_by=user,
    )
    now = timezone.now()
    ReviewState.objects.update_or_create(
        proposal=proposal,
        defaults={
            "latest_revision": revision,
            "submitted_at": now,
            "status_changed_at": now,
        },
    )
    _set_status(
        proposal=proposal,
        to_status=workflow.SUBMITTED,
        by=user,
        note=note,
        revision=revision,
    )
    transaction.on_commit(
        lambda: notifications.submission_to_staff(
            revision=revision, link_base=_link_base(link_base)
        )
    )
    return revision


@transaction.atomic
def review_set_status(
    *, proposal: Proposal, user, to_status: str, note: str = "", link_base: str = ""
):
    """Staff move a submitted proposal on (ready, or changes requested), with a
    note for the applicant. Anything the workflow does not allow is refused and
    leaves no record."""

    if not selectors.user_is_support_staff(user=user):
        raise ReviewError("Only support staff can change the review status.")
    _locked(proposal)
    try:
        workflow.check_transition(proposal.status, to_status, workflow.STAFF)
    except workflow.IllegalTransition as exc:
        raise ReviewError(str(exc)) from exc
    state = ReviewState.objects.filter(proposal=proposal).first()
    change = _set_status(
        proposal=proposal,
        to_status=to_status,
        by=user,
        note=note.strip(),
        revision=state.latest_revision if state else None,
    )
    transaction.on_commit(
        lambda: notifications.status_to_applicant(
            change=change, link_base=_link_base(link_base)
        )
    )
    return change


@transaction.atomic
def comment_add(
    *,
    proposal: Proposal,
    author,
    section: str,
    body: str,
    field: str = "",
    parent=None,
    staff_only: bool = False,
    link_base: str = "",
):
    """Add a comment (or a reply) on one section of a proposal.

    Staff may comment on any proposal sent for review and may keep a note internal
    (``staff_only``); a reply to an internal note stays internal. The applicant may
    comment on their own proposal and reply to what they can see; their comments are
    never internal. The other side is told by e-mail."""

    is_staff = selectors.user_is_support_staff(user=author)
    is_owner = proposal.owner_id == author.pk
    if not (is_staff or is_owner):
        raise ReviewError("You cannot comment on this proposal.")
    body = body.strip()
    if not body:
        raise ReviewError("Write something first.")
    if section not in ReviewComment.Section.values:
        raise ReviewError("Unknown section.")
    if parent is not None:
        if parent.proposal_id != proposal.pk:
            raise ReviewError("That comment belongs to another proposal.")
        if parent.parent_id:
            parent = parent.parent  # one level of replies: answer the thread
        if parent.staff_only and not is_staff:
            raise ReviewError("You cannot reply to that comment.")
        section, field = parent.section, parent.field
    staff_only = is_staff and (staff_only or (parent is not None and parent.staff_only))
    state = ReviewState.objects.filter(proposal=proposal).first()
    comment = ReviewComment.objects.create(
        proposal=proposal,
        author=author,
        section=section,
        field=field.strip(),
        body=body,
        parent=parent,
        staff_only=staff_only,
        by_staff=is_staff,
        revision=state.latest_revision if state else None,
    )
    base = _link_base(link_base)
    if is_staff and not staff_only:
        transaction.on_commit(
            lambda: notifications.comment_to_applicant(comment=comment, link_base=base)
        )
    elif not is_staff:
        transaction.on_commit(
            lambda: notifications.reply_to_staff(comment=comment, link_base=base)
        )
    return comment


# --------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------

# What a sign-up did. The page after a sign-up is the same for all three; only the
# e-mail sent to the address differs.
SIGNUP_CREATED = "created"
SIGNUP_ADDRESS_IN_USE = "address in use"
SIGNUP_USERNAME_TAKEN = "username taken"

# A sign-up whose link was never followed: inactive, never logged in, unverified.
_PENDING = Q(is_active=False, last_login=None, account__verified_at=None)


class AccountError(Exception):
    """An account change that cannot be made; the message is for the user."""


def _address_in_use(address: str) -> bool:
    """Whether any account holds ``address`` (case-insensitively)."""
    return (
        get_user_model().objects.filter(email__iexact=address).exists()
        or AccountProfile.objects.filter(email=address).exists()
    )


def account_signup(*, username: str, email: str, password: str, link_base: str = ""):
    """Create an inactive account and mail the link that activates it, or mail the
    address why no account was made. One account per address (case-insensitive),
    guaranteed by the unique ``AccountProfile.email``. A new sign-up with the address
    of an unconfirmed one replaces it; unconfirmed sign-ups expire with their link."""
    User = get_user_model()
    address = email.strip().lower()
    base = _link_base(link_base)
    with transaction.atomic():
        expired = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
        User.objects.filter(_PENDING).filter(
            Q(account__email=address) | Q(date_joined__lt=expired)
        ).delete()
        user = None
        if _address_in_use(address):
            outcome = SIGNUP_ADDRESS_IN_USE
        elif User.objects.filter(username__iexact=username).exists():
            outcome = SIGNUP_USERNAME_TAKEN
        else:
            try:
                with transaction.atomic():
                    user = User.objects.create_user(
                        username=username,
                        email=User.objects.normalize_email(email.strip()),
                        password=password,
                        is_active=False,
                    )
                    AccountProfile.objects.create(user=user, email=address)
            except IntegrityError:  # a sign-up racing for the same address or name
                user = None
                taken = AccountProfile.objects.filter(email=address).exists()
                outcome = SIGNUP_ADDRESS_IN_USE if taken else SIGNUP_USERNAME_TAKEN
            else:
                outcome = SIGNUP_CREATED
        if outcome == SIGNUP_CREATED:
            transaction.on_commit(
                lambda: accounts.send_verification(user=user, link_base=base)
            )
        elif outcome == SIGNUP_ADDRESS_IN_USE:
            transaction.on_commit(
                lambda: accounts.send_address_in_use(address=address, link_base=base)
            )
        else:
            transaction.on_commit(
                lambda: accounts.send_username_taken(
                    address=address, username=username, link_base=base
                )
            )
    return outcome


@transaction.atomic
def account_verify(*, user) -> None:
    """Record that the owner of ``user.email`` confirmed it; a new account becomes
    active."""
    address = user.email.strip().lower()
    if not address:
        raise AccountError("This account has no e-mail address to confirm.")
    if AccountProfile.objects.filter(email=address).exclude(user=user).exists():
        raise AccountError(
            "This address belongs to another account. Ask the support staff to "
            "merge or change the accounts."
        )
    AccountProfile.objects.update_or_create(
        user=user, defaults={"email": address, "verified_at": timezone.now()}
    )
    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])


def account_send_verification(*, user, link_base: str = "") -> bool:
    """Mail ``user`` a new link for their address, unless it is verified already;
    whether a link was sent."""
    if not user.email or selectors.account_is_verified(user=user):
        return False
    accounts.send_verification(user=user, link_base=_link_base(link_base))
    return True
