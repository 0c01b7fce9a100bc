"""A step table's rows written in one tag (issue 16: a page with ten times the rows
costs at most twice the demo's).

``{% table_rows "jobs" %}`` writes what the step template's loop over a table's row
forms wrote (each row's ``<tr>`` of inputs, its computed figures and buttons, then its
feedback row), byte for byte: tests/web/test_wizard_tags.py renders the old loop and
this tag on the same forms. What every row of a column shares (classes, ARIA, the
widget's own attributes, the label, the select's options) is written once per table;
each row adds only its name, id, value and messages, all escaped.
"""

from types import SimpleNamespace

from django import forms, template
from django.forms.utils import pretty_name
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from proposals.domain.layouts import row_layout
from proposals.templatetags.stack import on_fresh_stack
from proposals.templatetags.wizard_tags import (
    _INPUT_TEMPLATES,
    _TEXTAREA_TEMPLATE,
    _attrs,
    _escape,
    _feedback_values,
    _options,
    _widget_class,
    feedback_html,
    feedback_opening,
    get_item,
    is_checkbox,
    is_radio,
    job_figures,
    point_figures,
    row_actions,
    row_errors_html,
    widget,
    wizard_field,
)

register = template.Library()

# Stands for a row's input id while a column's attributes are written once (no
# character html.escape changes, none an id or label can hold).
_ID = "\x00"

# Input widgets written here; any other widget (or a subclass) goes through
# wizard_tags.widget, which Django's own rendering checks.
_INPUTS = (forms.TextInput, forms.NumberInput, forms.EmailInput, forms.URLInput)


class _Control:
    """One field's input as every row writes it (wizard_tags.widget(field, size,
    label) and Django's BoundField.build_widget_attrs): the HTML around a row's name,
    value and id, with and without errors. ``fast`` is false for the widgets left to
    wizard_tags.widget (whose HTML Django's own rendering checks)."""

    __slots__ = ("field", "fast", "parts", "choices", "textarea")

    def __init__(self, field, form, *, size="", label=""):
        self.field = field
        self.fast = self._fast(field, form)
        self.parts = {}
        self.choices = None
        self.textarea = type(field.widget) is forms.Textarea
        if self.fast:
            for errors in (False, True):
                self.parts[errors] = self._attr_parts(field, form, errors, size, label)
            # The id goes in twice (aria-describedby, id); anything else: Django's way.
            self.fast = all(len(parts) == 3 for parts in self.parts.values())
            if isinstance(field.widget, forms.Select):
                self.choices = _options(tuple(field.widget.choices))

    @staticmethod
    def _fast(field, form) -> bool:
        widget_ = field.widget
        auto_id = form.auto_id
        if not (auto_id and "%s" in str(auto_id)) or field.localize:
            return False
        if field.show_hidden_initial or "id" in widget_.attrs:
            return False
        if type(widget_) in _INPUTS:
            return widget_.template_name in _INPUT_TEMPLATES
        if type(widget_) is forms.Textarea:
            return widget_.template_name == _TEXTAREA_TEMPLATE
        if type(widget_) is forms.Select:
            try:
                choices = tuple(widget_.choices)
                hash(choices)
            except (TypeError, ValueError):
                return False
            return not any(isinstance(label, (list, tuple)) for _, label in choices)
        return False

    @staticmethod
    def _attr_parts(field, form, errors, size, label) -> tuple[str, ...]:
        widget_ = field.widget
        classes = [_widget_class(widget_)]
        if size and classes[0] != "form-check-input":
            classes.append(f"{classes[0]}-{size}")
        if errors:
            classes.append("is-invalid")
        attrs = {"class": " ".join(classes), "aria-describedby": f"fb-{_ID}"}
        if errors:
            attrs["aria-invalid"] = "true"
        if label:
            attrs["aria-label"] = label
        # build_widget_attrs: these widgets' use_required_attribute ignores the value.
        if (
            widget_.use_required_attribute(None)
            and field.required
            and form.use_required_attribute
        ):
            attrs["required"] = True
        if field.disabled:
            attrs["disabled"] = True
        if not widget_.is_hidden and errors:
            attrs["aria-invalid"] = "true"
        attrs.setdefault("id", _ID)
        return tuple(_attrs(widget_.build_attrs(widget_.attrs, attrs)).split(_ID))

    def html(self, form, name, errors) -> str | None:
        """The input of ``form``'s field ``name``, or ``None`` if not written here."""
        field = form.fields.get(name)
        if not self.fast or field is not self.field:
            return None
        html_name = form.add_prefix(name)
        auto_id = _escape(form.auto_id % html_name)
        if form.is_bound:
            value = form[name].value()
        else:
            value = field.prepare_value(form.get_initial_for_field(field, name))
        attrs = auto_id.join(self.parts[bool(errors)])
        widget_ = field.widget
        if self.choices is not None:
            plain, chosen, index = self.choices
            options = list(plain)
            for wanted in widget_.format_value(value):
                if wanted in index:
                    options[index[wanted]] = chosen[index[wanted]]
                    break
            return (
                f'<select name="{_escape(html_name)}"{attrs}>'
                f"{''.join(options)}\n</select>"
            )
        value = widget_.format_value(value)
        if self.textarea:
            value = _escape(value) if value else ""
            return f'<textarea name="{_escape(html_name)}"{attrs}>\n{value}</textarea>'
        value = "" if value is None else f' value="{_escape(value)}"'
        return (
            f'<input type="{_escape(widget_.input_type)}" name="{_escape(html_name)}"'
            f"{value}{attrs}>"
        )


