"""What the wizard page's Jinja2 templates call (``proposals/jinja2/proposals/wizard/``):
plain functions of the wizard's ``page`` (:class:`proposals.wizard.page.Page`) and
their arguments, never of a template context, exposed as the environment's globals
and filters (``jinja_env.environment``). Presentation only: no figure is computed
here.

The fragments repeated for every row or field (feedback, figures, buttons,
findings) are the macros of ``proposals/jinja2/proposals/rows/`` (see
``fragments``); these functions gather their data and call them."""

import re
from typing import NamedTuple

from django import forms
from django.template.defaultfilters import truncatechars
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language, get_language_info
from django.utils.translation import gettext as _

from proposals import localization
from proposals.domain import limits
from proposals.domain.sections import TABLE_BY_KIND
from proposals.table_rows import rows_of
from proposals.templatetags import fragments
from proposals.templatetags.fragments import fragment, macro
from proposals.templatetags.glossary_tags import numbered_term_link
from proposals.templatetags.planning_tags import kit_counts, logs_count, paste_count
from proposals.wizard.feedback import feedback, feedback_values


def get_item(mapping, key):
    """``mapping[key]`` or ``None``; for dicts keyed by row id or field name."""
    if mapping is None:
        return None
    return mapping.get(key)


def table_room(proposal, kind) -> limits.TableRoom:
    """How full table ``kind`` of ``proposal`` is (the rows its request read), for
    the note beside the table's add button."""
    return limits.TableRoom(kind, len(rows_of(proposal, kind)))


def widget(field, size="", label=""):
    """Render a field's widget (Django's own templates) with Bootstrap classes and
    ARIA wiring to its feedback."""
    css = fragments.widget_class(field.field.widget)
    classes = [css]
    if size and css != "form-check-input":
        classes.append(f"{css}-{size}")
    if field.form.errors.get(field.name):
        classes.append("is-invalid")
    attrs = {
        "class": " ".join(classes),
        "aria-describedby": f"fb-{field.auto_id}",
    }
    if label:
        attrs["aria-label"] = label
    return field.as_widget(attrs=attrs)


def is_checkbox(field):
    return isinstance(field.field.widget, forms.CheckboxInput)


def is_radio(field):
    return isinstance(field.field.widget, forms.RadioSelect)


class TermTips:
    """The glossary tooltips of one rendering, numbered in order (their ids:
    ``term-tip-<slug>-<n>``), so a term may appear several times."""

    def __init__(self):
        self.count = 0

    def __call__(self, slug, text):
        self.count += 1
        return numbered_term_link(slug, text, self.count)


def column_header(page, spec, tips: TermTips):
    """A table column's header: the field's short label, with the GPU unit the
    applicant types in (switched live by the GPU/GCD toggle), linked to the
    glossary when the field names a term (``tips``: the rendering's tooltips)."""
    text = spec.short or spec.label
    if "{gpus}" in text:
        before, after = text.split("{gpus}", 1)
        unit = page.gpu_unit_label
        text = format_html(
            "{}<span data-gpu-unit-label>{}</span>{}", before, unit, after
        )
    # A header whose word has a glossary entry links to it, with hover/focus help.
    return tips(spec.term, text) if spec.term else text


def field_feedback(page, field, compact=False, oob=False):
    """A field's feedback block (``fb-<input id>``, ``rows/feedback.html``): errors,
    the reading note, the reviewer's findings on it, and (not ``compact``) the
    tier-fitted help. Autosave answers replace it out of band, never the input."""
    values = feedback_values(page)
    data = feedback(values, field, compact=bool(compact), oob=bool(oob))
    return fragment("feedback")([data], False)


def field_history(page, field):
    """Beside a field's label, a small button whose tooltip (on hover and focus,
    without script) says who changed the field last and when
    (``rows/field_history.html``); nothing when nobody is known."""
    prefix = field.form.prefix
    key = field.name
    if prefix:  # a row's: jobs-17 -> jobs:17:<name>
        kind, _sep, pk = prefix.partition("-")
        key = f"{kind}:{pk}:{field.name}"
    stamp = page.field_stamps.get(key)
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


def row_cells(page, form, specs):
    """One table row's input cells, one ``<td>`` per column of ``specs``, as
    ``table_rows`` writes them (without its buttons and figures)."""
    return one_row(page, form, specs)[0]


def row_feedback(page, form, specs):
    """The feedback blocks of one row's cells (errors, notes, findings), written
    under the row across its whole width rather than squeezed into each cell."""
    return one_row(page, form, specs)[1]


def one_row(page, form, specs):
    values = feedback_values(page)
    cells, blocks = [], []
    for spec in specs:
        bound_field = form[spec.name]
        field = bound_field.field
        control = fragments.Control(field, form, size="sm", label=bound_field.label)
        errors = form.errors.get(spec.name)
        col = column(spec, field, values["gpu_unit_label"])
        cells.append((col, *cell(form, spec.name, control, errors)))
        blocks.append(feedback(values, bound_field, compact=True))
    return fragment("control")(cells), fragment("feedback")(blocks, False)


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


def action_text(item: str) -> ActionText:
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


def row_actions_data(page, kind) -> RowActions:
    """One reverse() per operation for a table; each row's URL is that URL with
    the row's id in place of 0."""
    proposal, step = page.proposal, page.step
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
    return RowActions(**urls, text=action_text(item))


def row_actions(page, kind, row, first=False, last=False):
    """A row's buttons: each posts the whole step form to its own small endpoint
    (``formaction`` without JavaScript, ``hx-post`` with it), so what was typed is
    saved first."""
    return fragment("row_actions")(
        row_actions_data(page, kind), int(row.pk), bool(first), bool(last)
    )


def form_errors(form, oob=False):
    """A row form's own errors (not a field's), under a stable id (out of band)."""
    return fragment("row_errors")(fragments.row_errors(form, oob=bool(oob)))


def wizard_field(page, field, addon="", compact=False, oob=False):
    """One wizard field (``proposals/wizard/field.html``): its label, its input and
    its feedback block."""
    return macro("proposals/wizard/field.html#field")(
        page, field, addon or "", bool(compact), bool(oob)
    )


def reader_language() -> dict:
    """The reader's language (``code``, ``name_local``): Django's
    ``{% get_language_info for LANGUAGE_CODE %}``."""
    return get_language_info(get_language())


#: The environment's globals and filters (``jinja_env.environment``).
GLOBALS = {
    "widget": widget,
    "column_header": column_header,
    "term_tips": TermTips,
    "field_feedback": field_feedback,
    "field_history": field_history,
    "row_cells": row_cells,
    "row_feedback": row_feedback,
    "row_actions": row_actions,
    "form_errors": form_errors,
    "wizard_field": wizard_field,
    "table_room": table_room,
    "kit_counts": kit_counts,
    "paste_count": paste_count,
    "logs_count": logs_count,
    "reader_language": reader_language,
}
FILTERS = {
    "get_item": get_item,
    "is_checkbox": is_checkbox,
    "is_radio": is_radio,
    "truncatechars": truncatechars,
}
