"""The review workflow as data: which status may follow which, and who may move it.

Pure Python (no Django). The services consult :func:`check_transition` before they
write anything, so an illegal move leaves no trace in the database.
"""

from __future__ import annotations

DRAFT = "draft"
SUBMITTED = "submitted"
CHANGES_REQUESTED = "changes_requested"
READY = "ready"
STATUSES = (DRAFT, SUBMITTED, CHANGES_REQUESTED, READY)

APPLICANT = "applicant"
STAFF = "staff"

# (from, to) -> the role allowed to make the move. Anything else is refused.
TRANSITIONS: dict[tuple[str, str], str] = {
    (DRAFT, SUBMITTED): APPLICANT,
    (CHANGES_REQUESTED, SUBMITTED): APPLICANT,
    (SUBMITTED, CHANGES_REQUESTED): STAFF,
    (SUBMITTED, READY): STAFF,
    (READY, CHANGES_REQUESTED): STAFF,
}


class IllegalTransition(Exception):
    """A status change that the workflow does not allow (or not for this role)."""


def allowed_targets(current: str, role: str) -> list[str]:
    """The statuses ``role`` may move a proposal to from ``current``, in order."""
    return [target for target in STATUSES if TRANSITIONS.get((current, target)) == role]


def check_transition(current: str, target: str, role: str) -> None:
    """Raise :class:`IllegalTransition` unless ``role`` may make this move."""
    allowed_role = TRANSITIONS.get((current, target))
    if allowed_role is None:
        raise IllegalTransition(f"A proposal cannot go from {current!r} to {target!r}.")
    if allowed_role != role:
        raise IllegalTransition(
            f"Only {allowed_role} may move a proposal from {current!r} to {target!r}."
        )
