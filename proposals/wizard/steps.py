"""The wizard's steps: which forms each step shows, how a request's data becomes
changes to save, and where each finding points in the wizard.

Nothing here touches the database except reading the rows a step shows; writes go
through ``services``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from django import forms

from proposals.domain.fields import FIELD_BY_KEY, anchor_name
from proposals.domain.layouts import Layout, row_layout, step_layout
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, NumberFormat
from proposals.domain.sections import ROW_PREFIX, Section, tables_of
from proposals.domain.sections import STEPS as SECTION_STEPS
from proposals.forms import SelectionForm, WizardStepForm, field_names
from proposals.http import MAX_DIGITS
from proposals.models import Proposal
from proposals.services import ROW_MODELS
from proposals.table_rows import rows_of

ENGLISH = NUMBER_FORMAT_BY_NAME["en"]


def _declared_forms() -> tuple[dict[str, type], dict[str, type]]:
    """The wizard's forms that ``proposals.forms`` declares, by the step
    (``WizardStepForm.step``) or the table kind (``.table``) whose layout they edit."""
    by_step: dict[str, type] = {}
    by_table: dict[str, type] = {}
    found = list(WizardStepForm.__subclasses__())
    while found:
        form_class = found.pop()
        found.extend(form_class.__subclasses__())
        for key, by in ((form_class.step, by_step), (form_class.table, by_table)):
            if key and by.setdefault(key, form_class) is not form_class:
                raise TypeError(f"Two wizard forms edit {key!r}.")
    return by_step, by_table


def _layout_form(model, *, step=None, table=None) -> type[forms.ModelForm]:
    """A plain wizard form of ``model`` for a layout that no form declares: its
    fields are the layout's (a step's own, or a ``table`` row's)."""
    key = table or step
    meta = type(
        "Meta", (), {"model": model, "fields": field_names(key, table=bool(table))}
    )
    attributes = {"step": step, "table": table, "Meta": meta, "__module__": __name__}
    return type(f"{key.title()}LayoutForm", (WizardStepForm,), attributes)


def forms_from_layouts():
    """Each step's form (``None`` for a step without a layout of its own) and each
    table's row form, derived from the layouts: the form that declares it, else a
    plain one; a declared form whose step or table does not exist is an error."""
    by_step, by_table = _declared_forms()
    unknown = (set(by_step) - {s.slug for s in SECTION_STEPS}) | (
        set(by_table) - set(ROW_MODELS)
    )
    if unknown:
        raise TypeError(f"Wizard forms for no step or table: {sorted(unknown)}.")
    step_forms = {
        s.slug: by_step.get(s.slug) or _layout_form(Proposal, step=s.slug)
        if step_layout(s.slug) is not None
        else None
        for s in SECTION_STEPS
    }
    table_forms = {
        kind: by_table.get(kind) or _layout_form(model, table=kind)
        for kind, model in ROW_MODELS.items()
    }
    return step_forms, table_forms


# The form of each step's own fields (``None``: the step has none) and of one row
# of each table kind: derived from the layouts, never listed by hand.
SECTION_FORMS, TABLE_FORMS = forms_from_layouts()


@dataclass(frozen=True)
class Step:
    """A wizard step: a section of the vocabulary with the forms that edit it."""

    section: Section
    form_class: type[forms.ModelForm] | None
    tables: tuple[str, ...]

    @property
    def slug(self) -> str:
        return self.section.slug

    @property
    def title(self) -> str:
        return self.section.title

    @property
    def short(self) -> str:
        return self.section.short

    @property
    def layout(self) -> Layout | None:
        """Where the step's own fields are shown (``domain.layouts``); its template
        places the groups by name."""
        return step_layout(self.slug)


STEPS = tuple(
    Step(
        section,
        SECTION_FORMS[section.slug],
        tuple(t.kind for t in tables_of(section.slug)),
    )
    for section in SECTION_STEPS
)
STEP_BY_SLUG = {step.slug: step for step in STEPS}


def table_columns(kind: str) -> tuple:
    """The fields of a ``kind`` row (``FieldSpec``), in its layout's order: the
    table's header and its rows' cells, as its forms edit them."""
    return tuple(FIELD_BY_KEY[f"{kind}.{name}"] for name in row_layout(kind).fields)


