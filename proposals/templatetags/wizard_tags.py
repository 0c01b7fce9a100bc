"""Small presentation helpers for the wizard templates (no computation of figures).

The fragments repeated for every row or field (feedback, figures, buttons, findings)
are Jinja2 macros in ``proposals/jinja2/proposals/rows/`` (see ``fragments``); the tags
here gather their data from the template's context and call them."""

import re
from typing import NamedTuple

from django import forms, template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

from proposals import localization
from proposals.domain import limits
from proposals.domain.numbers import grouped
from proposals.domain.sections import TABLE_BY_KIND
from proposals.table_rows import rows_of
from proposals.templatetags import fragments, printers
from proposals.templatetags.fragments import fragment
from proposals.templatetags.glossary_tags import term_link

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping[key]`` or ``None``; for dicts keyed by row id or field name."""
    if mapping is None:
        return None
    return mapping.get(key)


@register.simple_tag
def table_room(proposal, kind) -> limits.TableRoom:
    """How full table ``kind`` of ``proposal`` is (the rows its request read), for
    the note beside the table's add button."""
    return limits.TableRoom(kind, len(rows_of(proposal, kind)))


# A number in the reader's format (``18,176``, ``18.176``, ``18 176``: the one
# activated for the request or e-mail, see ``proposals.localization``); ``—`` for
# nothing. One printer for every page and export, and for both engines (printers).
register.filter("num", printers.num)
register.filter("hours", printers.hours)
register.filter("speedup", printers.speedup)
register.filter("when", printers.when)
register.filter("pct", printers.pct)
register.filter("points", printers.points_filter)


@register.filter
def megabytes(value):
    """A size in bytes as megabytes with one decimal, in the reader's format."""
    return grouped((value or 0) / 2**20, 1, trim=False)


def _errors(field):
    """``field.errors`` without making an empty error list for every field."""
    return field.form.errors.get(field.name)


@register.simple_tag
def widget(field, size="", label=""):
    """Render a field's widget (Django's own templates) with Bootstrap classes and
    ARIA wiring to its feedback."""
    css = fragments.widget_class(field.field.widget)
    classes = [css]
    if size and css != "form-check-input":
        classes.append(f"{css}-{size}")
    errors = _errors(field)
    if errors:
        classes.append("is-invalid")
    attrs = {
        "class": " ".join(classes),
        "aria-describedby": f"fb-{field.auto_id}",
    }
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
        unit = context["page"].gpu_unit_label
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


@register.simple_tag(takes_context=True)
def field_feedback(context, field, compact=False, oob=False):
    """``{% field_feedback field compact oob %}``: a field's feedback block
    (``fb-<input id>``, ``rows/feedback.html``): errors, the reading note, the
    reviewer's findings on it, and (not ``compact``) the tier-fitted help. Autosave
    answers replace it out of band, never the input."""
    values = fragments.feedback_values(context["page"])
    data = fragments.feedback(values, field, compact=bool(compact), oob=bool(oob))
    return fragment("feedback")([data])


@register.simple_tag(takes_context=True)
def field_history(context, field):
    """``{% field_history field %}``: beside a field's label, a small button whose
    tooltip (on hover and focus, without script) says who changed the field last
    and when (``rows/field_history.html``); nothing when nobody is known."""
    stamps = context["page"].field_stamps
    prefix = field.form.prefix
    key = field.name
    if prefix:  # a row's: jobs-17 -> jobs:17:<name>
        kind, _sep, pk = prefix.partition("-")
        key = f"{kind}:{pk}:{field.name}"
    stamp = stamps.get(key)
    if stamp is None:
        return ""
    text = _("Last changed by %(name)s on %(when)s") % {
        "name": stamp.name,
        "when": localization.when(stamp.at),
    }
    label = _("Who changed “%(field)s” last") % {"field": field.label}
    return fragment("field_history")(f"fh-{field.auto_id}", text, label)


class Column(NamedTuple):
    """A table column as its cells show it: the cell's attributes (its width, its
    label for the stacked small-screen layout) and the GPU unit (or ``None``)."""

    attrs: str
    unit: str | None
    label: str


#: A label word longer than this (German "Kommunikationsaufwand", 21) does not fit
#: half a phone card (9rem of bold .8rem text: about 18 characters): its cell takes
#: the card's whole width (``data-label-long``, app.css) rather than have the word
#: cut anywhere.
LONG_LABEL_WORD = 16


