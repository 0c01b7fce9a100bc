"""A step table's rows written in one tag (issue 16: a page with ten times the rows
costs at most twice the demo's).

``{% table_rows "jobs" %}`` writes what the step template's loop over a table's row
forms wrote (each row's ``<tr>`` of inputs, its computed figures and buttons, then its
feedback row), byte for byte: tests/web/test_wizard_tags.py renders the old loop and
this tag on the same forms. What every row of a column shares (classes, ARIA, the
widget's own attributes, the label, the select's options) is written once per table;
each row adds only its name, id, value and messages, all escaped.
"""

from django import forms, template
from django.forms.forms import NON_FIELD_ERRORS
from django.forms.utils import pretty_name
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from proposals.templatetags.wizard_tags import (
    _INPUT_TEMPLATES,
    _attrs,
    _escape,
    _feedback_values,
    _options,
    _widget_class,
    feedback_html,
    job_figures,
    point_figures,
    row_actions,
    widget,
)

register = template.Library()

# Stands for a row's input id while a column's attributes are written once (no
# character html.escape changes, none an id or label can hold).
_ID = "\x00"

# Input widgets written here; any other widget (or a subclass) goes through
# wizard_tags.widget, which Django's own rendering checks.
_INPUTS = (forms.TextInput, forms.NumberInput, forms.EmailInput, forms.URLInput)


class _Column:
    """One column's input as every row of a table writes it: the HTML around a row's
    name, value and id, for a cell with errors and for one without."""

    __slots__ = ("name", "field", "label", "fast", "td", "wrap", "parts", "choices")

    def __init__(self, spec, field, form, unit_label):
        self.name = spec.name
        self.field = field
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
        self.fast = self._fast(field, form)
        self.parts = {}
        self.choices = None
        if self.fast:
            for errors in (False, True):
                self.parts[errors] = self._attr_parts(field, form, errors)
            if isinstance(field.widget, forms.Select):
                self.choices = _options(tuple(field.widget.choices))

    @staticmethod
    def _fast(field, form) -> bool:
        """Whether this column's inputs are written here: the widgets whose HTML
        and attributes do not depend on the row (else wizard_tags.widget)."""
        widget_ = field.widget
        auto_id = form.auto_id
        if not (auto_id and "%s" in str(auto_id)) or field.localize:
            return False
        if field.show_hidden_initial or "id" in widget_.attrs:
            return False
        if type(widget_) in _INPUTS:
            return widget_.template_name in _INPUT_TEMPLATES
        if type(widget_) is forms.Select:
            try:
                choices = tuple(widget_.choices)
                hash(choices)
            except (TypeError, ValueError):
                return False
            return not any(isinstance(label, (list, tuple)) for _, label in choices)
        return False

    def _attr_parts(self, field, form, errors) -> tuple[str, ...]:
        """The input's attributes as wizard_tags.widget(field, "sm", label) and
        Django's BoundField.build_widget_attrs write them, split where the id goes."""
        widget_ = field.widget
        classes = [_widget_class(widget_)]
        if classes[0] != "form-check-input":
            classes.append(f"{classes[0]}-sm")
        if errors:
            classes.append("is-invalid")
        attrs = {"class": " ".join(classes), "aria-describedby": f"fb-{_ID}"}
        if errors:
            attrs["aria-invalid"] = "true"
        if self.label:
            attrs["aria-label"] = self.label
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

    def cell(self, form, errors, values) -> str:
        """The row's ``<td>`` for this column."""
        field = form.fields.get(self.name)
        if not self.fast or field is not self.field:
            return self._slow(form, values)
        name = form.add_prefix(self.name)
        auto_id = _escape(form.auto_id % name)
        if form.is_bound:
            value = form[self.name].value()
        else:
            value = field.prepare_value(form.get_initial_for_field(field, self.name))
        attrs = auto_id.join(self.parts[bool(errors)])
        widget_ = field.widget
        if self.choices is None:
            value = widget_.format_value(value)
            value = "" if value is None else f' value="{_escape(value)}"'
            control = (
                f'<input type="{_escape(widget_.input_type)}" name="{_escape(name)}"'
                f"{value}{attrs}>"
            )
        else:
            plain, chosen, index = self.choices
            options = list(plain)
            for wanted in widget_.format_value(value):
                if wanted in index:
                    options[index[wanted]] = chosen[index[wanted]]
                    break
            control = (
                f'<select name="{_escape(name)}"{attrs}>{"".join(options)}\n</select>'
            )
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
        anchor = _escape(f"id_{form.add_prefix(self.name)}")
        parts = [
            f'<div id="fb-{anchor}" class="field-feedback" '
            f'data-label="{_escape(self.label)}">'
        ]
        if errors:
            text = "".join(f"{conditional_escape(e)} " for e in errors)
            parts.append(
                f'<div class="invalid-feedback d-block" role="alert">{text}</div>'
            )
        if note:
            parts.append(
                '<div class="small text-info-emphasis" data-testid="field-note">'
                f"{conditional_escape(note)}</div>"
            )
        parts.append(f'<div class="field-findings" data-anchor="{anchor}">')
        for item in findings.get(f"id_{form.add_prefix(self.name)}", ()):
            css = _escape(item["css"])
            parts.append(
                f'<div class="finding-inline small text-{css}-emphasis">'
                f'<span class="badge text-bg-{css} me-1">{_escape(item["finding"].code)}'
                f"</span>{conditional_escape(item['finding'].message)}</div>"
            )
        parts.append("</div></div>")
        return "".join(parts)


def _columns(specs, form, unit_label, cache) -> list[_Column]:
    """The columns of ``form``'s row, made once per set of fields (the unbound rows of
    a table share theirs; a posted row has its own)."""
    key = tuple(id(form.fields.get(spec.name)) for spec in specs)
    found = cache.get(key)
    if found is None:
        found = cache[key] = [
            _Column(spec, form.fields[spec.name], form, unit_label) for spec in specs
        ]
    return found


def _form_errors(form, oob) -> str:
    """wizard_tags.form_errors: the row's own errors under a stable id."""
    if not form.prefix:
        return ""
    errors = (form.errors or {}).get(NON_FIELD_ERRORS)
    inner = ""
    if errors:
        text = "".join(f"{conditional_escape(error)} " for error in errors)
        inner = f'<div class="text-danger small" role="alert">{text}</div>'
    return f'<div id="err-{_escape(form.prefix)}" class="row-errors"{oob}>{inner}</div>'


_FIGURES = {"measurements": point_figures, "jobs": job_figures}


@register.simple_tag(takes_context=True)
def table_rows(context, kind, computed="", empty=""):
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
    oob = ' hx-swap-oob="true"' if values["oob"] else ""
    figures = _FIGURES.get(kind) if computed else None
    if computed:
        computed = (
            '\n      <td class="text-end font-monospace computed" '
            f'data-label="{conditional_escape(computed)}">'
        )
    cache: dict = {}
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
        out.append(row_actions(context, kind, row, position == 0, position == last))
        out.append(
            '</td>\n    </tr>\n    <tr class="row-feedback">'
            f'<td colspan="{span}">{"".join(feedback)}{_form_errors(form, oob)}'
            "</td></tr>\n    "
        )
    return mark_safe("".join(out))
