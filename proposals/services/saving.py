"""Saving a step: its changes field by field, each against the value the page
showed, then its row operation, in one transaction."""

from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace

from django.db import IntegrityError, transaction
from django.utils import timezone

from proposals.domain.bounds import MAX_GPU_HOURS
from proposals.models import Proposal

from .revisions import canonical, revision_bump, storable
from .row_operations import (
    RowAction,
    TableFull,
    locked_row,
    proposal_add_row,
    proposal_delete_row,
    proposal_forget_row,
    proposal_move_row,
    proposal_restore_row,
)
from .stamps import conflict_stamps, saved_stamp, stamp_key, stamps_kept


@dataclass(frozen=True)
class FieldConflict:
    """The same field was changed elsewhere since this page saw it: nothing stored.
    ``by`` and ``at``: who saved the other value and when (its ``FieldStamp``;
    ``stamped`` is false when nothing says who)."""

    instance: object
    name: str
    mine: object
    theirs: object
    stamped: bool = False
    by: object = None  # the user, or None for a deleted account
    at: object = None


@dataclass
class SaveOutcome:
    revision: int
    saved: list = field(default_factory=list)  # (instance, field names)
    refused: list = field(default_factory=list)  # changes whose values contradict
    conflicts: list = field(default_factory=list)  # FieldConflict
    gone: list = field(default_factory=list)  # changes to rows removed elsewhere
    row_gone: bool = False  # the row operation's row was removed elsewhere
    row_changed: object = None  # RowChanged: a delete not done, for the person
    row_full: object = None  # limits.TableRoom: an add refused, the table is full