def neighbours(slug: str) -> tuple[Step | None, Step | None]:
    index = [step.slug for step in STEPS].index(slug)
    previous = STEPS[index - 1] if index > 0 else None
    following = STEPS[index + 1] if index + 1 < len(STEPS) else None
    return previous, following


def navigated_here(from_step: str | None, referer_path: str, step_paths) -> bool:
    """Whether a step page was reached by moving around the wizard (a step tab,
    which says the step it ``from``; or Next / Previous, whose form was on another
    step page): then focus goes to the step's heading, not the top of the page."""
    return from_step in STEP_BY_SLUG or referer_path in set(step_paths)


@dataclass
class RowForm:
    """A bound or unbound form for one stored row, with the row it edits."""

    kind: str
    row: object
    form: forms.ModelForm

    @property
    def anchor(self) -> str:
        return f"{self.kind}-{self.row.pk}"


@dataclass
class StepForms:
    """All forms of one step: the step's own fields and one form per table row."""

    main: forms.ModelForm | None
    tables: dict[str, list[RowForm]] = field(default_factory=dict)
    originals: dict[int, object] = field(default_factory=dict)
    gpu_unit: str = "gpus"
    # Rows whose inputs were posted but that are not stored (removed in another
    # tab): row prefix -> a form bound to what was typed, never saved as it is.
    gone: dict[str, RowForm] = field(default_factory=dict)
    # The keyword arguments of each table kind's row forms (unit, format, codes).
    row_kwargs: dict[str, dict] = field(default_factory=dict)

    def all_forms(self) -> list[forms.ModelForm]:
        rows = [row.form for rows in self.tables.values() for row in rows]
        return ([self.main] if self.main is not None else []) + rows


def posted_row_prefixes(data) -> set[str]:
    """``{"jobs-17", ...}``: the rows whose inputs are in ``data``."""
    if data is None:
        return set()
    return {match.group(1) for key in data if (match := ROW_PREFIX.match(key))}


def build_step_forms(
    step: Step,
    proposal,
    data=None,
    *,
    gpu_unit="gpus",
    number_format: NumberFormat = ENGLISH,
    posted_rows_only=False,
) -> StepForms:
    """Forms for ``step``; rows come from the prefetched children of ``proposal``.

    Each form edits a copy of its instance, so validation (which writes cleaned values
    onto the instance) never touches the objects the rest of the request reads. With
    ``posted_rows_only`` (autosave, which sends only the rows typed in) no form is made
    for the other rows. Unbound forms show what was typed and refused earlier.
    """
    posted_rows = posted_row_prefixes(data)
    step_forms = StepForms(main=None, gpu_unit=gpu_unit)
    common = {"number_format": number_format}
    if step.form_class is not None:
        kwargs = {"gpu_unit": gpu_unit} if step.form_class is SelectionForm else {}
        main = step.form_class(data, instance=copy.copy(proposal), **common, **kwargs)
        step_forms.main = main
        step_forms.originals[id(main)] = proposal
    codes = rows_of(proposal, "codes")
    system = proposal.system
    gcds = system.gcds_per_gpu if system else 1
    for kind in step.tables:
        rows = codes if kind == "codes" else rows_of(proposal, kind)
        kwargs = dict(common)
        if kind in ("measurements", "jobs"):
            kwargs.update(gcds_per_gpu=gcds, gpu_unit=gpu_unit)
        if kind == "measurements":
            kwargs["codes"] = codes
        step_forms.row_kwargs[kind] = kwargs
        shown = rows
        if posted_rows_only:  # the other rows get no form at all
            shown = [row for row in rows if f"{kind}-{row.pk}" in posted_rows]
        _add_row_forms(step_forms, kind, shown, data, posted_rows)
        stored = {f"{kind}-{row.pk}" for row in rows}
        for prefix in sorted(posted_rows - stored):
            if prefix.split("-")[0] == kind and _row_id(prefix):
                step_forms.gone[prefix] = _removed_row(
                    TABLE_FORMS[kind], proposal, prefix, data, kwargs
                )
    refused = proposal.refused_inputs or {}
    if refused:
        for form in step_forms.all_forms():
            form.show_refused(refused)
    return step_forms


def gpu_unit_of(proposal, posted: str | None = None) -> str:
    """The unit GPU counts are typed in: the proposal's (or, for a POST that carries
    the toggle, the posted one: its numbers are in that unit); GCDs only on systems
    whose GPUs have several dies."""
    unit = posted if posted in ("gpus", "gcds") else proposal.gpu_unit
    if proposal.system is None or proposal.system.gcds_per_gpu < 2:
        return "gpus"
    return unit


