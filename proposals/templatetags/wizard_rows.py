"""A step table's rows and the code cards, each written by one function (issue 16: a
page with ten times the rows costs at most twice the demo's).

``table_rows(page, "jobs")`` and ``code_entries(page)`` (globals of the Jinja2
environment) gather every row's data and call one Jinja2 macro for the whole table
(``proposals/jinja2/proposals/rows/``, see ``fragments``). What every row of a
column shares (classes, ARIA, the widget's own attributes, the label, the select's
options) is worked out once per table (``fragments.Control``); each row adds only
its name, id, value and messages.
"""

from typing import NamedTuple

from django import forms
from django.forms.utils import pretty_name

from proposals.domain.layouts import row_layout
from proposals.templatetags import fragments
from proposals.templatetags.fragments import Control, fragment
from proposals.templatetags.wizard_page import (
    cell,
    column,
    get_item,
    row_actions_data,
    wizard_field,
)
from proposals.wizard.feedback import block, feedback_values


class TableRows(NamedTuple):
    """What ``rows/table_rows.html`` writes: a table's rows, or ``empty``."""

    kind: str
    rows: list
    span: int
    computed: str
    empty: str
    oob: bool
    actions: object  # the row buttons (``None``: none, a viewer's page)


class Row(NamedTuple):
    pk: int
    cells: list
    feedback: list
    errors: object
    figures: object
    stale: bool


def _columns(specs, form, unit_label, cache):
    """The columns of ``form``'s row (:func:`wizard_tags.column` and a
    ``fragments.Control`` each), made once per set of fields: the unbound rows of a
    table share theirs; a posted row has its own."""
    fields = [form.fields[spec.name] for spec in specs]
    key = tuple(map(id, fields))
    found = cache.get(key)
    if found is None:
        found = cache[key] = [
            (
                spec.name,
                column(spec, field, unit_label),
                Control(field, form, size="sm", label=form[spec.name].label),
            )
            for spec, field in zip(specs, fields, strict=True)
        ]
    return found


def table_rows(page, kind, computed="", empty="", oob=False):
    """Every row of the step's ``kind`` table (``rows/table_rows.html``): a ``<tr>``
    of labelled inputs, the computed figures (a cell labelled ``computed``, for the
    kinds that have them), the row's buttons, then a row across the table's width
    with each input's feedback and the row's own errors; ``empty``, in one cell,
    when the table has no rows."""
    # The template's ``_("...")`` arrives lazy: translated once here, not at every
    # row's test of it (a lazy string looks its text up again on each use).
    computed, empty = str(computed), str(empty)
    specs = page.columns[kind]
    entries = page.forms.tables[kind]
    values = feedback_values(page)
    oob = bool(oob)
    figures = page.job_figures if kind == "jobs" else page.point_figures
    refused = page.refused.refused_rows
    cache: dict = {}
    rows = []
    for entry in entries:
        form, row = entry.form, entry.row
        errors, notes = form.errors, form.notes
        cells, blocks = [], []
        for name, col, control in _columns(
            specs, form, values["gpu_unit_label"], cache
        ):
            field_errors = errors.get(name)
            one = cell(form, name, control, field_errors)
            anchor = one.id or form[name].auto_id
            cells.append((col, *one))
            blocks.append(
                block(values, anchor, name, col.label, field_errors, notes.get(name))
            )
        rows.append(
            Row(
                row.pk,
                cells,
                blocks,
                fragments.row_errors(form, oob=oob),
                get_item(figures, row.pk) if computed else None,
                f"{kind}-{row.pk}" in refused,
            )
        )
    # The row buttons' column: none on a viewer's page (``can_edit``).
    editable = bool(page.can_edit)
    span = len(specs) + (1 if computed else 0) + (1 if editable else 0)
    actions = row_actions_data(page, kind) if rows and editable else None
    table = TableRows(kind, rows, span, computed, empty, oob, actions)
    return fragment("table_rows")(table)