class _Column:
    """One column of a table: its cell as every row writes it (the label for the
    stacked small-screen layout, the input, the GPU unit beside GPU counts)."""

    __slots__ = ("name", "label", "control", "td", "wrap")

    def __init__(self, spec, field, form, unit_label):
        self.name = spec.name
        self.label = field.label if field.label is not None else pretty_name(spec.name)
        css = f' class="col-{_escape(spec.width)}"' if spec.width else ""
        self.td = f'<td{css} data-label="{_escape(spec.label)}">'
        self.wrap = ("", "")
        if field.widget.attrs.get("data-gpu-count"):
            self.wrap = (
                '<div class="input-group input-group-sm flex-nowrap">',
                '<span class="input-group-text px-1" data-gpu-unit-label>'
                f"{_escape(unit_label or '')}</span></div>",
            )
        self.control = _Control(field, form, size="sm", label=self.label)

    def cell(self, form, errors, values) -> str:
        """The row's ``<td>`` for this column."""
        control = self.control.html(form, self.name, errors)
        if control is None:
            return self._slow(form, values)
        return f"{self.td}{self.wrap[0]}{control}{self.wrap[1]}</td>"

    def _slow(self, form, values) -> str:
        field = form[self.name]
        html = widget(field, "sm", field.label)
        if field.field.widget.attrs.get("data-gpu-count"):
            unit = _escape(values.get("gpu_unit_label") or "")
            html = (
                '<div class="input-group input-group-sm flex-nowrap">'
                f'{html}<span class="input-group-text px-1" data-gpu-unit-label>'
                f"{unit}</span></div>"
            )
        return f"{self.td}{html}</td>"

    def feedback(self, form, errors, note, findings, values) -> str:
        """The cell's feedback block, as wizard_tags.feedback_html(compact) writes it."""
        if self.name == "max_gpus_per_job" or form.auto_id != "id_%s":
            return feedback_html(
                values, form[self.name], compact=True, notes=form.notes
            )
        key = f"id_{form.add_prefix(self.name)}"
        parts = feedback_opening(
            key,
            label=self.label,
            oob=False,
            errors=errors,
            note=note,
            findings=findings.get(key, ()),
        )
        parts.append("</div>")
        return "".join(parts)


def _columns(specs, form, unit_label, cache) -> list[_Column]:
    """The columns of ``form``'s row, made once per set of fields (the unbound rows of
    a table share theirs; a posted row has its own)."""
    key = tuple(map(id, map(form.fields.get, [spec.name for spec in specs])))
    found = cache.get(key)
    if found is None:
        found = cache[key] = [
            _Column(spec, form.fields[spec.name], form, unit_label) for spec in specs
        ]
    return found


_FIGURES = {"measurements": point_figures, "jobs": job_figures}

# A row id no table holds: row_actions writes a table's buttons once around it (per
# first/last state); each row's buttons are those with its own id in its place.
_SAMPLE_PK = 987654320123456789


