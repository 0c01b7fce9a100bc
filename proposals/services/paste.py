"""Writes of a pasted table: the rows it adds, in one step, and undoing exactly
those rows."""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from proposals.domain.sections import TABLE_BY_KIND
from proposals.models import Proposal

from .revisions import revision_bump
from .row_operations import (
    ROW_MODELS,
    locked_room,
    refused_without_row,
    row_changes_since,
)
from .stamps import fields_stamp, row_stamp_key, row_stamps_forget

# Domain value names that are stored under another attribute.
_ATTRIBUTES = {"code": "code_id"}


class PasteError(Exception):
    """The rows cannot be added (the table is full, or the values contradict a
    database rule); nothing was stored."""


@transaction.atomic
def proposal_paste_rows(
    *, proposal: Proposal, kind: str, rows: list[dict], by=None
) -> list:
    """Append ``rows`` (field name -> value, as :func:`domain.paste.read_paste`
    accepted them) after every stored row of ``kind``, in one transaction and one
    revision. Measurements without a code or hardware take those of the last stored
    measurement, as "+ Measurement" does. Returns the new rows' primary keys.
    ``by`` is noted as the one who set the pasted values."""
    model = ROW_MODELS[kind]
    # Counted under the proposal's lock (one writer per proposal at a time), so the
    # row limit holds with other tabs adding too.
    room = locked_room(proposal, kind)
    if not room.fits(len(rows)):
        raise PasteError(
            _(
                "The %(table)s has room for %(room)s more rows (at most %(most)s); "
                "%(pasted)s were pasted."
            )
            % {
                "table": TABLE_BY_KIND[kind].title.lower(),
                "room": room.left,
                "most": room.most,
                "pasted": len(rows),
            }
        )
    stored = model.objects.filter(proposal=proposal)
    last = stored.order_by("-position", "-id").first()
    start = last.position + 1 if last else 0
    inherited = {}
    if kind == "measurements" and last is not None:
        inherited = {"code_id": last.code_id, "hardware": last.hardware}
    objects = []
    for offset, values in enumerate(rows):
        attributes = {_ATTRIBUTES.get(k, k): v for k, v in values.items()}
        objects.append(
            model(
                proposal=proposal,
                position=start + offset,
                **{**inherited, **attributes},
            )
        )
    try:
        with transaction.atomic():
            created = model.objects.bulk_create(objects)
    except IntegrityError as error:
        raise PasteError(
            _("These values contradict each other; nothing was added.")
        ) from error
    revision_bump(proposal)
    fields_stamp(
        proposal=proposal,
        keys=[
            row_stamp_key(kind, row.pk, model._meta.get_field(name).name)
            for row, values in zip(created, rows, strict=True)
            for name in values
        ],
        by=by,
    )
    return [row.pk for row in created]


class PastedRowsChanged(Exception):
    """Rows of the paste to undo were changed since the page that asks showed them
    (``changed``: :class:`~proposals.services.row_operations.RowChanged`); nothing was
    removed."""

    def __init__(self, changed: list):
        super().__init__(f"{len(changed)} pasted rows were changed elsewhere.")
        self.changed = changed


@transaction.atomic
def proposal_undo_paste(
    *, proposal: Proposal, kind: str, pks: list, shown: dict | None = None
) -> int:
    """Remove the rows of one paste (those of ``pks`` that are still there, and what
    was typed into them and refused); returns how many were removed. With ``shown``
    (row id -> what the page showed of it, field name -> text), a row stored
    otherwise was changed elsewhere: then nothing is removed
    (:class:`PastedRowsChanged`), for the person to choose."""
    model = ROW_MODELS[kind]
    # One writer per proposal at a time: the comparison and the delete are atomic.
    Proposal.objects.select_for_update().filter(pk=proposal.pk).values("pk").get()
    rows = list(model.objects.filter(proposal=proposal, pk__in=list(pks)))
    found = [row.pk for row in rows]
    if not found:
        return 0
    if shown is not None:
        changed = [
            change
            for row in rows
            if (change := row_changes_since(row, shown.get(row.pk))) is not None
        ]
        if changed:
            raise PastedRowsChanged(changed)
    for pk in found:
        proposal.refused_inputs = refused_without_row(proposal, kind, pk)
    revision_bump(proposal, refused_inputs=proposal.refused_inputs)
    row_stamps_forget(proposal=proposal, kind=kind, pks=found)
    model.objects.filter(pk__in=found).delete()
    return len(found)