class Field(NamedTuple):
    """A code card's field (``field`` in ``rows/code_entries.html``), or its
    ``html`` as ``{% wizard_field %}`` writes it (checkboxes, radio buttons)."""

    html: object
    anchor: str
    cells: tuple
    label: str
    unit: str
    gpu_unit: bool
    feedback: object


class Place(NamedTuple):
    width: str
    field: Field


class Card(NamedTuple):
    pk: int
    name: str
    open: bool
    errors: object
    main: list
    compute: list


class Cards(NamedTuple):
    cards: list
    item: str
    summary: str
    empty: str
    actions: object


class CardFields:
    """A code entry's fields as ``wizard_field`` writes them (label, input, unit,
    feedback), each field's input attributes worked out once per page."""

    def __init__(self, page, *, addon="", compact=False, oob=False):
        self.page = page
        self.values = feedback_values(page)
        self.addon, self.units = addon, page.units
        self.compact, self.oob = bool(compact), bool(oob)
        self.controls: dict = {}
        self.unit_of: dict = {}

    def html(self, field):
        return wizard_field(self.page, field, self.addon, self.compact, self.oob)

    def __call__(self, form, notes, name) -> Field:
        # The field itself, not a BoundField: the macro writes the input from the
        # column's Control; Django's rendering (and its bound field) only where the
        # macro does not write the widget.
        field = form.fields[name]
        if isinstance(field.widget, (forms.CheckboxInput, forms.RadioSelect)):
            return Field(self.html(form[name]), "", (), "", "", False, None)
        control = self.controls.get(id(field))
        if control is None:
            control = self.controls[id(field)] = Control(field, form)
        errors = form.errors.get(name)
        cell = control.cell(form, name, errors, fallback=lambda: None)
        if cell.html is None and cell.control is None:
            return Field(self.html(form[name]), "", (), "", "", False, None)
        unit = self.unit_of.get(name)
        if unit is None:  # the unit beside the input, once per field name
            unit = self.unit_of[name] = self.addon or get_item(self.units, name) or ""
        # BoundField.label: the field's, else the name made readable
        label = pretty_name(name) if field.label is None else field.label
        shown = block(
            self.values,
            cell.id,
            name,
            label if self.compact else None,
            errors,
            notes.get(name),
            oob=self.oob,
        )
        gpu_unit = bool(unit) and unit == self.values["gpu_unit_label"]
        cells = ((None, *cell),)
        return Field(None, cell.id, cells, label, unit, gpu_unit, (shown,))


def _places(fields, form, notes, group) -> list:
    return [
        [Place(c.width, fields(form, notes, c.name)) for c in cells]
        for cells in group.rows
    ]


def code_entries(page, summary="", empty="", oob=False):
    """The code entries of the codes step, one card each (its title, buttons, own
    errors and fields; the model's compute inputs folded under ``summary``, open
    when filled in), or ``empty`` when there are none
    (``rows/code_entries.html``)."""
    entries = page.forms.tables["codes"]
    oob = bool(oob)
    fields = CardFields(page, oob=oob)
    layout = row_layout("codes")  # the card's fields, the compute inputs folded
    main, compute = layout["main"], layout["compute"]
    cards = []
    for entry in entries:
        form, row = entry.form, entry.row
        form.errors  # noqa: B018 (validated first: cleaning makes the reading notes)
        notes = form.notes
        cards.append(
            Card(
                row.pk,
                row.name,
                bool(row.model_parameters),
                fragments.row_errors(form, oob=oob),
                _places(fields, form, notes, main),
                _places(fields, form, notes, compute),
            )
        )
    item = page.tables["codes"].item
    editable = bool(page.can_edit)  # no row buttons on a viewer's page
    actions = row_actions_data(page, "codes") if cards and editable else None
    return fragment("code_entries")(Cards(cards, item, summary, empty, actions))