class _Buttons:
    """A table's row buttons (wizard_tags.row_actions), written once per table."""

    def __init__(self, context, kind):
        self.context, self.kind, self.parts = context, kind, {}

    def __call__(self, row, first, last) -> str:
        parts = self.parts.get((first, last))
        if parts is None:
            sample = SimpleNamespace(pk=_SAMPLE_PK)
            html = row_actions(self.context, self.kind, sample, first, last)
            parts = self.parts[(first, last)] = tuple(html.split(str(_SAMPLE_PK)))
            if len(parts) != 7:  # the id elsewhere than the six URLs: no shortcut
                parts = self.parts[(first, last)] = ()
        if not parts:
            return row_actions(self.context, self.kind, row, first, last)
        return str(int(row.pk)).join(parts)


@register.simple_tag(takes_context=True)
def table_rows(context, kind, computed="", empty=""):
    """See :func:`_table_rows` (run on a stack chunk of its own: stack.py)."""
    return on_fresh_stack(_table_rows, context, kind, computed, empty)


def _table_rows(context, kind, computed="", empty=""):
    """Every row of the step's ``kind`` table: a ``<tr>`` of labelled inputs (each
    cell's ``data-label`` for the stacked small-screen layout), the computed figures
    (a cell labelled ``computed``, for the kinds that have them), the row's buttons,
    then a row across the table's width with each input's feedback and the row's
    own errors; ``empty``, in one cell, when the table has no rows."""
    specs = context["columns"][kind]
    entries = context["forms"].tables[kind]
    span = len(specs) + (2 if computed else 1)
    if not entries:
        return mark_safe(
            f'\n    <tr><td colspan="{span}" class="text-body-secondary small">'
            f"{conditional_escape(empty)}</td></tr>\n    "
        )
    values = _feedback_values(context)
    values.update(
        oob=context.get("oob"),
        job_figures=context.get("job_figures"),
        point_figures=context.get("point_figures"),
        refused_rows=context.get("refused_rows"),
    )
    findings = values["findings_by_anchor"] or {}
    oob = bool(values["oob"])
    figures = _FIGURES.get(kind) if computed else None
    if computed:
        computed = (
            '\n      <td class="text-end font-monospace computed" '
            f'data-label="{conditional_escape(computed)}">'
        )
    cache: dict = {}
    buttons = _Buttons(context, kind)
    last = len(entries) - 1
    out = []
    for position, entry in enumerate(entries):
        form, row = entry.form, entry.row
        columns = _columns(specs, form, values["gpu_unit_label"], cache)
        errors = form.errors
        notes = form.notes
        cells = []
        feedback = []
        for column in columns:
            field_errors = errors.get(column.name)
            cells.append(column.cell(form, field_errors, values))
            feedback.append(
                column.feedback(
                    form, field_errors, notes.get(column.name), findings, values
                )
            )
        out.append(f'\n    <tr id="{_escape(kind)}-{_escape(row.pk)}">\n      ')
        out.append("".join(cells))
        if figures is not None:
            out.append(f"{computed}{figures(values, row)}</td>")
        out.append('\n      <td class="row-actions-cell">')
        out.append(buttons(row, position == 0, position == last))
        out.append(
            '</td>\n    </tr>\n    <tr class="row-feedback">'
            f'<td colspan="{span}">{"".join(feedback)}{row_errors_html(form, oob=oob)}'
            "</td></tr>\n    "
        )
    return mark_safe("".join(out))


_FIELD_KEYS = ("addon", "units", "compact", "oob")


