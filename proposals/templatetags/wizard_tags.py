"""Small presentation helpers for the wizard templates (no computation of figures)."""

from django import forms, template
from django.utils.html import format_html

from proposals.domain.numbers import MISSING, grouped
from proposals.templatetags.glossary_tags import term_link

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping[key]`` or ``None``; for dicts keyed by row id or field name."""
    if mapping is None:
        return None
    return mapping.get(key)


@register.filter
def num(value, decimals=2):
    """A number with thousands separators (``18,176``); ``—`` for nothing. The
    same formatting as the exports (``proposals.domain.numbers.grouped``)."""
    if value == "":
        return MISSING
    return grouped(value, int(decimals))


@register.filter
def pct(fraction, decimals=0):
    """A fraction as a percentage (``0.95`` → ``95%``)."""
    if fraction is None:
        return MISSING
    return f"{float(fraction) * 100:.{int(decimals)}f}%"


def _widget_class(widget) -> str:
    if isinstance(widget, forms.CheckboxInput):
        return "form-check-input"
    if isinstance(widget, forms.RadioSelect):
        return "form-check-input"
    if isinstance(widget, forms.Select):
        return "form-select"
    return "form-control"


@register.simple_tag
def widget(field, size="", label=""):
    """Render a field's widget with Bootstrap classes and ARIA wiring to its feedback."""
    classes = [_widget_class(field.field.widget)]
    if size and classes[0] != "form-check-input":
        classes.append(f"{classes[0]}-{size}")
    if field.errors:
        classes.append("is-invalid")
    attrs = {
        "class": " ".join(classes),
        "aria-describedby": f"fb-{field.auto_id}",
    }
    if field.errors:
        attrs["aria-invalid"] = "true"
    if label:
        attrs["aria-label"] = label
    return field.as_widget(attrs=attrs)


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
