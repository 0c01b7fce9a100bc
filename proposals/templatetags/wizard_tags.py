"""Small presentation helpers for the wizard templates (no computation of figures)."""

import functools
import html

from django import forms, template
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe

from proposals import localization
from proposals.domain.numbers import MISSING, grouped
from proposals.domain.numbers import hours as hours_text
from proposals.domain.sections import TABLE_BY_KIND
from proposals.templatetags.glossary_tags import term_link
from proposals.templatetags.stack import on_fresh_stack

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping[key]`` or ``None``; for dicts keyed by row id or field name."""
    if mapping is None:
        return None
    return mapping.get(key)


@register.filter
def num(value, decimals=2):
    """A number in the reader's format (``18,176``, ``18.176``, ``18 176``: the one
    activated for the request or e-mail, see ``proposals.localization``); ``—`` for
    nothing. One printer for every page: ``proposals.domain.numbers.grouped``."""
    if value == "":
        return MISSING
    return grouped(value, int(decimals))


@register.filter
def hours(value):
    """GPU-hours as an estimate reads (``proposals.domain.numbers.hours``): two
    significant figures below 10 (``0.2``), whole hours above."""
    if value == "":
        return MISSING
    return hours_text(value)


@register.filter
def speedup(value):
    """A speedup with two decimals in the reader's format (``1.50``, ``1,50``)."""
    return grouped(value, 2, trim=False)


@register.filter
def when(value, time=True):
    """A moment in the reader's time zone, zone named, in their locale's form
    (``3 Dec 2026, 14:05 CET``); ``when:False`` for the date alone."""
    return localization.when(value, with_time=bool(time))


@register.filter
def pct(fraction, decimals=0):
    """A fraction as a percentage (``0.95`` → ``95%``)."""
    if fraction is None:
        return MISSING
    return grouped(float(fraction) * 100, int(decimals), trim=False) + "%"


def _widget_class(widget) -> str:
    if isinstance(widget, forms.CheckboxInput):
        return "form-check-input"
    if isinstance(widget, forms.RadioSelect):
        return "form-check-input"
    if isinstance(widget, forms.Select):
        return "form-select"
    return "form-control"


def _errors(field):
    """``field.errors`` without making an empty error list for every field."""
    return field.form.errors.get(field.name)


@register.simple_tag
def widget(field, size="", label=""):
    """Render a field's widget with Bootstrap classes and ARIA wiring to its feedback."""
    classes = [_widget_class(field.field.widget)]
    if size and classes[0] != "form-check-input":
        classes.append(f"{classes[0]}-{size}")
    errors = _errors(field)
    if errors:
        classes.append("is-invalid")
    attrs = {
        "class": " ".join(classes),
        "aria-describedby": f"fb-{field.auto_id}",
    }
    if errors:
        attrs["aria-invalid"] = "true"
    if label:
        attrs["aria-label"] = label
    return as_widget(field, attrs)


@register.filter
def is_checkbox(field):
    return isinstance(field.field.widget, forms.CheckboxInput)


@register.filter
def is_radio(field):
    return isinstance(field.field.widget, forms.RadioSelect)


@register.simple_tag(takes_context=True)
def column_header(context, spec):
    """A table column's header: the field's short label, with the GPU unit the
    applicant types in (switched live by the GPU/GCD toggle), linked to the
    glossary when the field names a term."""
    text = spec.short or spec.label
    if "{gpus}" in text:
        before, after = text.split("{gpus}", 1)
        unit = context.get("gpu_unit_label") or "GPUs"
        text = format_html(
            "{}<span data-gpu-unit-label>{}</span>{}", before, unit, after
        )
    # A header whose word has a glossary entry links to it, with hover/focus help.
    return term_link(context, spec.term, text) if spec.term else text


@register.filter
def bound(form, name):
    """``form[name]``: the bound field called ``name`` (for loops over columns)."""
    return form[name]


@register.filter
def row_prefix(row, kind):
    """``jobs-17``: the prefix of a row's inputs (and of its keys elsewhere)."""
    return f"{kind}-{row.pk}"