class _Fields:
    """A code entry's fields as ``{% wizard_field %}`` writes them (label, input, unit,
    feedback), each field's input attributes written once per page."""

    def __init__(self, context):
        self.context = context
        self.values = _feedback_values(context)
        self.values.update({key: context.get(key) for key in _FIELD_KEYS})
        self.values["_help_cache"] = {}  # each field's help, once per page
        self.controls: dict = {}
        self.labels: dict = {}
        self.units: dict = {}
        self.form = self.notes = None

    def __call__(self, form, name) -> str:
        if form is not self.form:  # the form's notes, once per entry
            self.form, self.notes = form, form.notes
        bound = form[name]
        field = bound.field
        control = self.controls.get(id(field))
        if control is None:
            control = self.controls[id(field)] = _Control(field, form)
            self.labels[id(field)] = conditional_escape(bound.label)
        html = None
        if not (is_checkbox(bound) or is_radio(bound)):
            html = control.html(form, name, form.errors.get(name))
        if html is None:
            return wizard_field(self.context, bound)
        values = self.values
        unit = self.units.get(name)
        if unit is None:  # the unit beside the input, once per field name
            unit = values["addon"] or get_item(values["units"], name)
            if unit:
                text = conditional_escape(unit)
                marker = (
                    " data-gpu-unit-label" if text == values["gpu_unit_label"] else ""
                )
                unit = (
                    '<div class="input-group">',
                    f'<span class="input-group-text"{marker}>{text}</span></div>',
                )
            else:
                unit = ("", "")
            self.units[name] = unit
        html = f"{unit[0]}{html}{unit[1]}"
        feedback = feedback_html(
            values,
            bound,
            compact=bool(values["compact"]),
            oob=bool(values["oob"]),
            notes=self.notes,
        )
        anchor = _escape(bound.auto_id)
        return (
            f'\n<div class="mb-3 wizard-field" id="wrap-{anchor}">\n  \n'
            f'  <label class="form-label" for="{anchor}">'
            f"{self.labels[id(field)]}</label>\n  {html}\n  \n  {feedback}\n</div>\n"
        )


def _card_group(fields, form, group, indent, row_class) -> str:
    """A group of the code card's layout (``domain.layouts``): a field a line, a
    row of cells a grid row (``row_class`` added to its classes)."""
    out = []
    for cells in group.rows:
        if len(cells) == 1 and not cells[0].width:
            out.append(f"{indent}{fields(form, cells[0].name)}\n")
            continue
        out.append(f'{indent}<div class="row{row_class}">\n')
        for cell in cells:
            out.append(
                f'{indent}  <div class="{cell.width}">{fields(form, cell.name)}</div>\n'
            )
        out.append(f"{indent}</div>\n")
    return "".join(out)


@register.simple_tag(takes_context=True)
def code_entries(context, summary="", empty=""):
    """See :func:`_code_entries` (run on a stack chunk of its own: stack.py)."""
    return on_fresh_stack(_code_entries, context, summary, empty)


def _code_entries(context, summary, empty):
    """The code entries of the codes step, one card each (its title, buttons, own
    errors and fields; the model's compute inputs folded under ``summary``, open
    when filled in), or ``empty`` when there are none. The same HTML as the loop
    of ``{% wizard_field %}`` it replaced (tests/web/test_wizard_tags.py)."""
    entries = context["forms"].tables["codes"]
    if not entries:
        return mark_safe(
            f'\n<p class="alert alert-warning">{conditional_escape(empty)}</p>\n'
        )
    item = conditional_escape(context["tables"]["codes"].item)
    summary = conditional_escape(summary)
    oob = bool(context.get("oob"))
    buttons = _Buttons(context, "codes")
    fields = _Fields(context)
    layout = row_layout("codes")  # the card's fields, the compute inputs folded
    main, compute = layout["main"], layout["compute"]
    last = len(entries) - 1
    out = []
    for position, entry in enumerate(entries):
        f, row = entry.form, entry.row
        pk = _escape(row.pk)
        title = f" ({conditional_escape(row.name)})" if row.name else ""
        opened = " open" if row.model_parameters else ""
        out.append(
            f'\n<section class="card mb-3 code-entry" id="codes-{pk}" '
            f'aria-labelledby="codes-{pk}-h">\n'
            '  <div class="card-header d-flex align-items-center gap-2">\n'
            f'    <h3 class="h6 mb-0 me-auto" id="codes-{pk}-h">{item} {position + 1}'
            f"{title}</h3>\n"
            f"    {buttons(row, position == 0, position == last)}\n"
            "  </div>\n"
            '  <div class="card-body">\n'
            f"    {row_errors_html(f, oob=oob)}\n\n"
            f"{_card_group(fields, f, main, '    ', '')}"
            f'    <details class="compute-inputs"{opened}>\n'
            f'      <summary class="small">{summary}</summary>\n'
            f"{_card_group(fields, f, compute, '      ', ' mt-2')}"
            "    </details>\n"
            "  </div>\n"
            "</section>\n"
        )
    return mark_safe("".join(out))
