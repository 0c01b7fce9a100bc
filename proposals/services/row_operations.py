"""Row operations of the applicant's tables: add, delete, move, and add back (or
forget) a row removed in another tab that this person had edited."""

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import ngettext

from proposals.domain import limits
from proposals.domain.bounds import MAX_MONTHS
from proposals.domain.sections import TABLE_BY_KIND
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

from .revisions import canonical, revision_bump, storable
from .stamps import fields_stamp, row_stamp_key, row_stamps_forget

# The model of each table's rows. Code reading a row by its kind uses that kind's
# fields, which a type checker cannot follow from the kind: to it a row is Any.
ROW_MODELS: dict[str, type[Any]] = {
    "codes": CodeEntry,
    "measurements": ScalingMeasurement,
    "jobs": JobType,
    "schedule": UsageMonth,
}


class TableFull(Exception):
    """Table ``room.kind`` has no room for ``adding`` more rows (the format's
    limit, ``limits.MAX_ROWS``): nothing was added. ``room`` is the table as
    stored, counted under the proposal's lock; the page says it beside the table
    (``wizard/controls.html#add_button``), ``message`` where there is no table (a copy)."""

    def __init__(self, room: limits.TableRoom, adding: int = 1, message: str = ""):
        self.room = room
        self.adding = adding
        self.message = (
            message
            or f"{room.kind}: {room.rows} of at most {room.most} rows, no room for "
            f"{adding} more"
        )
        super().__init__(self.message)


def copy_refused(room: limits.TableRoom) -> TableFull:
    """The refusal of a copy (duplicate, retargeted copy) of a proposal whose table
    holds more rows than the format allows (stored before every way in checked)."""
    message = ngettext(
        "%(table)s holds %(rows)s rows, more than the %(most)s the JSON format "
        "allows: remove %(over)s row before copying the proposal.",
        "%(table)s holds %(rows)s rows, more than the %(most)s the JSON format "
        "allows: remove %(over)s rows before copying the proposal.",
        room.over,
    ) % {
        "table": TABLE_BY_KIND[room.kind].title,
        "rows": room.rows,
        "most": room.most,
        "over": room.over,
    }
    return TableFull(room, adding=room.rows, message=message)


def locked_room(proposal: Proposal, kind: str) -> limits.TableRoom:
    """Table ``kind`` of ``proposal`` as stored now, counted after locking the
    proposal: one writer per proposal, so two tabs adding at once are counted one
    after the other and cannot both take the last place."""
    Proposal.objects.select_for_update().filter(pk=proposal.pk).values("pk").get()
    stored = ROW_MODELS[kind].objects.filter(proposal=proposal).count()
    return limits.TableRoom(kind, stored)


def ensure_room(proposal: Proposal, kind: str, adding: int = 1) -> limits.TableRoom:
    """:func:`locked_room`, or :class:`TableFull` when ``adding`` rows do not fit."""
    room = locked_room(proposal, kind)
    if not room.fits(adding):
        raise TableFull(room, adding)
    return room


@transaction.atomic
def proposal_add_row(*, proposal: Proposal, kind: str):
    """Append a blank row of ``kind`` after every stored row (rows added in other
    tabs included); measurements inherit the previous unit and hardware, so a
    scaling table is quick to fill in, and a period starts after the last one.
    :class:`TableFull` (nothing added) when the table holds as many rows as the
    format allows."""
    ensure_room(proposal, kind)
    model = ROW_MODELS[kind]
    rows = model.objects.filter(proposal=proposal)
    last = rows.order_by("-position", "-id").first()
    values = {"proposal": proposal, "position": (last.position + 1) if last else 0}
    if kind == "codes":
        values["role"] = CodeEntry.Role.OTHER if last else CodeEntry.Role.MAIN
    if kind == "measurements" and last is not None:
        values.update(unit=last.unit, hardware=last.hardware, code_id=last.code_id)
    if (
        kind == "schedule"
        and last is not None
        and last.to_month
        and last.to_month < MAX_MONTHS
    ):
        values.update(from_month=last.to_month + 1, to_month=last.to_month + 1)
    revision_bump(proposal)
    return model.objects.create(**values)


def refused_without_row(proposal: Proposal, kind: str, pk) -> dict:
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


def locked_row(proposal: Proposal, kind: str, pk):
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
    stored = locked_row(proposal, kind, row.pk)
    if stored is None:
        return None
    changed = row_changes_since(stored, shown)
    if changed is not None:
        return changed
    proposal.refused_inputs = refused_without_row(proposal, kind, row.pk)
    revision_bump(proposal, refused_inputs=proposal.refused_inputs)
    row_stamps_forget(proposal=proposal, kind=kind, pks=[row.pk])
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
    revision_bump(proposal)
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
    *,
    proposal: Proposal,
    kind: str,
    pk,
    values: dict,
    refused: dict | None = None,
    by=None,
):
    """Add back a row removed elsewhere that this person had edited: a new row of
    ``kind`` after every stored one, with ``values`` (validated), and what was typed
    into it and refused (``refused``, field name -> entry). What was kept of the
    removed row ``pk`` (``refused_inputs``) is forgotten. Values that together break
    a database rule add nothing and forget nothing: ``None``; so does a full
    table (:class:`TableFull`). ``by`` is noted as the one who set its values."""
    model = ROW_MODELS[kind]
    ensure_room(proposal, kind)
    last = model.objects.filter(proposal=proposal).order_by("-position", "-id").first()
    position = (last.position + 1) if last else 0
    try:
        with transaction.atomic():
            row = model.objects.create(proposal=proposal, position=position, **values)
    except IntegrityError:
        return None  # values that contradict each other: kept, as they were
    remembered = refused_without_row(proposal, kind, pk)
    prefix = gone_prefix(kind, row.pk)
    remembered.update(
        {f"{prefix}-{name}": storable(entry) for name, entry in (refused or {}).items()}
    )
    proposal.refused_inputs = remembered
    revision_bump(proposal, refused_inputs=remembered)
    fields_stamp(
        proposal=proposal,
        keys=[
            row_stamp_key(kind, row.pk, model._meta.get_field(name).name)
            for name in values
        ],
        by=by,
    )
    return row


@transaction.atomic
def proposal_forget_row(*, proposal: Proposal, kind: str, pk) -> None:
    """Drop what was kept of row ``pk`` of ``kind`` (typed into a row removed
    elsewhere): the person chose not to add it back."""
    Proposal.objects.select_for_update().filter(pk=proposal.pk).values("pk").get()
    remembered = refused_without_row(proposal, kind, pk)
    if remembered != (proposal.refused_inputs or {}):
        proposal.refused_inputs = remembered
        revision_bump(proposal, edit=False, refused_inputs=remembered)


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