# --- Rendering without a template per cell ---------------------------------------
# A step with hundreds of rows renders thousands of inputs: Django renders each widget
# through three small templates, and the wizard used to include two more per cell. The
# functions below write the same HTML (the same ids, names and ARIA wiring; checked
# against Django's own rendering in tests/web/test_wizard_tags.py) in plain Python.


def _escape(value) -> str:
    """Django's ``escape`` (``html.escape`` of ``str(value)``) without its lazy-string
    wrapper, which costs more than the escaping on a page of thousands of attributes."""
    return _escape_text(str(value))


# The same class names, labels and ARIA values recur in every row of a table: each is
# escaped once (the cache is bounded; any string escapes to the same text every time).
_escape_text = functools.lru_cache(maxsize=8192)(html.escape)


_INPUT_TEMPLATES = frozenset(
    f"django/forms/widgets/{name}.html"
    for name in ("text", "number", "email", "url", "password", "search", "tel")
)
_SELECT_TEMPLATE = "django/forms/widgets/select.html"
_OPTION_TEMPLATE = "django/forms/widgets/select_option.html"
_TEXTAREA_TEMPLATE = "django/forms/widgets/textarea.html"


def _attrs(attrs) -> str:
    """Django's ``widgets/attrs.html``: `` name="value"``, bare for ``True``."""
    parts = []
    for name, value in attrs.items():
        if value is False:
            continue
        parts.append(
            f" {_escape(name)}"
            if value is True
            else f' {_escape(name)}="{_escape(value)}"'
        )
    return "".join(parts)


def _render_widget(widget, context) -> str | None:
    """The widget's HTML as Django's default templates write it, or ``None`` for a
    widget this does not know (rendered by Django then)."""
    w = context["widget"]
    template_name = w["template_name"]
    if template_name in _INPUT_TEMPLATES:
        value = "" if w["value"] is None else f' value="{_escape(w["value"])}"'
        kind, name = _escape(w["type"]), _escape(w["name"])
        return f'<input type="{kind}" name="{name}"{value}{_attrs(w["attrs"])}>'
    if template_name == _TEXTAREA_TEMPLATE:
        value = _escape(w["value"]) if w["value"] else ""
        return f'<textarea name="{_escape(w["name"])}"{_attrs(w["attrs"])}>\n{value}</textarea>'
    if template_name == _SELECT_TEMPLATE:
        out = [f'<select name="{_escape(w["name"])}"{_attrs(w["attrs"])}>']
        for group_name, group_choices, _index in w["optgroups"]:
            if group_name:
                out.append(f'\n  <optgroup label="{_escape(group_name)}">')
            for option in group_choices:
                if option["template_name"] != _OPTION_TEMPLATE:
                    return None
                out.append(
                    f'\n  <option value="{_escape(option["value"])}"'
                    f"{_attrs(option['attrs'])}>{conditional_escape(option['label'])}</option>\n"
                )
            if group_name:
                out.append("\n  </optgroup>")
        out.append("\n</select>")
        return "".join(out)
    return None


@functools.lru_cache(maxsize=256)
def _options(choices: tuple) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, int]]:
    """A select's ``<option>`` elements, plain and selected, and each value's index:
    the same list for every row (a measurement's code list), written once."""
    plain, chosen, index = [], [], {}
    for position, (value, label) in enumerate(choices):
        value = "" if value is None else str(value)
        head = f'\n  <option value="{_escape(value)}"'
        tail = f">{conditional_escape(label)}</option>\n"
        plain.append(head + tail)
        chosen.append(f"{head} selected{tail}")
        index.setdefault(value, position)
    return tuple(plain), tuple(chosen), index


def _plain_select(widget, name, value, attrs) -> str | None:
    """A single-choice ``<select>`` without option groups, as Django writes it (the
    first option matching the value is selected); ``None`` for anything else."""
    try:
        choices = tuple(widget.choices)
        if any(isinstance(label, (list, tuple)) for _, label in choices):
            return None  # option groups: Django writes them
        hash(choices)
    except (TypeError, ValueError):
        return None
    plain, chosen, index = _options(choices)
    options = list(plain)
    selected = widget.format_value(value)
    for wanted in selected:
        if wanted in index:
            options[index[wanted]] = chosen[index[wanted]]
            break
    final = widget.build_attrs(widget.attrs, attrs)
    return (
        f'<select name="{_escape(name)}"{_attrs(final)}>{"".join(options)}\n</select>'
    )


