"""Writes of the applicant's wizard: create a proposal, save a step's changes field by
field (each against the value the page showed), and row operations."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import F, Model
from django.utils import timezone

from proposals.domain import workflow
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

from .review import review_record_edit, review_withdraw


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


def _advance(rows, proposal: Proposal, *, edit: bool = True, **values) -> int:
    """Advance the revision of ``rows`` (the proposal, possibly filtered on the
    revision a page was based on) and store ``values``; return how many rows moved.

    Every write of the applicant's content passes here, so this is also where an
    ``edit`` of a proposal under review or ready to submit is recorded (its status
    changes, staff are told). A draft costs one query: the update first matches only
    the statuses an edit leaves alone."""
    bump = {"revision": F("revision") + 1, "updated_at": timezone.now(), **values}
    updated = rows.exclude(status__in=list(workflow.AFTER_EDIT)).update(**bump)
    if not updated:
        updated = rows.update(**bump)
        if updated and edit:
            review_record_edit(proposal=proposal)
    return updated


def _bump_revision(*, proposal: Proposal, expected_revision: int) -> int:
    """Advance the revision if it is still ``expected_revision`` (atomic, race-free);
    a proposal changed meanwhile is a :class:`RevisionConflict`."""
    rows = Proposal.objects.filter(pk=proposal.pk, revision=expected_revision)
    if not _advance(rows, proposal):
        current = Proposal.objects.values_list("revision", flat=True).get(
            pk=proposal.pk
        )
        raise RevisionConflict(current)
    proposal.revision = expected_revision + 1
    return proposal.revision


def canonical(value) -> str:
    """A stored or typed value as the text two tabs compare: ``""`` for nothing,
    ``18176`` for ``Decimal("18176.00")``, the primary key of a related object."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, Model):
        return str(value.pk)
    return str(value)


@dataclass(frozen=True)
class FieldConflict:
    """The same field was changed elsewhere since this page saw it: nothing stored."""

    instance: object
    name: str
    mine: object
    theirs: object


@dataclass
class SaveOutcome:
    revision: int
    saved: list = field(default_factory=list)  # (instance, field names)
    refused: list = field(default_factory=list)  # changes whose values contradict
    conflicts: list = field(default_factory=list)  # FieldConflict
    gone: list = field(default_factory=list)  # changes to rows removed elsewhere
    row_gone: bool = False  # the row operation's row was removed elsewhere
    row_changed: object = None  # RowChanged: a delete not done, for the person


def _bump(
    proposal: Proposal,
    *,
    locked_revision: int | None = None,
    edit: bool = True,
    **values,
) -> int:
    """Advance the revision (and store ``values``; see :func:`_advance`). With
    ``locked_revision`` (read under ``select_for_update`` in this transaction) the
    new number is known without reading it back."""
    rows = Proposal.objects.filter(pk=proposal.pk)
    if locked_revision is not None:
        # Read locked in this transaction: its status is the stored one, so the
        # update need not test it (an edit after submission is still recorded).
        bump = {"revision": locked_revision + 1, "updated_at": timezone.now()}
        rows.update(**bump, **values)
        if edit and proposal.status in workflow.AFTER_EDIT:
            review_record_edit(proposal=proposal)
        proposal.revision = locked_revision + 1
        return proposal.revision
    _advance(rows, proposal, edit=edit, **values)
    proposal.revision = Proposal.objects.values_list("revision", flat=True).get(
        pk=proposal.pk
    )
    return proposal.revision