def column(spec, field, unit_label) -> Column:
    unit = None
    if field.widget.attrs.get("data-gpu-count"):
        unit = unit_label or ""
    css = f"col-{spec.width}" if spec.width else False
    label = spec.label
    long = max(map(len, re.split(r"[\s\u00ad-]+", label)), default=0)
    attrs = fragments.attributes(
        {
            "class": css,
            "data-label": label,
            "data-label-long": long > LONG_LABEL_WORD,
        }
    )
    return Column(attrs, unit, label)


def cell(form, name, control, errors):
    """A row's input of column ``name`` (fragments.InputCell); ``control`` is the
    column's (fragments.Control), made once per table."""

    def fallback():
        bound_field = form[name]
        return widget(bound_field, "sm", bound_field.label)

    return control.cell(form, name, errors, fallback=fallback)


@register.simple_tag(takes_context=True)
def row_cells(context, form, specs):
    """One table row's input cells, one ``<td>`` per column of ``specs``, as
    ``{% table_rows %}`` writes them (without its buttons and figures)."""
    return _one_row(context, form, specs)[0]


@register.simple_tag(takes_context=True)
def row_feedback(context, form, specs):
    """The feedback blocks of one row's cells (errors, notes, findings), written
    under the row across its whole width rather than squeezed into each cell."""
    return _one_row(context, form, specs)[1]


def _one_row(context, form, specs):
    values = fragments.feedback_values(context["page"])
    cells, blocks = [], []
    for spec in specs:
        bound_field = form[spec.name]
        field = bound_field.field
        control = fragments.Control(field, form, size="sm", label=bound_field.label)
        errors = form.errors.get(spec.name)
        col = column(spec, field, values["gpu_unit_label"])
        cells.append((col, *cell(form, spec.name, control, errors)))
        blocks.append(fragments.feedback(values, bound_field, compact=True))
    return fragment("control")(cells), fragment("feedback")(blocks)


class ActionText(NamedTuple):
    """The row buttons' words (attributes: the macro reads ``a.text.up`` on every
    row, which a dict answers only after a failed attribute lookup)."""

    group: str
    up: str
    down: str
    delete: str
    up_item: str
    down_item: str
    delete_item: str
    confirm: str


class RowActions(NamedTuple):
    """A table's row buttons (``rows/row_actions.html``): each operation's URL before
    and after the row's id, and the buttons' words, translated once per table
    rather than once per row (a table of hundreds of rows asked gettext thousands
    of times)."""

    up: tuple[str, str]
    down: tuple[str, str]
    delete: tuple[str, str]
    text: ActionText


def _action_text(item: str) -> ActionText:
    return ActionText(
        group=_("Row actions"),
        up=_("Move up"),
        down=_("Move down"),
        delete=_("Remove"),
        up_item=_("Move %(item)s up") % {"item": item},
        down_item=_("Move %(item)s down") % {"item": item},
        delete_item=_("Remove %(item)s") % {"item": item},
        confirm=_("Remove this %(item)s?") % {"item": item},
    )


def row_actions_data(context, kind) -> RowActions:
    """One reverse() per table and operation for the whole page (kept in the render
    context); each row's URL is that URL with the row's id in place of 0."""
    proposal, step = context["page"].proposal, context["page"].step
    key = ("row-actions", proposal.pk, step.slug, kind)
    found = context.render_context.get(key)
    if found is None:
        generic = f"/rows/{kind}/0/"
        urls = {}
        for operation in ("up", "down", "delete"):
            url = reverse(
                "proposals:row",
                kwargs={
                    "pk": proposal.pk,
                    "step": step.slug,
                    "kind": kind,
                    "row": 0,
                    "operation": operation,
                },
            )
            head, tail = url.split(generic, 1)
            urls[operation] = (f"{head}/rows/{kind}/", f"/{tail}")
        item = str(TABLE_BY_KIND[kind].item).lower()
        found = RowActions(**urls, text=_action_text(item))
        context.render_context[key] = found
    return found


@register.simple_tag(takes_context=True)
def row_actions(context, kind, row, first=False, last=False):
    """A row's buttons: each posts the whole step form to its own small endpoint
    (``formaction`` without JavaScript, ``hx-post`` with it), so what was typed is
    saved first."""
    return fragment("row_actions")(
        row_actions_data(context, kind), int(row.pk), bool(first), bool(last)
    )


@register.simple_tag(takes_context=True)
def form_errors(context, form):
    """A row form's own errors (not a field's), under a stable id (out of band)."""
    errors = fragments.row_errors(form, oob=bool(context.get("oob")))
    return fragment("row_errors")(errors)


@register.simple_tag(takes_context=True)
def wizard_field(context, field):
    """``{% include "proposals/_field.html" with field=field %}`` as a tag."""
    with context.push(field=field):
        return context.template.engine.get_template("proposals/_field.html").render(
            context
        )