def as_widget(field, attrs):
    """``field.as_widget(attrs=attrs)``, without a template for the common widgets."""
    widget = field.field.widget
    if field.field.localize:
        widget.is_localized = True
    attrs = field.build_widget_attrs(dict(attrs), widget)
    if field.auto_id and "id" not in widget.attrs:
        attrs.setdefault("id", field.auto_id)
    name = field.html_name
    value = field.value()
    if (
        isinstance(widget, forms.widgets.Input)
        and type(widget).get_context is forms.widgets.Input.get_context
        and widget.template_name in _INPUT_TEMPLATES
    ):
        # An <input>: what Input.get_context would give, without the dictionaries.
        value = widget.format_value(value)
        value = "" if value is None else f' value="{_escape(value)}"'
        final = widget.build_attrs(widget.attrs, attrs)
        return mark_safe(
            f'<input type="{_escape(widget.input_type)}" name="{_escape(name)}"'
            f"{value}{_attrs(final)}>"
        )
    if type(widget) is forms.Select:
        html = _plain_select(widget, name, value, attrs)
        if html is not None:
            return mark_safe(html)
    html = _render_widget(widget, widget.get_context(name, value, attrs))
    if html is None:
        return widget.render(
            name=name, value=value, attrs=attrs, renderer=field.form.renderer
        )
    return mark_safe(html)


def feedback_opening(anchor, *, label, oob, errors, note, findings) -> list[str]:
    """A feedback block up to its findings (the caller adds what follows and the
    closing ``</div>``): its id, the label for the stacked small-screen layout
    (``label``, table cells only), the field's errors, its reading note and the
    reviewer's findings on it. Shared by :func:`feedback_html` and the row tags."""
    parts = [f'<div id="fb-{_escape(anchor)}" class="field-feedback"']
    if label is not None:
        parts.append(f' data-label="{_escape(label)}"')
    if oob:
        parts.append(' hx-swap-oob="true"')
    parts.append(">")
    if errors:
        text = "".join(f"{conditional_escape(e)} " for e in errors)
        parts.append(f'<div class="invalid-feedback d-block" role="alert">{text}</div>')
    if note:
        parts.append(
            '<div class="small text-info-emphasis" data-testid="field-note">'
            f"{conditional_escape(note)}</div>"
        )
    parts.append(f'<div class="field-findings" data-anchor="{_escape(anchor)}">')
    for item in findings:
        css = _escape(item["css"])
        parts.append(
            f'<div class="finding-inline small text-{css}-emphasis">'
            f'<span class="badge text-bg-{css} me-1">{_escape(item["finding"].code)}</span>'
            f"{conditional_escape(item['finding'].message)}</div>"
        )
    parts.append("</div>")
    return parts


def feedback_html(context, field, *, compact=False, oob=False, notes=None) -> str:
    """A field's feedback block (``fb-<input id>``): errors, the reading note, the
    reviewer's findings on it, and (not ``compact``) the tier-fitted help. Autosave
    answers replace it out of band, never the input."""
    anchor = field.auto_id
    notes = field.form.notes if notes is None else notes
    parts = feedback_opening(
        anchor,
        label=field.label if compact else None,
        oob=oob,
        errors=_errors(field),
        note=notes.get(field.name),
        findings=(context.get("findings_by_anchor") or {}).get(anchor, ()),
    )
    proposal = context.get("proposal")
    if field.name == "max_gpus_per_job" and proposal and proposal.max_gpus_per_job:
        gpus = proposal.max_gpus_per_job
        text = f"= {num(gpus)} physical GPU{pluralize(gpus)}"
        nodes = context.get("max_gpus_nodes")
        if nodes:
            cluster = context.get("cluster")
            text += (
                f", {num(nodes)} node{pluralize(nodes)} of {cluster.gpus_per_node} GPUs"
            )
        parts.append(
            '<div class="small text-body-secondary" data-testid="max-gpus-nodes">'
            f"{_escape(text)}</div>"
        )
    if not compact:
        # The same for every row's field of that name: written once per page where
        # the caller keeps a cache (``_help_cache``: the row tags of wizard_rows).
        cache = context.get("_help_cache")
        block = None if cache is None else cache.get(field.name)
        if block is None:
            block = _help_block(context, field.name)
            if cache is not None:
                cache[field.name] = block
        parts.append(block)
    parts.append("</div>")
    return mark_safe("".join(parts))


