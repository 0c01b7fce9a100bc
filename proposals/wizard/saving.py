"""A step's POST, saved: the forms bound to what was posted, the changes against
what the page showed (``bases``), the row operation asked for, and what the save
did (:class:`Saved`). Writes go through ``services``."""

import json

from django.utils.translation import gettext_lazy

from proposals import services
from proposals.domain.numbers import NumberFormat
from proposals.domain.sections import ROW_PREFIX
from proposals.wizard.changes import (
    Change,
    collect_changes,
    field_bases,
    posted_bases,
    row_values,
    shown_rows,
)
from proposals.wizard.questions import (
    describe_conflicts,
    describe_row_changed,
    describe_row_gone,
    input_name,
)
from proposals.wizard.steps import (
    build_step_forms,
    gpu_unit_of,
    removed_row_form,
    row_id,
)

CONTRADICT = gettext_lazy("These values contradict each other; they were not saved.")


class Saved:
    """What one save did: the bound forms, the outcome, the new row, the conflicts,
    the inputs it left unsettled, and what its row operation could not do."""

    def __init__(
        self,
        step_forms,
        outcome,
        new_row,
        row_op,
        bases,
        collected,
        restoring=False,
        fmt=None,
        user=None,
        alone=False,
    ):
        self.step_forms = step_forms
        self.user = user  # the person saving (a conflict with their own other tab)
        self.alone = alone  # ... who owns the proposal and has no team
        self.fmt = fmt  # the person's number format (what the answer shows)
        self.outcome = outcome
        self.new_row = new_row
        self.row_op = row_op
        self.bases = bases
        self.conflicted = {
            input_name(step_forms, conflict) for conflict in outcome.conflicts
        }
        # Inputs whose text is not what is stored (refused, held, conflicting).
        self.unsettled = set(collected.refused) | self.conflicted
        self.gone = collected.gone  # edited rows removed elsewhere (prefixes)
        self.restore_refused = bool(
            row_op
            and row_op[0] == "restore"
            and new_row is None
            and restoring
            and outcome.row_full is None
        )

    @property
    def needs_answer(self) -> bool:
        """Whether the row operation left something for the person to read or
        choose (so a page without JavaScript shows it rather than moving on)."""
        return bool(
            self.gone
            or self.outcome.row_changed
            or self.outcome.row_gone
            or self.restore_refused
            or self.outcome.row_full
        )

    def _restore_full(self) -> set[str]:
        """The removed row that "Add it back" could not add: its table is full."""
        if self.row_op and self.row_op[0] == "restore" and self.outcome.row_full:
            return {f"{self.row_op[1]}-{self.row_op[2]}"}
        return set()

    def context(self) -> dict:
        conflicts = describe_conflicts(
            self.step_forms, self.outcome, self.user, alone=self.alone
        )
        return {
            "saved": True,
            "conflicts": conflicts,
            # The same, under each field (its feedback block), by input id.
            "conflict_notes": {item["anchor"]: item["note"] for item in conflicts},
            "posted_bases_json": json.dumps(self.bases),
            "row_changed": describe_row_changed(self.outcome.row_changed, self.fmt),
            "row_gone": describe_row_gone(self.row_op, self.outcome.row_gone),
            "restore_refused": self.restore_refused,
            # The removed rows this save found typed into, and the one it was asked
            # to add back into a full table: their typing is what it could not store
            # (the save status says so; see ``wizard._page``).
            "gone_typed": set(self.gone) | self._restore_full(),
            "row_full": self.outcome.row_full,  # an add refused: the table is full
        }


def _bases_kept(data, step_forms) -> dict:
    """The posted bases; with "Keep mine" (the conflict banner), this page's value
    of that input wins over the other."""
    bases = posted_bases(data)
    keep = data.get("keep")
    if keep:
        bases[keep] = field_bases(step_forms).get(keep)
    return bases


