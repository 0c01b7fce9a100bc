"""Writes of the review workflow: send for review, status changes, assessments and
assignments (the comments are in ``comments``)."""

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from proposals import assess, notifications, selectors
from proposals.domain import i18n, jsonformat, numbers, technical_review, workflow
from proposals.domain.team import Capability, allows, organisation_key
from proposals.models import (
    Preferences,
    Proposal,
    ProposalRevision,
    ReviewState,
    StaffConflict,
    StatusChange,
    TechnicalAssessment,
)
from proposals.models.preferences import StaffMail
from proposals.selectors import sending

from .mail import mail_queue

# --------------------------------------------------------------------------------------
# Staff review: submission, status changes and comments.
# --------------------------------------------------------------------------------------


class ReviewError(Exception):
    """A review action that is not allowed (the message says why)."""


class UnchangedSince(ReviewError):
    """Sending again what the staff already have: nothing was sent."""


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
    ReviewState.objects.filter(proposal=proposal).update(
        status_changed_at=now, last_activity_at=now
    )
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
def review_submit(*, proposal: Proposal, user, note: str = "", unchanged_ok=False):
    """Send the proposal for review: store an immutable snapshot (JSON format plus
    the assessment summary), record the status change and tell the staff.

    Findings, even errors, do not block the submission; the confirmation page lists
    them. Only the owner and the editors may submit, from draft or after changes
    were requested. Sending exactly what the latest revision holds is refused
    with :class:`UnchangedSince` unless the sender confirmed it
    (``unchanged_ok``)."""

    if not allows(selectors.team_role(user=user, proposal=proposal), Capability.SEND):
        raise ReviewError(
            _("Only the owner and the editors can send this proposal for review.")
        )
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
    latest = sending.latest_revision(proposal=proposal)
    if latest is not None and latest.snapshot == document and not unchanged_ok:
        raise UnchangedSince(sending.unchanged_message(latest))
    # The record keeps the findings in the portal's form and English, whoever
    # sends: each reader's page words them again in the reader's own format.
    with numbers.using(numbers.PORTAL), translation.override(settings.LANGUAGE_CODE):
        assessment = assess.assess_proposal(loaded, catalogue)
    counts = assessment.counts
    revision = ProposalRevision.objects.create(
        proposal=proposal,
        number=(latest.number if latest else 0) + 1,
        snapshot=document,
        tier=assessment.tier or "",
        recommended_tier=assessment.recommended_tier or "",
        system=loaded.system,
        total_gpu_hours=loaded.total_gpu_hours,
        error_count=counts["error"],
        warning_count=counts["warning"],
        info_count=counts["info"],
        findings=[finding.to_dict() for finding in assessment.findings],
        stamps=selectors.stamps_by_path(proposal=loaded),
        row_ids=selectors.row_ids_of(proposal=loaded),
        created_by=user,
    )
    now = timezone.now()
    state, _created = ReviewState.objects.update_or_create(
        proposal=proposal,
        defaults={
            "latest_revision": revision,
            "submitted_at": now,
            "status_changed_at": now,
            "last_activity_at": now,
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
        mails=notifications.submission_to_staff(revision=revision, state=state),
        proposal=proposal,
    )
    return revision


class StaleStatus(ReviewError):
    """The status changed since the page was shown: the message says who changed
    what, and when."""


def _check_not_stale(proposal: Proposal, expected_status: str) -> None:
    problem = selectors.review_stale_status(
        proposal=proposal, seen_status=expected_status
    )
    if problem:
        raise StaleStatus(problem)


def _check_no_conflict(proposal: Proposal, user) -> None:
    problem = selectors.review_conflict(user=user, proposal=proposal)
    if problem:
        raise ReviewError(problem)


@transaction.atomic
def review_set_status(
    *,
    proposal: Proposal,
    user,
    to_status: str,
    note: str = "",
    expected_status: str = "",
):
    """Staff move a submitted proposal on (ready, changes requested, submitted to
    the portal, closed), with a note for the applicant. Refused, leaving no
    record: anything the workflow does not allow; a decision by a staff member
    conflicted on the proposal (on its team, or declared a conflict with its
    organisation: ``selectors.review_conflict``); a move that needs a note without one
    ("changes requested", "closed", and "ready" while the latest revision has
    error findings); and, when ``expected_status`` (the status the staff member
    saw) is given, a proposal whose status changed since (saying who changed
    what)."""

    if not selectors.user_is_support_staff(user=user):
        raise ReviewError(_("Only support staff can change the review status."))
    _check_no_conflict(proposal, user)
    _locked(proposal)
    _check_not_stale(proposal, expected_status)
    try:
        workflow.check_transition(proposal.status, to_status, workflow.STAFF)
    except workflow.IllegalTransition as exc:
        raise ReviewError(str(exc)) from exc
    missing = workflow.note_problem(to_status, note)
    if missing:
        raise ReviewError(missing)
    state = (
        ReviewState.objects.select_related("latest_revision")
        .filter(proposal=proposal)
        .first()
    )
    errors = state.latest_revision.error_count if state else 0
    if state and to_status == workflow.READY and errors and not note.strip():
        raise ReviewError(
            ngettext(
                "Revision %(number)s has %(count)s open error finding: give the "
                "reason why it is ready anyway in the note.",
                "Revision %(number)s has %(count)s open error findings: give the "
                "reason why it is ready anyway in the note.",
                errors,
            )
            % {"number": state.latest_revision.number, "count": errors}
        )
    change = _set_status(
        proposal=proposal,
        to_status=to_status,
        by=user,
        note=note.strip(),
        revision=state.latest_revision if state else None,
    )
    mail_queue(
        mails=notifications.status_to_applicant(change=change),
        proposal=proposal,
    )
    return change


def review_record_edit(*, proposal: Proposal):
    """Record that the applicant edited a proposal staff were reviewing or had
    marked ready: move it to "changed during review" / "changed since ready" (with a
    status change in the audit trail) and tell the staff. Other statuses are left
    alone. Called inside the transaction of every write of the applicant's content,
    after the row lock that the revision check takes; returns the change or ``None``.
    """
    current = (
        Proposal.objects.select_for_update()
        .values_list("status", flat=True)
        .get(pk=proposal.pk)
    )
    target = workflow.status_after_edit(current)
    proposal.status = current
    if target is None:
        return None
    state = ReviewState.objects.filter(proposal=proposal).first()
    change = _set_status(
        proposal=proposal,
        to_status=target,
        by=proposal.owner,
        note="Edited by the applicant.",
        revision=state.latest_revision if state else None,
    )
    mail_queue(
        mails=notifications.edit_to_staff(change=change, state=state),
        proposal=proposal,
    )
    return change


def review_withdraw(*, proposal: Proposal, note: str):
    """Record that the applicant withdrew a proposal under review (deleting it
    does): staff see it as "withdrawn", out of the queue's default view, and its
    handler (or every staff member) is told. The applicant is not mailed: they no
    longer have the proposal. Called inside the caller's transaction; returns the
    change, or ``None`` when the proposal was not under review."""
    _locked(proposal)
    if proposal.status not in workflow.UNDER_REVIEW:
        return None
    state = (
        ReviewState.objects.select_related("handled_by")
        .filter(proposal=proposal)
        .first()
    )
    change = _set_status(
        proposal=proposal,
        to_status=workflow.WITHDRAWN,
        by=proposal.owner,
        note=note,
        revision=state.latest_revision if state else None,
    )
    mail_queue(
        mails=notifications.withdrawal_to_staff(change=change, state=state),
        proposal=proposal,
    )
    return change


class AssessmentProblems(ReviewError):
    """An assessment that cannot be recorded; ``problems`` maps each place
    (``outcome``, ``checklist``, ``item-<i>``, ``text``) to what is wrong there."""

    def __init__(self, problems: dict[str, str]):
        super().__init__(" ".join(problems.values()))
        self.problems = problems


@transaction.atomic
def review_assess(
    *,
    proposal: Proposal,
    user,
    revision: ProposalRevision,
    outcome: str,
    items: list[dict],
    text: str = "",
    request_changes: bool = False,
):
    """Record the technical assessment of ``revision`` (outcome, checklist with a
    decision per finding, short text). With ``request_changes`` the proposal also
    moves to "changes requested" with a note composed from the findings chosen for
    a change; nothing is written when either step is refused."""
    if not selectors.user_is_support_staff(user=user):
        raise ReviewError(_("Only support staff can assess a proposal."))
    _check_no_conflict(proposal, user)
    if revision.proposal_id != proposal.pk:
        raise ReviewError(_("That revision belongs to another proposal."))
    text = text.strip()
    problems = technical_review.problems(
        outcome, items, requesting_changes=request_changes
    )
    if len(text) > technical_review.MAX_TEXT:
        problems["text"] = _("Keep the assessment under %(limit)s characters.") % {
            "limit": technical_review.MAX_TEXT
        }
    elif technical_review.NUL in text:
        problems["text"] = i18n.gettext(technical_review.NUL_PROBLEM)
    if problems:
        raise AssessmentProblems(problems)
    assessment = TechnicalAssessment.objects.create(
        proposal=proposal,
        revision=revision,
        outcome=outcome,
        text=text,
        items=items,
        by=user,
    )
    if request_changes:  # the status mail carries the changes asked for
        review_set_status(
            proposal=proposal,
            user=user,
            to_status=workflow.CHANGES_REQUESTED,
            note=technical_review.change_request_note(items, text),
        )
    else:
        mails = notifications.assessment_mails(assessment=assessment, by=user)
        mail_queue(mails=mails, proposal=proposal)
    return assessment


class HandledByColleague(ReviewError):
    """Taking a proposal over from a colleague needs a confirmation; ``handler``
    is who has it."""

    def __init__(self, handler):
        name = handler.get_full_name() or handler.get_username()
        super().__init__(
            _("%(name)s handles this proposal. Take it over? %(name)s will be told.")
            % {"name": name}
        )
        self.handler = handler


# ``expected_handler`` when the caller does not say whom it expects to replace.
UNCHECKED = object()


@transaction.atomic
def review_assign(*, proposal: Proposal, user, to=None, expected_handler=UNCHECKED):
    """Say who handles a proposal sent for review: ``to`` a support staff member
    (``user`` themselves to take it, someone else to hand it over) or nobody
    (``None``: release it). A new handler other than ``user`` is told by e-mail;
    so is a colleague the proposal is taken from. Mails about the proposal then go
    to the handler rather than to every staff member.

    Taking a proposal that a colleague handles is refused with
    :class:`HandledByColleague` unless ``expected_handler`` names that colleague
    (the staff member confirmed, having seen who has it); a handler that changed
    in between is refused the same way. A staff member conflicted on the
    proposal (on its team, or declared a conflict with its organisation:
    ``selectors.review_conflict``) neither assigns it nor is handed it."""
    if not selectors.user_is_support_staff(user=user):
        raise ReviewError(_("Only support staff can assign a proposal."))
    _check_no_conflict(proposal, user)
    if to is not None and not (
        to.is_active and selectors.user_is_support_staff(user=to)
    ):
        raise ReviewError(_("A proposal can only be handed to a support staff member."))
    if to is not None:
        conflict = selectors.conflict_of(user=to, proposal=proposal)
        if conflict is not None:
            raise ReviewError(
                conflict.colleague_message(to.get_full_name() or to.get_username())
            )
    state = (
        # Lock the review state only: the handler is an outer join.
        ReviewState.objects.select_for_update(of=("self",))
        .select_related("latest_revision", "handled_by")
        .filter(proposal=proposal)
        .first()
    )
    if state is None:
        raise ReviewError(_("This proposal was never sent for review."))
    previous = state.handled_by
    taking_over = (
        to is not None
        and to.pk == user.pk
        and previous is not None
        and previous.pk != user.pk
    )
    if taking_over and expected_handler is not UNCHECKED:
        assert previous is not None  # one takes over from somebody
        expected_pk = getattr(expected_handler, "pk", expected_handler)
        if expected_pk != previous.pk:
            raise HandledByColleague(previous)
    elif taking_over:
        raise HandledByColleague(previous)
    ReviewState.objects.filter(pk=state.pk).update(handled_by=to)
    state.handled_by = to
    if to is not None:
        # "Only mine" becomes the default once a person handles something.
        prefs, _created = Preferences.objects.get_or_create(user=to)
        if prefs.staff_mail == StaffMail.AUTOMATIC:
            Preferences.objects.filter(pk=prefs.pk).update(staff_mail=StaffMail.MINE)
    mails = []
    if to is not None and to.pk != user.pk:
        mails += notifications.handover_to_staff(state=state, by=user)
    if previous is not None and previous.pk not in (user.pk, getattr(to, "pk", None)):
        mails += notifications.taken_from_staff(state=state, by=user, previous=previous)
    mail_queue(mails=mails, proposal=proposal)
    return state


# --------------------------------------------------------------------------------------
# A staff member's declared conflicts of interest (organisations).
# --------------------------------------------------------------------------------------


@transaction.atomic
def staff_conflict_declare(*, user, organisation: str) -> StaffConflict:
    """Record that staff member ``user`` has a conflict of interest with
    ``organisation`` (a name, or a VAT number): from now on its proposals are
    treated as if they were on the team (``selectors.review_conflict``). Refused:
    anybody outside the staff, a blank or over-long name, one already declared
    (compared by ``domain.team.organisation_key``: "Example AI Oy" and "example
    ai" are one organisation)."""
    if not selectors.user_is_support_staff(user=user):
        raise ReviewError(_("Only support staff declare conflicts of interest."))
    organisation = " ".join(organisation.replace(technical_review.NUL, "").split())
    key = organisation_key(organisation)
    if not key:
        raise ReviewError(_("Name the organisation, or give its VAT number."))
    limit = StaffConflict._meta.get_field("organisation").max_length
    assert limit is not None  # a CharField
    if len(organisation) > limit:
        raise ReviewError(
            _("Keep the name under %(limit)s characters.") % {"limit": limit}
        )
    existing = StaffConflict.objects.filter(user=user, key=key).first()
    if existing is not None:
        raise ReviewError(
            _("You already declared a conflict with %(organisation)s.")
            % {"organisation": existing.organisation}
        )
    return StaffConflict.objects.create(
        user=user, organisation=organisation, key=key, declared_at=timezone.now()
    )


@transaction.atomic
def staff_conflict_remove(*, user, pk) -> StaffConflict | None:
    """Withdraw one of ``user``'s declared conflicts (``None`` when they have no
    such declaration: nothing is removed)."""
    conflict = StaffConflict.objects.filter(user=user, pk=pk).first()
    if conflict is not None:
        conflict.delete()
    return conflict