def _help_block(context, name) -> str:
    """A field's tier-fitted help and its examples (``""`` for none)."""
    text = get_item(context.get("help"), name)
    if not text:
        return ""
    examples = "".join(
        ' <span class="text-body-secondary d-block mt-1" data-testid="help-example">'
        + (f"{conditional_escape(item.lead)}, for example" if item.lead else "Example")
        + f": <q>{conditional_escape(item.text)}</q></span>"
        for item in get_item(context.get("help_examples"), name) or ()
    )
    return f'<div class="form-text">{conditional_escape(text)}{examples}</div>'


@register.simple_tag(takes_context=True)
def field_feedback(context, field, compact=False, oob=False):
    """``{% field_feedback field compact oob %}``: see :func:`feedback_html`."""
    return feedback_html(context, field, compact=bool(compact), oob=bool(oob))


@register.simple_tag(takes_context=True)
def posted_feedback(context):
    """Out of band in an autosave's answer: the feedback block of every input of
    every form of the step (:func:`feedback_html`, compact for table rows) and
    each row form's own errors (:func:`form_errors`). One tag for what a template
    loop wrote with two includes per input (tests/web/test_wizard_tags.py)."""
    values = _feedback_values(context)
    oob = bool(context.get("oob"))
    parts = []
    for form in context["forms"].all_forms():
        compact = bool(form.prefix)
        for field in form:
            if not field.is_hidden:
                html = feedback_html(values, field, compact=compact, oob=oob)
                parts.append(f"{html}\n")
        parts.append(f"{form_errors(context, form)}\n")
    return mark_safe("".join(parts))


def _cell_input(context, field) -> str:
    html = widget(field, "sm", field.label)
    if field.field.widget.attrs.get("data-gpu-count"):
        unit = _escape(context.get("gpu_unit_label") or "")
        return (
            '<div class="input-group input-group-sm flex-nowrap">'
            f'{html}<span class="input-group-text px-1" data-gpu-unit-label>{unit}</span></div>'
        )
    return html


@register.simple_tag(takes_context=True)
def row_cells(context, form, specs):
    """One table row's input cells, one ``<td>`` per column of ``specs``; each is
    labelled (``data-label``, the vocabulary's label) for the stacked small-screen
    layout. The cells' feedback goes under the row (:func:`row_feedback`)."""
    cells = []
    values = _feedback_values(context)
    for spec in specs:
        field = form[spec.name]
        css = f' class="col-{_escape(spec.width)}"' if spec.width else ""
        cells.append(
            f'<td{css} data-label="{_escape(spec.label)}">{_cell_input(values, field)}</td>'
        )
    return mark_safe("".join(cells))


@register.simple_tag(takes_context=True)
def row_feedback(context, form, specs):
    """The feedback blocks of one row's cells (errors, notes, findings), written
    under the row across its whole width rather than squeezed into each cell."""
    notes = form.notes
    values = _feedback_values(context)
    return mark_safe(
        "".join(
            feedback_html(values, form[spec.name], compact=True, notes=notes)
            for spec in specs
        )
    )


_FEEDBACK_KEYS = (
    "findings_by_anchor",
    "proposal",
    "max_gpus_nodes",
    "cluster",
    "help",
    "help_examples",
    "gpu_unit_label",
)


def _feedback_values(context) -> dict:
    """The template variables :func:`feedback_html` and the cells read, looked up
    once per row rather than once per cell through the whole context stack."""
    return {key: context.get(key) for key in _FEEDBACK_KEYS}


_ROW_BUTTONS = (
    ("up", "secondary", "arrow-up", "Move up", "Move {} up"),
    ("down", "secondary", "arrow-down", "Move down", "Move {} down"),
    ("delete", "danger", "trash", "Remove", "Remove {}"),
)


