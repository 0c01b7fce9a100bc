"""Every write. Keyword-only arguments, one transaction each."""

import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django_tasks import task

from proposals import assess, domain, notifications, selectors
from proposals.domain import jsonformat, workflow
from proposals.models import (
    CodeEntry,
    JobType,
    OutgoingMail,
    PendingImport,
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewState,
    ScalingMeasurement,
    StatusChange,
    UsageMonth,
)

logger = logging.getLogger(__name__)


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
    """The change (an edit, or an upload checked earlier) was based on an older
    revision than the one stored; ``current`` is the stored one."""

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
# Import of a file in the JSON format: a new proposal, or a new revision of one.
# --------------------------------------------------------------------------------------


def _write_children(*, proposal: Proposal, rows: assess.ImportRows) -> None:
    """Insert every row with one ``bulk_create`` per table (codes first, so that the
    measurements can point at them)."""
    for model, items in rows.children():
        for item in items:
            item.proposal = proposal
        if model is ScalingMeasurement:
            for item, index in zip(items, rows.measurement_codes, strict=True):
                item.code = None if index is None else rows.codes[index]
        model.objects.bulk_create(items)


@transaction.atomic
def proposal_import(*, owner, document: domain.Proposal) -> Proposal:
    """Create a proposal for ``owner`` from a parsed document, all or nothing.

    Everything is validated in memory first (``domain.FormatError`` with every
    problem's JSON path, and nothing written); then a fixed number of queries
    writes it, however many rows it has."""
    rows = assess.document_rows(document, systems=assess.system_ids())
    proposal = Proposal.objects.create(owner=owner, **rows.values)
    _write_children(proposal=proposal, rows=rows)
    return proposal


@transaction.atomic
def proposal_import_revision(
    *, proposal: Proposal, document: domain.Proposal, expected_revision: int
) -> Proposal:
    """Replace ``proposal``'s content and rows with ``document`` as its next revision.

    Raises ``RevisionConflict`` when the proposal is no longer at
    ``expected_revision`` (edited after the file was checked), so a confirmation
    never overwrites changes the applicant has not seen; ``domain.FormatError`` when
    the document does not fit. Either way nothing is written."""
    rows = assess.document_rows(document, systems=assess.system_ids())
    _bump_revision(proposal=proposal, expected_revision=expected_revision)
    Proposal.objects.filter(pk=proposal.pk).update(**rows.values)
    # Measurements first: then deleting the codes has nothing to detach.
    for model in (ScalingMeasurement, CodeEntry, JobType, UsageMonth):
        model.objects.filter(proposal=proposal).delete()
    _write_children(proposal=proposal, rows=rows)
    proposal.refresh_from_db()
    return proposal


class PendingImportError(Exception):
    """A checked upload that cannot be confirmed (the message says why)."""


def pending_import_create(
    *, owner, proposal: Proposal, document: domain.Proposal
) -> str:
    """Keep a checked file on the server until ``owner`` confirms it; return the
    random token that names it. Expired ones are deleted on the way."""
    PendingImport.objects.filter(
        created_at__lt=timezone.now() - PendingImport.LIFETIME
    ).delete()
    token = secrets.token_urlsafe(32)
    PendingImport.objects.create(
        token=token, owner=owner, proposal=proposal, document=jsonformat.dump(document)
    )
    return token


