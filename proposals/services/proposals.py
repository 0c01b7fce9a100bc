"""Writes of the applicant's wizard: create a proposal, save a step's changes and
row operations, each against the revision the page was based on."""

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from proposals.domain import workflow
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

from .review import review_record_edit


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
    """Advance the revision if it is still ``expected_revision`` (atomic, race-free).

    Every write of the applicant's content passes here, so this is also where an
    edit of a proposal under review or ready to submit is recorded. The usual case
    (a draft) costs one query: the update only matches a status an edit leaves alone;
    when it misses, the second try tells a status to change from a conflict."""
    rows = Proposal.objects.filter(pk=proposal.pk, revision=expected_revision)
    bump = {"revision": F("revision") + 1, "updated_at": timezone.now()}
    updated = rows.exclude(status__in=list(workflow.AFTER_EDIT)).update(**bump)
    if not updated:
        updated = rows.update(**bump)
        if updated:
            # Sent for review or ready to submit: the edit changes the status.
            review_record_edit(proposal=proposal)
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
