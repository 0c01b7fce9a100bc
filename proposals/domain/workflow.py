"""The review workflow as data: which status may follow which, and who may move it.

Pure Python (no Django). The services consult :func:`check_transition` before they
write anything, so an illegal move leaves no trace in the database.
"""

from __future__ import annotations

from .i18n import Labels, gettext, gettext_noop

DRAFT = "draft"
SUBMITTED = "submitted"
CHANGES_REQUESTED = "changes_requested"
READY = "ready"
# The applicant edited a proposal that staff were reviewing or had marked ready: the
# revision staff looked at is no longer what the applicant would submit.
CHANGED_IN_REVIEW = "changed_in_review"
CHANGED_SINCE_READY = "changed_since_ready"
# The endings: nothing follows them, and the queue's default view leaves them out.
SUBMITTED_TO_PORTAL = "submitted_to_portal"  # staff record it once the applicant has
WITHDRAWN = "withdrawn"  # the applicant withdrew it (or deleted it) after review
CLOSED = "closed"  # staff closed it, with the reason in the note
STATUSES = (
    DRAFT,
    SUBMITTED,
    CHANGES_REQUESTED,
    READY,
    CHANGED_IN_REVIEW,
    CHANGED_SINCE_READY,
    SUBMITTED_TO_PORTAL,
    WITHDRAWN,
    CLOSED,
)
TERMINAL = (SUBMITTED_TO_PORTAL, WITHDRAWN, CLOSED)
# Who owes the next step while a proposal is under review.
WAITING_FOR_STAFF = (SUBMITTED, CHANGED_IN_REVIEW)
WAITING_FOR_APPLICANT = (CHANGES_REQUESTED, READY, CHANGED_SINCE_READY)
UNDER_REVIEW = WAITING_FOR_STAFF + WAITING_FOR_APPLICANT

APPLICANT = "applicant"
STAFF = "staff"

# (from, to) -> the role allowed to make the move. Anything else is refused.
TRANSITIONS: dict[tuple[str, str], str] = {
    (DRAFT, SUBMITTED): APPLICANT,
    (CHANGES_REQUESTED, SUBMITTED): APPLICANT,
    (SUBMITTED, CHANGES_REQUESTED): STAFF,
    (SUBMITTED, READY): STAFF,
    (READY, CHANGES_REQUESTED): STAFF,
    # An edit after sending or after "ready" is recorded as a move by the applicant.
    (SUBMITTED, CHANGED_IN_REVIEW): APPLICANT,
    (READY, CHANGED_SINCE_READY): APPLICANT,
    (CHANGED_IN_REVIEW, SUBMITTED): APPLICANT,
    (CHANGED_SINCE_READY, SUBMITTED): APPLICANT,
    (CHANGED_IN_REVIEW, CHANGES_REQUESTED): STAFF,
    (CHANGED_SINCE_READY, CHANGES_REQUESTED): STAFF,
    (READY, SUBMITTED_TO_PORTAL): STAFF,
    **{(status, WITHDRAWN): APPLICANT for status in UNDER_REVIEW},
    **{(status, CLOSED): STAFF for status in UNDER_REVIEW},
}

# Moves that need a note, and what to write in it.
NOTE_REQUIRED = Labels(
    {
        CHANGES_REQUESTED: gettext_noop(
            "Say what should change: the note is what the applicant reads."
        ),
        CLOSED: gettext_noop("Give the reason for closing the proposal."),
    }
)

# The status an edit of the applicant's text moves a proposal to (none: it stays).
AFTER_EDIT: dict[str, str] = {
    SUBMITTED: CHANGED_IN_REVIEW,
    READY: CHANGED_SINCE_READY,
}


class IllegalTransition(Exception):
    """A status change that the workflow does not allow (or not for this role)."""


def allowed_targets(current: str, role: str) -> list[str]:
    """The statuses ``role`` may move a proposal to from ``current``, in order."""
    return [target for target in STATUSES if TRANSITIONS.get((current, target)) == role]


def status_after_edit(current: str) -> str | None:
    """The status a proposal moves to when its applicant edits it, or ``None``."""
    return AFTER_EDIT.get(current)


def note_problem(target: str, note: str) -> str:
    """What is missing from the note of a move to ``target`` (blank: nothing)."""
    return NOTE_REQUIRED.get(target, "") if not note.strip() else ""


def check_transition(current: str, target: str, role: str) -> None:
    """Raise :class:`IllegalTransition` unless ``role`` may make this move."""
    allowed_role = TRANSITIONS.get((current, target))
    if allowed_role is None:
        raise IllegalTransition(
            gettext("A proposal cannot go from {current} to {target}.").format(
                current=repr(current), target=repr(target)
            )
        )
    if allowed_role != role:
        raise IllegalTransition(
            gettext(
                "Only {role} may move a proposal from {current} to {target}."
            ).format(role=allowed_role, current=repr(current), target=repr(target))
        )