@register.simple_tag(takes_context=True)
def row_actions(context, kind, row, first=False, last=False):
    """A row's buttons: each posts the whole step form to its own small endpoint
    (``formaction`` without JavaScript, ``hx-post`` with it), so what was typed is
    saved first."""
    label = _escape(TABLE_BY_KIND[kind].item.lower())
    proposal, step = context["proposal"], context["step"]
    buttons = []
    # One reverse() per table and operation for the whole page; each row's URL is
    # that URL with the row's id in place of 0.
    key = ("row-urls", proposal.pk, step.slug, kind)
    urls = context.render_context.get(key)
    if urls is None:
        urls = context.render_context[key] = {
            operation: reverse(
                "proposals:row",
                kwargs={
                    "pk": proposal.pk,
                    "step": step.slug,
                    "kind": kind,
                    "row": 0,
                    "operation": operation,
                },
            )
            for operation, *_ in _ROW_BUTTONS
        }
    generic, specific = f"/rows/{kind}/0/", f"/rows/{kind}/{int(row.pk)}/"
    for operation, css, icon, title, hidden in _ROW_BUTTONS:
        url = _escape(urls[operation].replace(generic, specific, 1))
        confirm = f' hx-confirm="Remove this {label}?"' if operation == "delete" else ""
        disabled = (operation == "up" and first) or (operation == "down" and last)
        buttons.append(
            f'<button type="submit" class="btn btn-outline-{css}" formaction="{url}" '
            f'hx-post="{url}" hx-target="#wizard-form" hx-swap="outerHTML"{confirm} '
            f'title="{title}"{" disabled" if disabled else ""}>'
            f'<i class="bi bi-{icon}" aria-hidden="true"></i>'
            f'<span class="visually-hidden">{hidden.format(label)}</span></button>'
        )
    return mark_safe(
        '<div class="btn-group btn-group-sm row-actions" role="group" aria-label="Row actions">'
        + "\n".join(buttons)
        + "</div>"
    )


def _oob(context) -> str:
    return ' hx-swap-oob="true"' if context.get("oob") else ""


@register.simple_tag(takes_context=True)
def job_figures(context, row):
    """A job row's computed GPU-hours (and nodes, and the walltime check), with a
    stable id that autosave answers replace out of band."""
    figures = get_item(context.get("job_figures"), row.pk)
    parts = [
        f'<div id="jobs-{row.pk}-computed" data-testid="job-gpu-hours"{_oob(context)}>'
    ]
    if figures and figures.gpu_hours:
        parts.append(_escape(num(figures.gpu_hours, 2)))
        if figures.nodes:
            parts.append(
                '<div class="small text-body-secondary">'
                f"{_escape(num(figures.nodes))} node{pluralize(figures.nodes)}"
            )
            if figures.walltime_ok is False:
                parts.append(
                    ' · <span class="text-danger">over the walltime limit</span>'
                )
            parts.append("</div>")
    else:
        parts.append('<span class="text-body-secondary">—</span>')
    if row_prefix(row, "jobs") in (context.get("refused_rows") or ()):
        parts.append(
            '<div class="small text-warning-emphasis" data-testid="job-figures-stale">'
            "from the last saved values</div>"
        )
    parts.append("</div>")
    return mark_safe("".join(parts))


@register.simple_tag(takes_context=True)
def point_figures(context, row):
    """A measurement's computed speedup and efficiency (stable id, out of band)."""
    point = get_item(context.get("point_figures"), row.pk)
    if point:
        inner = (
            f'{_escape(speedup(point.speedup))}x<div class="small">'
            f"{_escape(pct(point.efficiency))}</div>"
        )
    else:
        inner = '<span class="text-body-secondary">—</span>'
    return mark_safe(
        f'<div id="measurements-{row.pk}-computed" data-testid="point-figures"'
        f"{_oob(context)}>{inner}</div>"
    )


@register.simple_tag(takes_context=True)
def form_errors(context, form):
    """A row form's own errors (not a field's), under a stable id (out of band)."""
    return row_errors_html(form, oob=bool(context.get("oob")))


