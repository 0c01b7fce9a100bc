"""What a page showed (its ``bases``) and how a step's POST becomes changes to
save against them.

The bases: each input's stored value as text, by input name (per-input
concurrency); the page sends back those of the inputs it sends, so that a save can
tell its own edits from other tabs'. What the page shows of the rows it does not
send is one of its regions (``form_regions``: each row's values), found stale
from the page's region keys (``stale``). The changes: each posted form validated, each valid
value the page changed kept, the rest refused or held with what was typed; rows
removed elsewhere noted apart."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, BadRequest
from django.utils.translation import gettext_lazy

from proposals.services import canonical
from proposals.wizard.steps import TABLE_FORMS, StepForms, row_id

# --- The bases: what a page showed ---------------------------------------------


def posted_bases(data) -> dict[str, str]:
    """What each input showed when the page was loaded (``bases``: a JSON object of
    input name -> stored value as text); anything else is a bad request (400)."""
    try:
        bases = json.loads(data.get("bases") or "{}")
    except (ValueError, RecursionError):  # RecursionError: ``[[[[...`` too deep
        raise BadRequest("bases must be a JSON object.") from None
    if not isinstance(bases, dict) or not all(
        isinstance(value, str) for value in bases.values()
    ):
        raise BadRequest("bases must map input names to text.")
    return bases


def shown_rows(bases: dict, kind: str) -> dict[int, dict[str, str]]:
    """What a page showed of each row of ``kind`` (its ``bases``): row id -> field
    name -> text, for the fields a row's form edits."""
    editable = set(TABLE_FORMS[kind]._meta.fields)
    shown: dict[int, dict[str, str]] = {}
    for key, base in bases.items():
        parts = key.split("-", 2)
        if len(parts) != 3 or parts[0] != kind or parts[2] not in editable:
            continue
        pk = row_id(parts[1])
        if pk is not None:
            shown.setdefault(pk, {})[parts[2]] = base
    return shown


def model_fields(form, original) -> dict:
    """The form's fields that are stored on ``original``, by name."""
    concrete = {f.name: f for f in original._meta.concrete_fields}
    return {name: concrete[name] for name in form.fields if name in concrete}


def field_bases(step_forms: StepForms) -> dict[str, str]:
    """What each input of the step shows, as stored (``canonical``), by input name:
    the page sends it back so that a save can tell its own edits from other tabs'."""
    bases = {}
    # The stored fields of a form's inputs, worked out once per model and set of
    # fields (a table's rows share theirs), not once per row.
    stored: dict[tuple, list[tuple[str, str]]] = {}
    for form in step_forms.all_forms():
        original = step_forms.originals[id(form)]
        key = (type(original), tuple(form.fields))
        names = stored.get(key)
        if names is None:
            names = stored[key] = [
                (name, field.attname)
                for name, field in model_fields(form, original).items()
            ]
        for name, attname in names:
            bases[form.add_prefix(name)] = canonical(getattr(original, attname))
    return bases


@functools.cache
def row_fields(kind: str) -> tuple[tuple[str, str], ...]:
    """The stored fields a ``kind`` row's inputs edit: (name, attname), in order."""
    form_class = TABLE_FORMS[kind]
    concrete = {f.name: f.attname for f in form_class._meta.model._meta.concrete_fields}
    return tuple((n, concrete[n]) for n in form_class.base_fields if n in concrete)


# --- The changes: a POST against the bases --------------------------------------


@dataclass
class Change:
    """Validated new values for one stored object, with the stored value each field
    showed when the page was loaded (``bases``, by field name)."""

    instance: object
    values: dict
    form: forms.ModelForm
    bases: dict = field(default_factory=dict)


HELD = gettext_lazy(
    "Not saved yet: saved with the rest of this row once the highlighted value is fixed."
)


@dataclass
class StepChanges:
    """What a step's POST asks for: values to save, typed text that was refused
    (input name -> ``{"text", "message"}``), and the inputs it answers for."""

    changes: list[Change] = field(default_factory=list)
    refused: dict[str, dict] = field(default_factory=dict)
    cleared: set[str] = field(default_factory=set)
    gone: list[str] = field(default_factory=list)  # edited rows removed elsewhere