def stored_forms(proposal, step: Step, number_format: NumberFormat) -> StepForms:
    """The step's forms showing what is stored, in the person's number format."""
    return build_step_forms(
        step, proposal, gpu_unit=gpu_unit_of(proposal), number_format=number_format
    )


# Inputs whose value is text a reader may select and copy: shown read-only; every
# other widget (a choice, a checkbox, a radio button) is disabled.
_TEXT_INPUT_TYPES = frozenset(["text", "number", "email", "url", "tel", "search"])


def show_read_only(step_forms: StepForms) -> None:
    """Every input of the step's forms shows its value and takes no typing (a
    viewer's page): Django's own ``disabled`` for choices and checkboxes, the
    ``readonly`` attribute for text, which stays selectable."""
    for form in step_forms.all_forms():
        for form_field in form.fields.values():
            widget = form_field.widget
            text = isinstance(widget, forms.Textarea) or (
                isinstance(widget, forms.widgets.Input)
                and widget.input_type in _TEXT_INPUT_TYPES
            )
            if text:
                widget.attrs["readonly"] = True
            else:
                form_field.disabled = True


def _add_row_forms(step_forms: StepForms, kind: str, rows, data, posted_rows) -> None:
    """A form per row of ``kind``: bound only when its inputs were posted (rows
    added in another tab show their stored values and are neither validated nor
    saved); the unbound ones share the fields of the first."""
    form_class, kwargs = TABLE_FORMS[kind], dict(step_forms.row_kwargs[kind])
    row_forms = []
    shared = None  # the fields of this kind's first unbound form
    for row in rows:
        prefix = f"{kind}-{row.pk}"
        if prefix in posted_rows:
            form = form_class(data, instance=copy.copy(row), prefix=prefix, **kwargs)
        else:
            form = form_class(
                None,
                instance=copy.copy(row),
                prefix=prefix,
                shared_fields=shared,
                **kwargs,
            )
            shared = shared or form.fields
        # Django's default label suffix as the first form translated it: the
        # other rows take it rather than each asking gettext again.
        kwargs.setdefault("label_suffix", form.label_suffix)
        step_forms.originals[id(form)] = row
        row_forms.append(RowForm(kind, row, form))
    step_forms.tables[kind] = row_forms


def row_id(text: str) -> int | None:
    """The row id ``text`` spells as a page writes it (plain digits, as a row's URL
    takes it, no leading zero), else ``None``: anything else posted is no row."""
    plain = text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS
    return int(text) if plain and text[0] != "0" else None


def _row_id(prefix: str) -> bool:
    return row_id(prefix.split("-")[1]) is not None


def _removed_row(form_class, proposal, prefix, data, kwargs) -> RowForm:
    blank = form_class._meta.model(proposal_id=proposal.pk)
    form = form_class(data, instance=blank, prefix=prefix, **kwargs)
    return RowForm(prefix.split("-")[0], blank, form)


def removed_row_form(step_forms: StepForms, proposal, kind: str, prefix: str, data):
    """A form of table ``kind`` bound to ``data`` (input name -> text) for the row
    ``prefix`` removed elsewhere, made like the step's other row forms."""
    form_class = TABLE_FORMS[kind]
    kwargs = step_forms.row_kwargs[kind]
    return _removed_row(form_class, proposal, prefix, data, kwargs).form


# --- Where a finding points -------------------------------------------------------


@dataclass(frozen=True)
class Location:
    step: str
    anchor: str


def finding_location(path: str, rows: dict[str, list]) -> Location:
    """The wizard step and the element id a finding's field path points at.

    ``rows`` maps each table kind to the stored rows in the engine's order, so that
    ``scalability.jobs[2].gpus`` becomes the input of the third job row.
    """
    section, kind, index, name = anchor_name(path)
    if not kind:
        return Location(section, f"id_{name}" if name else "main")
    kind_rows = rows.get(kind, [])
    if index is not None and index < len(kind_rows):
        row = kind_rows[index]
        anchor = f"id_{kind}-{row.pk}-{name}" if name else f"{kind}-{row.pk}"
        return Location(section, anchor)
    return Location(section, f"section-{kind}")


# --- The applicant's path: what the tier asks for, and how far along it is --------