def row_errors_html(form, *, oob: bool) -> str:
    """:func:`form_errors` without a template context (the row tags call it)."""
    if not form.prefix:
        return ""
    errors = form.non_field_errors()
    inner = ""
    if errors:
        text = "".join(f"{conditional_escape(error)} " for error in errors)
        inner = f'<div class="text-danger small" role="alert">{text}</div>'
    attr = ' hx-swap-oob="true"' if oob else ""
    return mark_safe(
        f'<div id="err-{_escape(form.prefix)}" class="row-errors"{attr}>{inner}</div>'
    )


@register.simple_tag(takes_context=True)
def wizard_field(context, field):
    """``{% include "proposals/_field.html" with field=field %}`` written in Python for
    text inputs, selects and text areas (a code entry has a dozen of them, so a step
    with many entries rendered hundreds of includes); checkboxes and radio buttons go
    through the template. Checked against the template in tests/web/test_wizard_tags.py.
    """
    if is_checkbox(field) or is_radio(field):
        with context.push(field=field):
            return context.template.engine.get_template("proposals/_field.html").render(
                context
            )
    unit = context.get("addon") or get_item(context.get("units"), field.name)
    control = widget(field)
    if unit:
        unit = conditional_escape(unit)
        marker = " data-gpu-unit-label" if unit == context.get("gpu_unit_label") else ""
        control = (
            f'<div class="input-group">{control}<span class="input-group-text"'
            f"{marker}>{unit}</span></div>"
        )
    feedback = feedback_html(
        context,
        field,
        compact=bool(context.get("compact")),
        oob=bool(context.get("oob")),
    )
    return mark_safe(
        f'\n<div class="mb-3 wizard-field" id="wrap-{_escape(field.auto_id)}">\n  \n'
        f'  <label class="form-label" for="{_escape(field.id_for_label)}">'
        f"{conditional_escape(field.label)}</label>\n  {control}\n  \n  {feedback}\n</div>\n"
    )


@register.simple_tag(takes_context=True)
def finding_items(context, findings):
    """See :func:`_finding_items` (run on a stack chunk of its own: stack.py)."""
    return on_fresh_stack(_finding_items, context, findings)


def _finding_items(context, findings):
    """The live findings list's items (``_sidebar.html``) written in Python: the list
    grows with the proposal's rows, and each item's link to its step was one
    ``{% url %}`` per finding; here it is one ``reverse()`` per step."""
    if not findings:
        return mark_safe(
            '<li class="text-body-secondary">Nothing to flag yet.</li>\n      '
        )
    staff_view = context.get("staff_view")
    proposal = context.get("proposal")
    urls: dict = {}
    parts = []
    for item in findings:
        step = item["step"]
        anchor = conditional_escape(item["anchor"])
        if staff_view:
            href = f"#section-{conditional_escape(step)}-h"
        else:
            if step not in urls:
                urls[step] = conditional_escape(
                    reverse("proposals:step", args=[proposal.pk, step])
                )
            href = f"{urls[step]}#{anchor}"
        finding, css = item["finding"], conditional_escape(item["css"])
        parts.append(
            f'\n      <li class="mb-1 finding finding-{conditional_escape(finding.severity)}"'
            f' data-anchor="{anchor}" data-css="{css}">\n'
            f'        <span class="badge text-bg-{css}">{conditional_escape(finding.code)}'
            f"</span>\n"
            f'        <a href="{href}" class="link-body-emphasis">'
            f"{conditional_escape(finding.message)}</a>\n      </li>\n      "
        )
    return mark_safe("".join(parts))


@register.simple_tag
def scaling_rows(points):
    """See :func:`_scaling_rows` (run on a stack chunk of its own: stack.py)."""
    return on_fresh_stack(_scaling_rows, points)


def _scaling_rows(points):
    """The live scaling table's rows (``_sidebar.html``) written in Python: one row
    per measurement, on every step's page."""
    return mark_safe(
        "".join(
            '\n      <tr><td class="text-end">'
            f"{conditional_escape(num(point.gpus))}</td>"
            f'<td class="text-end">{conditional_escape(num(point.throughput, 2))} '
            f'<span class="text-body-secondary">{conditional_escape(point.unit)}</span>'
            f'</td><td class="text-end">{conditional_escape(speedup(point.speedup))}x'
            f'</td><td class="text-end">{conditional_escape(pct(point.efficiency))}</td>'
            "</tr>\n      "
            for point in points
        )
    )