@transaction.atomic
def pending_import_confirm(
    *, owner, proposal: Proposal, token: str, expected_revision: int
) -> Proposal:
    """Import the file kept under ``token`` as the next revision of ``proposal``.

    Only its owner can confirm it, only into the proposal it was checked for, and
    only before it expires (``PendingImportError``). On ``RevisionConflict`` the file
    is kept, so the applicant can look again and confirm."""
    pending = (
        PendingImport.objects.select_for_update()
        .filter(token=token, owner=owner, proposal=proposal)
        .first()
    )
    if pending is None:
        raise PendingImportError(
            "This checked file is not available (it was used or belongs to another "
            "upload). Upload the file again."
        )
    if pending.expired:
        minutes = int(PendingImport.LIFETIME.total_seconds() // 60)
        raise PendingImportError(
            f"This checked file has expired: a file waits {minutes} minutes for "
            "confirmation. Upload it again."
        )
    updated = proposal_import_revision(
        proposal=proposal,
        document=jsonformat.parse(pending.document),
        expected_revision=expected_revision,
    )
    pending.delete()
    return updated


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


# Admin rights of the support staff: they see the mail delivery and retry failed mails.
# Everything else they do in the review pages; the applicant's content is read-only in
# the admin for everyone.
STAFF_ADMIN_PERMISSIONS = ["view_outgoingmail", "change_outgoingmail"]


def staff_group_grant_rights(*, using: str = "default") -> None:
    """Create the support staff group if needed and give it its admin rights."""
    group, _ = Group.objects.using(using).get_or_create(name=selectors.STAFF_GROUP)
    permissions = Permission.objects.using(using).filter(
        content_type__app_label="proposals", codename__in=STAFF_ADMIN_PERMISSIONS
    )
    group.permissions.add(*permissions)


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
    mail_queue(
        mails=notifications.submission_to_staff(
            revision=revision, link_base=_link_base(link_base)
        ),
        proposal=proposal,
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
    mail_queue(
        mails=notifications.status_to_applicant(
            change=change, link_base=_link_base(link_base)
        ),
        proposal=proposal,
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
        mails = notifications.comment_to_applicant(comment=comment, link_base=base)
    elif not is_staff:
        mails = notifications.reply_to_staff(comment=comment, link_base=base)
    else:
        mails = []
    mail_queue(mails=mails, proposal=proposal)
    return comment


# --------------------------------------------------------------------------------------
# Outgoing mail: stored with the action, sent by the task worker, retried with backoff.
# --------------------------------------------------------------------------------------

RETRY_BASE_DELAY = timedelta(minutes=1)  # then 2, 4, 8 minutes between attempts


@task()
def deliver_mail(mail_id: int) -> str:
    """The worker's task (``manage.py db_worker``): send one stored e-mail."""
    return mail_deliver(mail_id=mail_id)


def _enqueue_delivery(mail_ids, *, delay: timedelta | None = None) -> None:
    task = deliver_mail
    if delay is not None:
        task = deliver_mail.using(run_after=timezone.now() + delay)
    for mail_id in mail_ids:
        task.enqueue(mail_id)


def _enqueue_after_commit(mail_ids) -> None:
    """Hand the mails to the worker once the action is committed. ``robust``: if even
    that fails, the action stands and the mails wait, queued, for a retry in the
    admin."""
    if mail_ids:
        transaction.on_commit(lambda: _enqueue_delivery(mail_ids), robust=True)


def mail_queue(*, mails, proposal=None) -> list[OutgoingMail]:
    """Store ``mails`` (``notifications.Mail``) in the caller's transaction and send
    them from the worker after the commit; the caller's action never waits for, or
    fails with, the mail server."""
    stored = OutgoingMail.objects.bulk_create(
        OutgoingMail(
            to=mail.to, subject=mail.subject, body=mail.body, proposal=proposal
        )
        for mail in mails
    )
    _enqueue_after_commit([mail.pk for mail in stored])
    return stored


def mail_deliver(*, mail_id: int) -> str:
    """Send one stored mail (the worker's task). A failure is recorded on the mail and
    retried later with a doubling delay, up to ``OutgoingMail.MAX_ATTEMPTS`` attempts
    in all; then the mail is marked failed for staff to see and retry. The exception is
    raised again, so the task's own record shows the failure too."""
    error = None
    with transaction.atomic():
        mail = OutgoingMail.objects.select_for_update().filter(pk=mail_id).first()
        if mail is None or mail.status == OutgoingMail.Status.SENT:
            return "nothing to send"
        mail.attempts += 1
        mail.last_attempt_at = timezone.now()
        message = EmailMessage(
            mail.subject, mail.body, settings.DEFAULT_FROM_EMAIL, [mail.to]
        )
        try:
            message.send()
        except Exception as exc:  # any backend error: SMTP, socket, TLS, DNS
            error = exc
            mail.last_error = f"{type(exc).__name__}: {exc}"[:2000]
            if mail.attempts < OutgoingMail.MAX_ATTEMPTS:
                mail.status = OutgoingMail.Status.RETRYING
                delay = RETRY_BASE_DELAY * 2 ** (mail.attempts - 1)
                _enqueue_delivery([mail.pk], delay=delay)
            else:
                mail.status = OutgoingMail.Status.FAILED
        else:
            mail.status = OutgoingMail.Status.SENT
            mail.sent_at = mail.last_attempt_at
        mail.save(
            update_fields=[
                "attempts",
                "last_attempt_at",
                "last_error",
                "status",
                "sent_at",
            ]
        )
    if error is not None:
        logger.warning("Mail %s to %s not sent: %s", mail.pk, mail.to, mail.last_error)
        raise error
    return mail.status


@transaction.atomic
def mail_retry(*, mails) -> int:
    """Staff's "retry": give every unsent mail in ``mails`` a fresh round of
    attempts, starting now. Returns how many were queued again."""
    ids = [
        mail.pk
        for mail in mails.select_for_update().exclude(status=OutgoingMail.Status.SENT)
    ]
    OutgoingMail.objects.filter(pk__in=ids).update(
        status=OutgoingMail.Status.QUEUED, attempts=0
    )
    _enqueue_after_commit(ids)
    return len(ids)