@transaction.atomic(savepoint=False)
def proposal_save_changes(
    *,
    proposal: Proposal,
    changes: list,
    refused: dict | None = None,
    cleared: set | frozenset = frozenset(),
    locked: bool = False,
) -> SaveOutcome:
    """Store validated changes (``wizard.Change``), field by field.

    Each change carries, per field, the value the page showed (``bases``): a field
    stored differently since then was changed elsewhere, and is refused as a
    ``FieldConflict`` unless both sides typed the same; every other field is saved,
    so tabs editing different fields (or steps) both keep their work. A row whose new
    values together break a database constraint is skipped (and reported). Saved
    values are applied to the in-memory objects too, so the same request can assess
    the result.

    ``refused`` (input name -> what was typed and why it was refused) replaces the
    entries of the inputs in ``cleared`` in ``Proposal.refused_inputs``.

    Queries: the proposal is locked and its revision read (``locked``: ``proposal``
    was read with ``select_for_update`` in this transaction); when that is still the
    revision ``proposal`` was read at (every write advances it), the objects in
    memory are the stored ones and nothing more is read. The proposal's own fields
    are stored by the same UPDATE that advances the revision (their bounds are
    single-field checks the forms make); a row's by its own UPDATE, in a savepoint
    (a row's values together may break a constraint, which refuses that row only).
    """
    # One writer per proposal at a time: the comparison and the write are atomic.
    if locked:
        stored_refused, locked_revision = proposal.refused_inputs, proposal.revision
    else:
        stored_refused, locked_revision = (
            Proposal.objects.select_for_update()
            .values_list("refused_inputs", "revision")
            .get(pk=proposal.pk)
        )
    unchanged_since_read = locked_revision == proposal.revision
    outcome = SaveOutcome(revision=proposal.revision)
    own_values = {}
    for change in changes:
        model = type(change.instance)
        names = {name: model._meta.get_field(name).attname for name in change.values}
        if unchanged_since_read:
            current = {
                attname: getattr(change.instance, attname) for attname in names.values()
            }
        else:
            current = (
                model.objects.filter(pk=change.instance.pk)
                .values(*names.values())
                .first()
            )
        if current is None:
            outcome.gone.append(change)
            continue
        values = {}
        for name, value in change.values.items():
            theirs = current[names[name]]
            base = change.bases.get(name)
            if base is not None and canonical(theirs) not in (base, canonical(value)):
                outcome.conflicts.append(
                    FieldConflict(change.instance, name, value, theirs)
                )
                continue
            values[name] = value
        if not values:
            continue
        if change.instance is proposal:
            own_values.update(values)
        else:
            try:
                with transaction.atomic():
                    model.objects.filter(pk=change.instance.pk).update(**values)
            except IntegrityError:
                outcome.refused.append(change)
                continue
        for name, value in values.items():
            setattr(change.instance, name, value)
        outcome.saved.append((change.instance, sorted(values)))
    remembered = {
        key: entry
        for key, entry in (stored_refused or {}).items()
        if key not in cleared
    }
    remembered.update({key: _storable(entry) for key, entry in (refused or {}).items()})
    extra = dict(own_values)
    if remembered != (stored_refused or {}):
        extra["refused_inputs"] = remembered
    proposal.refused_inputs = remembered
    if outcome.saved or extra:
        # Only refused text remembered: nothing a reviewer sees has changed.
        outcome.revision = _bump(
            proposal,
            locked_revision=locked_revision,
            edit=bool(outcome.saved),
            **extra,
        )
    return outcome


def _storable(entry: dict) -> dict:
    """A refused input as ``refused_inputs`` can keep it: PostgreSQL's JSON holds
    no NUL character, so one typed (or quoted in the message) is kept as U+FFFD
    (the input is refused anyway; what is shown back marks where it was)."""
    return {
        key: value.replace("\x00", "\ufffd") if isinstance(value, str) else value
        for key, value in entry.items()
    }


def proposal_mark_visited(*, proposal: Proposal, step: str) -> None:
    """Remember that the applicant opened ``step`` (once; not a change of content,
    so the revision stays)."""
    if step in (proposal.visited_steps or []):
        return
    proposal.visited_steps = [*(proposal.visited_steps or []), step]
    Proposal.objects.filter(pk=proposal.pk).update(visited_steps=proposal.visited_steps)


ROW_MODELS = {
    "codes": CodeEntry,
    "measurements": ScalingMeasurement,
    "jobs": JobType,
    "schedule": UsageMonth,
}


@transaction.atomic
def proposal_add_row(*, proposal: Proposal, kind: str):
    """Append a blank row of ``kind`` after every stored row (rows added in other tabs
    included); measurements inherit the previous unit and hardware, so a scaling
    table is quick to fill in."""
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
    _bump(proposal)
    return model.objects.create(**values)


def _forget_row(proposal: Proposal, kind: str, pk) -> dict:
    """``refused_inputs`` without the entries of row ``kind-pk``."""
    prefix = f"{kind}-{pk}-"
    return {
        key: entry
        for key, entry in (proposal.refused_inputs or {}).items()
        if not key.startswith(prefix)
    }


@dataclass(frozen=True)
class RowChanged:
    """A stored row whose fields differ from what a page showed (``fields``: name,
    the value the page showed as text, the stored value): changed elsewhere."""

    row: object
    fields: tuple


def row_changes_since(row, shown: dict | None) -> RowChanged | None:
    """How stored ``row`` differs from ``shown`` (field name -> the value a page
    showed, as :func:`canonical` text), the same comparison a field's save makes;
    ``None`` when it does not (fields the page did not show are not compared)."""
    fields = tuple(
        (name, base, getattr(row, type(row)._meta.get_field(name).attname))
        for name, base in (shown or {}).items()
        if base is not None
        and canonical(getattr(row, type(row)._meta.get_field(name).attname)) != base
    )
    return RowChanged(row, fields) if fields else None


def _locked_row(proposal: Proposal, kind: str, pk):
    """Row ``pk`` of ``kind`` as stored now, read after locking the proposal (one
    writer per proposal: nothing changes it before this transaction ends)."""
    Proposal.objects.select_for_update().filter(pk=proposal.pk).values("pk").get()
    return ROW_MODELS[kind].objects.filter(proposal=proposal, pk=pk).first()