def save_step(
    data,
    proposal,
    step,
    *,
    user,
    number_format: NumberFormat,
    posted_rows_only=False,
    row_op=None,
    locked=False,
):
    """Validate and store a step's POST ``data`` (field by field), typed by ``user``
    in ``number_format``, and its row operation (``row_op``: operation, table
    kind, row id)."""
    unit = gpu_unit_of(proposal, data.get("gpu_unit"))
    step_forms = build_step_forms(
        step,
        proposal,
        data,
        gpu_unit=unit,
        number_format=number_format,
        posted_rows_only=posted_rows_only,
    )
    bases = _bases_kept(data, step_forms)
    collected = collect_changes(step_forms, data, bases)
    changes = collected.changes
    if "gpu_unit" in data and unit != proposal.gpu_unit:
        # Only the toggle itself changes the unit (steps without it never post it).
        changes.append(Change(proposal, {"gpu_unit": unit}, step_forms.main))
    row_action = None
    if row_op is not None:
        row_action = _row_action(proposal, step_forms, collected, bases, row_op, data)
    outcome, new_row = services.proposal_save_step(
        proposal=proposal,
        changes=changes,
        refused=collected.refused,
        cleared=collected.cleared,
        row_action=row_action,
        locked=locked,
        by=user,
    )
    for change in outcome.refused:
        change.form.add_error(None, CONTRADICT)
    _rebase(step_forms, bases, collected, outcome)
    return Saved(
        step_forms,
        outcome,
        new_row,
        row_op,
        bases,
        collected,
        restoring=row_action is not None and row_action.action == "restore",
        fmt=number_format,
        user=user,
        alone=proposal.owner_id == user.pk and not getattr(proposal, "has_team", True),
    )


def _rebase(step_forms, bases, collected, outcome) -> None:
    """What each input is now based on: its saved or confirmed value; a
    conflicting, refused or held input keeps the base it had."""
    unsettled = set(collected.refused) | {
        input_name(step_forms, conflict) for conflict in outcome.conflicts
    }
    for form in step_forms.all_forms():
        cleaned = getattr(form, "cleaned_data", None)
        if not form.is_bound or cleaned is None:
            continue
        for name in form.fields:
            key = form.add_prefix(name)
            if key in bases and key not in unsettled and name in cleaned:
                bases[key] = services.canonical(cleaned[name])


def _row_action(proposal, step_forms, collected, bases, row_op, data):
    """The service's row operation for ``row_op``: for a delete, what the page showed
    of the row (its bases, or this request's own new values, which are saved just
    before); for an add-back, the values typed into the removed row (posted now, or
    kept from an earlier save); for a move, the row the page showed next to it."""
    operation, kind, pk = row_op
    prefix = f"{kind}-{pk}"
    if operation == "discard":
        return services.RowAction(operation, kind, pk=pk)
    if operation == "restore":
        typed = _typed_into_removed_row(proposal, step_forms, collected, prefix)
        if typed is None:  # nothing kept (added back already): nothing to do
            return None
        values, refused = typed
        return services.RowAction(
            operation, kind, pk=pk, values=values, refused=refused
        )
    shown = None
    if operation == "delete":
        shown = shown_rows(bases, kind).get(pk, {})
        for change in collected.changes:
            # This row's own change (not the proposal's, whose id may be alike).
            row = change.instance
            if isinstance(row, services.ROW_MODELS[kind]) and row.pk == pk:
                shown.update(
                    {name: services.canonical(v) for name, v in change.values.items()}
                )
    neighbour = None
    if operation in ("up", "down"):
        # The page's order: the order its rows' inputs were posted in.
        order = list(dict.fromkeys(p for p in _posted_prefixes(data, kind)))
        if prefix in order:
            at = order.index(prefix) + (-1 if operation == "up" else 1)
            if 0 <= at < len(order):
                neighbour = int(order[at].split("-")[1])
    return services.RowAction(operation, kind, pk=pk, shown=shown, neighbour=neighbour)


def _posted_prefixes(data, kind: str):
    """The row prefixes of ``kind`` in ``data``, in the order posted (with repeats)."""
    for key in data:
        match = ROW_PREFIX.match(key)
        parts = match.group(1).split("-") if match else ("", "")
        if parts[0] == kind and row_id(parts[1]) is not None:
            yield match.group(1)


def _typed_into_removed_row(proposal, step_forms, collected, prefix):
    """The values (validated) and refused text of the removed row ``prefix``: as
    typed into the page now, else as kept in ``refused_inputs`` by the save that
    found it gone; ``None`` when neither (a second "Add it back")."""
    if prefix in collected.gone:
        return row_values(step_forms.gone[prefix].form)
    kept = {
        key: item["text"]
        for key, item in (proposal.refused_inputs or {}).items()
        if key.startswith(f"{prefix}-") and item.get("gone")
    }
    if not kept:
        return None
    kind = prefix.split("-")[0]
    form = removed_row_form(step_forms, proposal, kind, prefix, kept)
    return row_values(form)