def collect_changes(step_forms: StepForms, data, bases=None) -> StepChanges:
    """Validate the forms whose inputs were posted and keep every valid, changed value.

    A field this page did not change (its value is still its base) is left alone,
    whatever another tab stored meanwhile. The proposal's own fields are saved one by
    one: an invalid field is refused and the others are saved. A row is saved whole
    or not at all, so its figures always come from one consistent set of values: its
    valid new values are held (kept as typed, like the refused ones) until the row
    is valid. Forms whose inputs are absent from ``data`` are left alone.
    """
    bases = bases or {}
    result = StepChanges()
    for form in step_forms.all_forms():
        _collect_form(result, form, step_forms.originals[id(form)], data, bases)
    for prefix, entry in step_forms.gone.items():
        _collect_gone_row(result, prefix, entry.form, data, bases)
    return result


def _collect_form(result: StepChanges, form, original, data, bases) -> None:
    """Add what one posted ``form`` (of stored ``original``) asks for."""
    inputs = {name: form.add_prefix(name) for name in form.fields}
    if not any(key in data for key in inputs.values()):
        return
    result.cleared.update(inputs.values())
    if not form.has_changed():
        return
    form.is_valid()
    if form.errors.get(NON_FIELD_ERRORS):
        return
    for name, errors in form.errors.items():
        result.refused[inputs[name]] = {
            "text": data.get(inputs[name], ""),
            "message": " ".join(errors),
        }
    values = _changed_values(form, original, inputs, bases)
    if form.prefix and form.errors and values:
        _hold(result, form, values, inputs, data)
    elif values:
        change_bases = {
            name: bases[inputs[name]] for name in values if inputs[name] in bases
        }
        result.changes.append(Change(original, values, form, change_bases))


def _changed_values(form, original, inputs, bases) -> dict:
    """The valid values of ``form`` that this page changed and that differ from
    what is stored on ``original``."""
    values = {}
    for name, model_field in model_fields(form, original).items():
        if name in form.errors or name not in form.cleaned_data:
            continue
        value = form.cleaned_data[name]
        typed = canonical(value)
        if bases.get(inputs[name]) == typed:
            continue  # unchanged here; another tab may have changed it
        if typed != canonical(getattr(original, model_field.attname)):
            values[name] = value
    return values


def _hold(result: StepChanges, form, values, inputs, data) -> None:
    """A row with a refused value: its valid new ``values`` wait, kept as typed."""
    for name in values:
        form.held_notes[name] = HELD
        result.refused[inputs[name]] = {
            "text": data.get(inputs[name], ""),
            "message": str(HELD),
            "held": True,
        }


def _collect_gone_row(result: StepChanges, prefix, form, data, bases) -> None:
    """A row removed elsewhere that this page edited: what was typed is kept."""
    typed = typed_row(form, data)
    if not row_edited(form, bases):
        return
    result.gone.append(prefix)
    result.cleared.update(typed)
    result.refused.update(
        {
            key: {"text": text, "message": str(GONE), "gone": True}
            for key, text in typed.items()
        }
    )


GONE = gettext_lazy("Not saved: this row was removed in another tab or session.")


def typed_row(form, data) -> dict[str, str]:
    """What ``data`` holds for each input of a row's ``form`` (input name -> text)."""
    typed = {}
    for name in form.fields:
        key = form.add_prefix(name)
        if key in data:
            typed[key] = data.get(key, "")
    return typed


def row_edited(form, bases) -> bool:
    """Whether a row's bound ``form`` holds anything other than what the page showed
    (``bases``; an input it did not show was blank): an edit, not a row merely sent
    along with the rest of the step."""
    form.is_valid()
    for name in form.fields:
        key = form.add_prefix(name)
        if key not in form.data:
            continue
        shown = bases.get(key, "")
        if name in form.errors:
            if form.data.get(key, "").strip() != shown:
                return True
        elif canonical(form.cleaned_data.get(name)) != shown:
            return True
    return False


def row_values(form) -> tuple[dict, dict]:
    """A validated row ``form``'s model values (field name -> value) and what it
    refused (field name -> ``{"text", "message"}``). A row is saved whole or not at
    all: with anything refused, no value is stored and the valid ones are held
    (kept as typed, like the refused ones)."""
    form.is_valid()
    model_fields = {f.name for f in form._meta.model._meta.concrete_fields}
    values, refused = {}, {}
    for name in form.fields:
        if name not in model_fields:
            continue
        if name in form.errors:
            refused[name] = {
                "text": form.data.get(form.add_prefix(name), ""),
                "message": " ".join(form.errors[name]),
            }
        elif name in form.cleaned_data:
            values[name] = form.cleaned_data[name]
    if refused:
        held = {
            name: {
                "text": form.data.get(form.add_prefix(name), ""),
                "message": str(HELD),
                "held": True,
            }
            for name, value in values.items()
            if value not in (None, "")
        }
        return {}, {**held, **refused}
    return values, refused