@transaction.atomic
def proposal_delete_row(
    *, proposal: Proposal, kind: str, row, shown: dict | None = None
) -> RowChanged | None:
    """Remove ``row`` (and what was typed into it and refused), unless it was
    changed since the page that asks showed it (``shown``: see
    :func:`row_changes_since`): then nothing is removed and the changes are
    returned, for the person to choose."""
    stored = _locked_row(proposal, kind, row.pk)
    if stored is None:
        return None
    changed = row_changes_since(stored, shown)
    if changed is not None:
        return changed
    proposal.refused_inputs = _forget_row(proposal, kind, row.pk)
    _bump(proposal, refused_inputs=proposal.refused_inputs)
    stored.delete()
    return None


@transaction.atomic
def proposal_move_row(
    *, proposal: Proposal, row, direction: int, shown_neighbour=None
) -> None:
    """Move ``row`` past its neighbour above (-1) or below (+1), rows added in other
    tabs included; renumber positions. ``shown_neighbour``: the row the page showed
    there; if another tab has since put other rows between them, ``row`` goes just
    past that one (what the person saw and asked for); if it was removed, past the
    stored neighbour."""
    model = type(row)
    rows = list(
        model.objects.select_for_update()
        .filter(proposal=proposal)
        .order_by("position", "id")
    )
    index = next((i for i, other in enumerate(rows) if other.pk == row.pk), None)
    if index is None:  # removed meanwhile
        return
    target = index + direction
    shown = next(
        (i for i, other in enumerate(rows) if other.pk == shown_neighbour), None
    )
    if shown is not None and (shown - index) * direction > 0:
        target = shown  # still on the side the page showed it
    if not 0 <= target < len(rows):
        return
    _bump(proposal)
    moved = rows.pop(index)
    rows.insert(target, moved)
    for position, item in enumerate(rows):
        item.position = position
    model.objects.bulk_update(rows, ["position"])


def gone_prefix(kind: str, pk) -> str:
    """The inputs' prefix of row ``pk`` of ``kind`` (``jobs-17``)."""
    return f"{kind}-{pk}"


@transaction.atomic
def proposal_restore_row(
    *, proposal: Proposal, kind: str, pk, values: dict, refused: dict | None = None
):
    """Add back a row removed elsewhere that this person had edited: a new row of
    ``kind`` after every stored one, with ``values`` (validated), and what was typed
    into it and refused (``refused``, field name -> entry). What was kept of the
    removed row ``pk`` (``refused_inputs``) is forgotten. Values that together break
    a database rule add nothing and forget nothing: ``None``."""
    model = ROW_MODELS[kind]
    Proposal.objects.select_for_update().filter(pk=proposal.pk).values("pk").get()
    last = model.objects.filter(proposal=proposal).order_by("-position", "-id").first()
    position = (last.position + 1) if last else 0
    try:
        with transaction.atomic():
            row = model.objects.create(proposal=proposal, position=position, **values)
    except IntegrityError:
        return None  # values that contradict each other: kept, as they were
    remembered = _forget_row(proposal, kind, pk)
    prefix = gone_prefix(kind, row.pk)
    remembered.update(
        {
            f"{prefix}-{name}": _storable(entry)
            for name, entry in (refused or {}).items()
        }
    )
    proposal.refused_inputs = remembered
    _bump(proposal, refused_inputs=remembered)
    return row


@transaction.atomic
def proposal_forget_row(*, proposal: Proposal, kind: str, pk) -> None:
    """Drop what was kept of row ``pk`` of ``kind`` (typed into a row removed
    elsewhere): the person chose not to add it back."""
    Proposal.objects.select_for_update().filter(pk=proposal.pk).values("pk").get()
    remembered = _forget_row(proposal, kind, pk)
    if remembered != (proposal.refused_inputs or {}):
        proposal.refused_inputs = remembered
        _bump(proposal, edit=False, refused_inputs=remembered)


ROW_OPERATIONS = ("add", "delete", "up", "down", "restore", "discard")


@dataclass(frozen=True)
class RowAction:
    """A table operation requested with a step's data: add, delete, up, down, or
    (for a row removed elsewhere) restore or discard. ``pk`` is the row's, ``shown``
    what the page showed of it (field name -> text), ``values`` and ``refused`` the
    validated values and the refused text of a row to restore, ``neighbour`` the
    row shown next to a row to move, on the side it moves to."""

    action: str
    kind: str
    pk: object = None
    shown: dict | None = None
    values: dict | None = None
    refused: dict | None = None
    neighbour: object = None  # the row a page showed next to the one it moves


