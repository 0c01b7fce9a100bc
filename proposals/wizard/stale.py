"""Another tab's newer values: what a page shows (its ``bases``) that is no longer
what is stored, found without reading anything more than the request did."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from django import forms
from django.core.exceptions import FieldDoesNotExist

from proposals.domain.numbers import NumberFormat
from proposals.domain.sections import ROW_PREFIX
from proposals.forms import JobTypeForm, MeasurementForm, SelectionForm
from proposals.services import canonical
from proposals.table_rows import rows_of
from proposals.wizard.changes import row_fields
from proposals.wizard.form_regions import shown_row_keys, stored_row_values
from proposals.wizard.steps import ENGLISH, TABLE_FORMS, Step


@dataclass
class Stale:
    """What a page shows that is no longer what is stored: inputs whose stored value
    changed elsewhere (input name -> ``{"value": as the input shows it, "base": as
    stored}``) and rows removed elsewhere (their prefixes)."""

    inputs: dict[str, dict] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    # The stored key of the values region of each row whose inputs are sent
    # again whole (what the page shows of it once it takes them).
    keys: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.inputs or self.removed)


def _shown_value(bound) -> str:
    """A field's value as its input holds it (the text of a text input, the value of
    the chosen option, ``"on"`` for a ticked box)."""
    widget = bound.field.widget
    value = bound.value()
    if isinstance(widget, forms.CheckboxInput):
        return "on" if value else ""
    if isinstance(widget, forms.widgets.ChoiceWidget):
        chosen = widget.format_value(value)
        return chosen[0] if chosen else ""
    shown = widget.format_value(value)
    return "" if shown is None else str(shown)


def stale_inputs(
    step: Step,
    proposal,
    bases: dict,
    *,
    skip=frozenset(),
    gpu_unit="gpus",
    number_format: NumberFormat = ENGLISH,
    shown_keys: dict | None = None,
) -> Stale:
    """The inputs of ``step`` that a page shows (``bases``: input name -> the stored
    value it showed) whose stored value is now another (saved in another tab), but
    for those in ``skip`` (this request's conflicts and refused text); and the rows
    it shows that are no longer stored. Reads nothing: the proposal and its rows are
    those read for the request.

    A page sends the inputs' bases of what it sends, and the key of each row's
    values region among the keys it shows (``shown_keys``, by row prefix): a row
    not sent whose stored values have another key is sent again whole (the page
    leaves alone what it already shows)."""
    objects = _shown_objects(step, proposal)
    by_object, removed = _differing(step, objects, bases, skip)
    keys = _differing_rows(step, objects, bases, shown_keys or {}, skip)
    for prefix, names in keys.pop("inputs").items():
        by_object.setdefault(prefix, {}).update(names)
    removed |= keys.pop("removed")
    stale = Stale(removed=sorted(removed), keys=keys)
    kwargs = _form_kwargs(proposal, gpu_unit, number_format, codes=bool(by_object))
    for prefix, names in by_object.items():
        instance, form_class, _ = objects[prefix]
        form = form_class(
            None,
            instance=copy.copy(instance),
            prefix=prefix or None,
            **kwargs.get(form_class, kwargs[None]),
        )
        for name, key in names.items():
            if name not in form.fields:
                continue
            attname = instance._meta.get_field(name).attname
            stale.inputs[key] = {
                "value": _shown_value(form[name]),
                "base": canonical(getattr(instance, attname)),
            }
    return stale


def _shown_objects(step: Step, proposal) -> dict:
    """What the step's inputs edit, by row prefix (``""``: the proposal itself):
    the stored object, its form and the fields the form may show."""
    objects = {}
    if step.form_class is not None:
        objects[""] = (proposal, step.form_class, set(step.form_class._meta.fields))
    for kind in step.tables:
        rows = rows_of(proposal, kind)
        for row in rows:
            objects[f"{kind}-{row.pk}"] = (row, TABLE_FORMS[kind], None)
    return objects


def _differing(step: Step, objects: dict, bases: dict, skip):
    """The inputs whose stored value differs from their base (by object prefix:
    field name -> input name), and the shown rows no longer stored."""
    by_object: dict[str, dict[str, str]] = {}
    removed = set()
    for key, base in bases.items():
        if key in skip or not isinstance(base, str):
            continue
        match = ROW_PREFIX.match(key)
        prefix, name = (
            (match.group(1), key[len(match.group(0)) :]) if match else ("", key)
        )
        found = objects.get(prefix)
        if found is None:
            if prefix and prefix.split("-")[0] in step.tables:
                removed.add(prefix)
            continue
        instance, _, allowed = found
        if allowed is not None and name not in allowed:
            continue
        try:
            attname = instance._meta.get_field(name).attname
        except FieldDoesNotExist:  # not a field of the model: not shown
            continue
        if canonical(getattr(instance, attname)) != base:
            by_object.setdefault(prefix, {})[name] = key
    return by_object, removed


def _differing_rows(step: Step, objects: dict, bases: dict, shown: dict, skip):
    """The rows a page shows but does not send (``shown``: the keys of their
    values regions) that are stored otherwise now: every input of each (field
    name -> input name, under ``"inputs"``), the rows no longer stored
    (``"removed"``), and each changed row's stored key (by prefix)."""
    sent = {match.group(1) for key in bases if (match := ROW_PREFIX.match(key))}
    result: dict = {"inputs": {}, "removed": set()}
    for prefix, key in shown.items():
        kind = prefix.split("-")[0]
        if prefix in sent or kind not in step.tables:
            continue
        found = objects.get(prefix)
        if found is None:
            result["removed"].add(prefix)
            continue
        stored = stored_row_values(kind, found[0]).key
        if stored != key:
            result[prefix] = stored
            result["inputs"][prefix] = {
                name: f"{prefix}-{name}"
                for name, _ in row_fields(kind)
                if f"{prefix}-{name}" not in skip
            }
    return result


def _form_kwargs(proposal, gpu_unit, number_format, *, codes: bool) -> dict:
    """The keyword arguments of each form class (``None``: of any other), as the
    step's forms are made."""
    system = proposal.system
    gcds = system.gcds_per_gpu if system else 1
    common = {"number_format": number_format}
    rows = {**common, "gcds_per_gpu": gcds, "gpu_unit": gpu_unit}
    return {
        None: common,  # every other form
        SelectionForm: {**common, "gpu_unit": gpu_unit},
        JobTypeForm: rows,
        MeasurementForm: {**rows, "codes": rows_of(proposal, "codes") if codes else []},
    }


def stale_since(step: Step, proposal, saved, data, *, seen_current: bool) -> Stale:
    """What the page that posted ``data`` (and was saved as ``saved``) shows that
    another tab has changed since (inputs this request did not change; rows
    removed). A page whose last answer was at the revision this request read
    (``seen_current``) has seen every write: nothing to look for."""
    if seen_current:
        return Stale()
    # The rows' values among the region keys the page shows.
    shown_keys = shown_row_keys(data.get("regions"))
    return stale_inputs(
        step,
        proposal,
        saved.bases,
        skip=saved.unsettled,
        gpu_unit=saved.step_forms.gpu_unit,
        number_format=saved.fmt,
        shown_keys=shown_keys,
    )


def gone_now(gone_rows: list, typed: set | None) -> list:
    """The rows removed in another tab that the save status speaks of. A save's
    status is its own: it names only the removed rows it found typed into (``typed``),
    whose typing it could not store; a save that stored all it carried says Saved. A
    page (``typed`` is ``None``) names every row whose typing is still kept. The note
    above the step (``gone_rows``) stays either way, until the row is added back or
    what was typed is discarded."""
    if typed is None:
        return gone_rows
    return [row for row in gone_rows if row["prefix"] in typed]


def show_stored(step_forms, bases, stale) -> None:
    """Bound forms show the stored value of the ``stale`` inputs (the person did
    not change them here); their bases become the stored values."""
    if not stale.inputs:
        return
    data = None
    for form in step_forms.all_forms():
        if not form.is_bound:
            continue
        if data is None:
            data = form.data.copy()
        form.data = data
    if data is None:
        return
    for key, entry in stale.inputs.items():
        data[key] = entry["value"]
        bases[key] = entry["base"]