@transaction.atomic(savepoint=False)
def proposal_save_changes(
    *,
    proposal: Proposal,
    changes: list,
    refused: dict | None = None,
    cleared: set | frozenset = frozenset(),
    locked: bool = False,
    by=None,
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

    ``by`` (the person saving) is noted as the last to change each field saved
    (``FieldStamp``: one upsert); a conflict says who saved the other value, and
    when (one query, only when there is a conflict).

    Queries: the proposal is locked and its revision read (``locked``: ``proposal``
    was read with ``select_for_update`` in this transaction); when that is still the
    revision ``proposal`` was read at (every write advances it), the objects in
    memory are the stored ones and nothing more is read. The proposal's own fields
    are stored by the same UPDATE that advances the revision (their bounds are
    single-field checks the forms make); a row's by its own UPDATE, in a savepoint
    (a row's values together may break a constraint, which refuses that row only).
    """
    # One writer per proposal at a time: the comparison and the write are atomic.
    stored_refused, locked_revision = _locked_state(proposal, locked)
    unchanged_since_read = locked_revision == proposal.revision
    outcome = SaveOutcome(revision=proposal.revision)
    own_values = {}
    for change in changes:
        values = _save_change(proposal, change, outcome, unchanged_since_read)
        if change.instance is proposal:
            own_values.update(values)
    extra = dict(own_values)
    remembered = _remembered(stored_refused, refused, cleared)
    if remembered != (stored_refused or {}):
        extra["refused_inputs"] = remembered
    proposal.refused_inputs = remembered
    if outcome.saved or extra:
        # Only refused text remembered: nothing a reviewer sees has changed.
        outcome.revision = revision_bump(
            proposal,
            locked_revision=locked_revision,
            edit=bool(outcome.saved),
            **extra,
        )
    saved_stamp(proposal=proposal, saved=outcome.saved, by=by, at=timezone.now())
    if outcome.conflicts:
        outcome.conflicts = _attributed(proposal, outcome.conflicts)
    return outcome


def _attributed(proposal, conflicts: list) -> list:
    """``conflicts`` with who saved the other value, and when (none to read for a
    proposal that never had a team)."""
    if not stamps_kept(proposal):
        return conflicts
    stamps = conflict_stamps(
        proposal=proposal,
        keys=[stamp_key(conflict.instance, conflict.name) for conflict in conflicts],
    )
    attributed = []
    for conflict in conflicts:
        stamp = stamps.get(stamp_key(conflict.instance, conflict.name))
        if stamp is not None:
            conflict = replace(conflict, stamped=True, by=stamp.user, at=stamp.at)
        attributed.append(conflict)
    return attributed


def _locked_state(proposal, locked: bool) -> tuple:
    """The stored ``refused_inputs`` and revision, read locked (``locked``: the
    proposal was read with ``select_for_update`` in this transaction)."""
    if locked:
        return proposal.refused_inputs, proposal.revision
    return (
        Proposal.objects.select_for_update()
        .values_list("refused_inputs", "revision")
        .get(pk=proposal.pk)
    )


def _save_change(proposal, change, outcome: SaveOutcome, unchanged_since_read):
    """Store one change's fields that were not changed elsewhere (a row's by its
    own UPDATE; the proposal's are returned, for the UPDATE of its revision), note
    what happened in ``outcome``, and apply the stored values in memory."""
    model = type(change.instance)
    names = {name: model._meta.get_field(name).attname for name in change.values}
    if unchanged_since_read:
        current = {a: getattr(change.instance, a) for a in names.values()}
    else:
        current = (
            model.objects.filter(pk=change.instance.pk).values(*names.values()).first()
        )
    if current is None:
        outcome.gone.append(change)
        return {}
    values = {}
    for name, value in change.values.items():
        theirs = current[names[name]]
        base = change.bases.get(name)
        if base is not None and canonical(theirs) not in (base, canonical(value)):
            outcome.conflicts.append(
                FieldConflict(change.instance, name, value, theirs)
            )
        else:
            values[name] = value
    if not values:
        return {}
    if change.instance is not proposal:
        try:
            with transaction.atomic():
                model.objects.filter(pk=change.instance.pk).update(**values)
        except IntegrityError:
            outcome.refused.append(change)
            return {}
    for name, value in values.items():
        setattr(change.instance, name, value)
    outcome.saved.append((change.instance, sorted(values)))
    return values


def _remembered(stored: dict | None, refused: dict | None, cleared) -> dict:
    """``refused_inputs`` after a save: the entries of the inputs it answers for
    (``cleared``) replaced by what it refused."""
    remembered = {
        key: entry for key, entry in (stored or {}).items() if key not in cleared
    }
    remembered.update({key: storable(entry) for key, entry in (refused or {}).items()})
    return remembered


@transaction.atomic(savepoint=False)
def proposal_save_step(
    *,
    proposal: Proposal,
    changes: list,
    refused: dict | None = None,
    cleared: set | frozenset = frozenset(),
    row_action: RowAction | None = None,
    locked: bool = False,
    by=None,
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
        by=by,
    )
    new_row = None
    if row_action is not None:
        new_row = _row_operation(proposal, row_action, outcome, by)
        outcome.revision = proposal.revision
    return outcome, new_row


def _row_operation(proposal, row_action: RowAction, outcome: SaveOutcome, by=None):
    """Do ``row_action`` after the step's changes; returns the new row, if any."""
    action, kind, pk = row_action.action, row_action.kind, row_action.pk
    try:
        if action == "add":
            return proposal_add_row(proposal=proposal, kind=kind)
        if action == "restore":
            values = row_action.values or {}
            return proposal_restore_row(
                proposal=proposal,
                kind=kind,
                pk=pk,
                values=values,
                refused=row_action.refused,
                by=by,
            )
    except TableFull as error:
        # Nothing added; the step's changes are still stored (this transaction),
        # and what was typed into a removed row is still kept for "Add it back".
        outcome.row_full = error.room
        return None
    if action == "discard":
        proposal_forget_row(proposal=proposal, kind=kind, pk=pk)
        return None
    row = locked_row(proposal, kind, pk)
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
    return None


CENT = Decimal("0.01")


class RequestChanged(Exception):
    """The total GPU-hours were changed elsewhere since the page showed them."""

    def __init__(self, stored):
        super().__init__("The total GPU-hours were changed elsewhere.")
        self.stored = stored


class NoPlanTotal(Exception):
    """The job plan has no total that the request could take."""


@transaction.atomic
def proposal_use_plan_total(*, proposal: Proposal, base: str, by=None) -> Decimal:
    """Set the total GPU-hours to the job plan's total (SCAL-3's "use the job plan's
    total"), against ``base``, the total the page showed (:func:`.revisions.canonical`
    of it, as an autosave's base): a total changed elsewhere since is not replaced
    (``RequestChanged``). Returns the total stored."""
    from proposals.assess import assess_proposal

    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    plan = assess_proposal(locked).plan
    planned = Decimal(repr(plan.total_gpu_hours)).quantize(CENT, ROUND_HALF_UP)
    if planned <= 0 or planned > MAX_GPU_HOURS:
        raise NoPlanTotal(planned)
    if canonical(locked.total_gpu_hours) != base:
        raise RequestChanged(locked.total_gpu_hours)
    # As a step's change (``wizard.Change``), without a form.
    change = SimpleNamespace(
        instance=locked,
        values={"total_gpu_hours": planned},
        bases={"total_gpu_hours": base},
        form=None,
    )
    outcome = proposal_save_changes(
        proposal=locked, changes=[change], locked=True, by=by
    )
    if outcome.conflicts:  # pragma: no cover - the lock and the check above
        raise RequestChanged(locked.total_gpu_hours)
    return planned