@transaction.atomic(savepoint=False)
def proposal_save_step(
    *,
    proposal: Proposal,
    changes: list,
    refused: dict | None = None,
    cleared: set | frozenset = frozenset(),
    row_action: RowAction | None = None,
    locked: bool = False,
):
    """Store a step's changes (see ``proposal_save_changes``) and then its row
    operation, in one transaction. Returns ``(outcome, new_row)``; a row operation
    on a row removed elsewhere does nothing (``outcome.row_gone``), a delete of a
    row changed elsewhere neither (``outcome.row_changed``)."""
    outcome = proposal_save_changes(
        proposal=proposal,
        changes=changes,
        refused=refused,
        cleared=cleared,
        locked=locked,
    )
    if row_action is None:
        return outcome, None
    action, kind = row_action.action, row_action.kind
    new_row = None
    if action == "add":
        new_row = proposal_add_row(proposal=proposal, kind=kind)
    elif action == "restore":
        new_row = proposal_restore_row(
            proposal=proposal,
            kind=kind,
            pk=row_action.pk,
            values=row_action.values or {},
            refused=row_action.refused,
        )
    elif action == "discard":
        proposal_forget_row(proposal=proposal, kind=kind, pk=row_action.pk)
    else:
        row = _locked_row(proposal, kind, row_action.pk)
        if row is None:
            outcome.row_gone = True
        elif action == "delete":
            outcome.row_changed = proposal_delete_row(
                proposal=proposal, kind=kind, row=row, shown=row_action.shown
            )
        else:
            proposal_move_row(
                proposal=proposal,
                row=row,
                direction=-1 if action == "up" else 1,
                shown_neighbour=row_action.neighbour,
            )
    outcome.revision = proposal.revision
    return outcome, new_row


# --------------------------------------------------------------------------------------
# The applicant's filing: delete, archive, duplicate.
# --------------------------------------------------------------------------------------


def proposal_was_sent_for_review(*, proposal: Proposal) -> bool:
    """Whether ``proposal`` was ever sent for review (staff then keep it)."""
    return Proposal.objects.filter(pk=proposal.pk, review_state__isnull=False).exists()


@transaction.atomic
def proposal_delete(*, proposal: Proposal) -> bool:
    """Delete ``proposal`` for its owner. One that was ever sent for review is only
    marked deleted (its owner no longer sees it; staff keep its revisions and
    comments, and see it as withdrawn if it was under review); any other is removed
    with its rows. Returns whether it was kept."""
    if proposal_was_sent_for_review(proposal=proposal):
        proposal.deleted_at = timezone.now()
        Proposal.objects.filter(pk=proposal.pk).update(deleted_at=proposal.deleted_at)
        review_withdraw(proposal=proposal, note="Deleted by the applicant.")
        return True
    proposal.delete()
    return False


@transaction.atomic
def proposal_set_archived(*, proposal: Proposal, archived: bool) -> None:
    """Move ``proposal`` out of (or back into) its owner's default list. Filing is
    not an edit: the revision and "last change" stay as they were."""
    proposal.archived_at = timezone.now() if archived else None
    Proposal.objects.filter(pk=proposal.pk).update(archived_at=proposal.archived_at)


# Fields of a proposal that belong to this copy, not to the content.
_NOT_COPIED = {"id", "owner", "title", "status", "revision", "created_at", "updated_at"}
_NOT_COPIED |= {"archived_at", "deleted_at"}


def _content_values(instance, *, skip: set[str]) -> dict:
    """``instance``'s concrete field values (foreign keys as ids), except ``skip``."""
    return {
        field.attname: getattr(instance, field.attname)
        for field in type(instance)._meta.concrete_fields
        if field.name not in skip and field.attname not in skip
    }


@transaction.atomic
def proposal_duplicate(*, proposal: Proposal, owner, title: str) -> Proposal:
    """A new draft for ``owner`` called ``title`` with every value and every row of
    ``proposal`` (measurements keep pointing at the copies of their code entries);
    it starts at revision 1, with no review history."""
    copy = Proposal.objects.create(
        owner=owner,
        title=title,
        **_content_values(proposal, skip=_NOT_COPIED),
    )
    code_copies = {}
    for code in CodeEntry.objects.filter(proposal=proposal).order_by("position", "id"):
        new = CodeEntry.objects.create(
            proposal=copy, **_content_values(code, skip={"id", "proposal"})
        )
        code_copies[code.pk] = new.pk
    for model in (ScalingMeasurement, JobType, UsageMonth):
        rows = []
        for row in model.objects.filter(proposal=proposal).order_by("position", "id"):
            values = _content_values(row, skip={"id", "proposal"})
            if "code_id" in values:
                values["code_id"] = code_copies.get(values["code_id"])
            rows.append(model(proposal=copy, **values))
        model.objects.bulk_create(rows)
    return copy
