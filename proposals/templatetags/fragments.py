"""The wizard's repeated fragments (table rows, code cards, feedback, findings) as
Jinja2 macros in ``proposals/jinja2/proposals/rows/``, and the live regions' macros in
``proposals/jinja2/proposals/live/``, rendered through Django's Jinja2 backend
(``TEMPLATES`` in settings; :func:`environment`).

A step with hundreds of rows writes thousands of inputs. Django's own templates cost
about ten times more per cell than the Python the wizard once wrote by hand, so the
markup of a row lives in compiled Jinja2 macros instead, and this module only
prepares their data: what every row of a column shares (its classes, ARIA, the
widget's own attributes, the select's options) is worked out once per table
(:class:`Control`), each row adds its name, id, value and messages.

Every macro is called as a Python function (``fragment("feedback")(blocks, False)``) and
returns markupsafe's ``Markup``, which Django's templates take as safe HTML; the
macros escape what they insert (``autoescape``). The only HTML made here is an
attribute list (:func:`attributes`: Django's ``flatatt``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from django import forms
from django.conf import settings
from django.forms.utils import flatatt
from django.template import engines
from django.template.defaultfilters import linebreaksbr
from django.templatetags.static import static
from django.urls import get_resolver, get_script_prefix, get_urlconf, reverse
from django.utils.safestring import SafeString
from django.utils.translation import (
    get_language,
    gettext,
    ngettext,
    npgettext,
    pgettext,
)
from jinja2 import Environment, StrictUndefined

from proposals.domain.numbers import active_format, grouped
from proposals.fragment_cache import key_of, rendered
from proposals.frame import frame
from proposals.routing import cutoff_shown
from proposals.templatetags import printers
from proposals.templatetags.review_tags import anchor_groups
from proposals.wizard.feedback import feedback_values, form_feedback
from proposals.wizard.regions import finding_links


def nodes_text(nodes) -> str:
    """``2 nodes`` (the job figures' second line): every job row of a table writes
    one, mostly with the same few counts, so each is made once per language and
    number format."""
    return _nodes_text(get_language(), active_format(), nodes)


@lru_cache(maxsize=256)
def _nodes_text(language, fmt, nodes) -> str:
    del language  # part of the key: the text's language is the active one
    text = ngettext("%(nodes)s node", "%(nodes)s nodes", nodes)
    return text % {"nodes": grouped(nodes, 2, fmt=fmt)}


def environment(**options) -> Environment:
    """The Jinja2 environment of the macros (``jinja_env.environment`` adds the
    wizard page's functions: the ``jinja2`` template engine's, in settings): Django's
    translations, the Django templates' own filters (the same functions:
    ``printers``), ``url`` and the findings list's links."""
    # Strict whatever the backend proposes: Django's Jinja2 backend sets its own
    # default (``Undefined``, or ``DebugUndefined`` with DEBUG), which would write a
    # name a template does not have as nothing.
    options["undefined"] = StrictUndefined
    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    # ``{% trans %}`` trims its whitespace, as ``{% blocktranslate trimmed %}`` does
    # (and as ``makemessages`` extracts it: aifactory/management/commands/).
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(
        gettext, ngettext, newstyle=False, pgettext=pgettext, npgettext=npgettext
    )
    env.filters.update(
        num=printers.num,
        pct=printers.pct,
        points=printers.points_filter,
        hours=printers.hours,
        speedup=printers.speedup,
        when=printers.when,
        iso=printers.iso,
        linebreaksbr=linebreaksbr,
        anchor_groups=anchor_groups,
    )
    env.globals.update(
        nodes_text=nodes_text,
        url=url,
        finding_links=finding_links,
        region=render_region,
        posted_feedback=posted_feedback,
        frame=frame,
        interface_languages=interface_languages,
        cutoff_shown=cutoff_shown,
        static=static,
        current_language=get_language,
    )
    return env


def interface_languages() -> list[tuple[str, str]]:
    """The interface's languages, named in the active one: Django's
    ``{% get_available_languages %}``."""
    return [(code, gettext(name)) for code, name in settings.LANGUAGES]


def render_region(region, oob=False):
    """A live region (:mod:`proposals.wizard.regions`): its macro called with its
    inputs, out of band with ``oob``; a region marked ``cached`` is rendered once
    per key (its inputs in the reader's conventions: ``proposals.fragment_cache``).
    The templates place regions through this (``region()``)."""
    oob = bool(oob)

    def render():
        return macro(region.template)(**region.context(), oob=oob)

    if not region.cached:
        return render()
    return rendered(key_of("region", region.template, region.key, str(oob)), render)


def url(name: str, *args, **kwargs) -> str:
    """``{{ url("proposals:step", pk, slug) }}`` or with keywords: Django's
    ``{% url %}``, reversed once per URL configuration, script prefix, name and
    arguments (Django walks the patterns each time: a staff review page's 14 cost
    0.3 ms)."""
    try:
        return _reversed(
            get_resolver(get_urlconf()),
            get_script_prefix(),
            name,
            args,
            tuple(sorted(kwargs.items())),
        )
    except TypeError:  # an argument that cannot be a key
        return reverse(name, args=args or None, kwargs=kwargs or None)


@lru_cache(maxsize=4096)
def _reversed(_resolver, _prefix: str, name: str, args: tuple, kwargs: tuple) -> str:
    """``reverse`` for :func:`url`; the resolver and the script prefix are part of
    the key (a test's URL configuration, a site under a path), not read here."""
    return reverse(name, args=args or None, kwargs=dict(kwargs) or None)


def macro(template: str):
    """The macro ``template`` names: ``proposals/<folder>/<file>.html#<macro>``.
    Looked up once per environment unless it reloads templates (``DEBUG``):
    Jinja2's template cache moves what it finds to the end of a queue, comparing
    it with each name before it (0.06 ms of every autosave, measured on
    2026-12-06)."""
    env = engines["jinja2"].env
    if env.auto_reload:
        return _macro(env, template)
    return _kept_macro(env, template)


def _macro(env: Environment, template: str):
    path, _, name = template.partition("#")
    return getattr(env.get_template(path).module, name)


# A template's module is made once and kept (``Template.module``), so is its macro.
_kept_macro = lru_cache(maxsize=512)(_macro)


#: Where the rows' macros live (``fragment(name)``).
ROWS = "proposals/rows/"


def fragment(name: str):
    """The macro ``name`` of ``proposals/jinja2/proposals/rows/<name>.html``."""
    return macro(f"{ROWS}{name}.html#{name}")


def attributes(attrs: dict) -> SafeString:
    """`` name="value"`` for each attribute, bare for ``True``, none for ``False``
    or ``None``: Django's ``flatatt`` (escaped, with ``format_html``)."""
    return flatatt(attrs)


def widget_class(widget) -> str:
    if isinstance(widget, (forms.CheckboxInput, forms.RadioSelect)):
        return "form-check-input"
    if isinstance(widget, forms.Select):
        return "form-select"
    return "form-control"


# The widgets a row's macro writes; any other (or a subclass) is rendered by Django.
_INPUTS = (forms.TextInput, forms.NumberInput, forms.EmailInput, forms.URLInput)
_INPUT_TEMPLATES = frozenset(
    f"django/forms/widgets/{name}.html"
    for name in ("text", "number", "email", "url", "password", "search", "tel")
)
# Set per row by the macro (or by Django for the widgets it renders).
_PER_ROW = ("id", "aria-describedby", "aria-invalid", "class")


class Control:
    """One field's input as every row writes it (``wizard_tags.widget(field, size,
    label)``): the tag, its classes with and without errors, and the attributes
    every row shares, worked out once per table. ``kind`` is ``""`` for a widget
    left to Django's own rendering."""

    __slots__ = ("field", "kind", "attrs", "invalid", "options", "index", "chosen")

    def __init__(self, field, form, *, size="", label=""):
        self.field = field
        self.kind = self._kind(field, form)
        self.options = self.index = self.attrs = self.invalid = None
        self.chosen: dict = {}
        if not self.kind:
            return
        widget = field.widget
        extra = {"aria-label": label} if label else {}
        # BoundField.build_widget_attrs (these widgets' use_required_attribute
        # ignores the value)
        if widget.use_required_attribute(None) and field.required:
            extra["required"] = form.use_required_attribute
        if field.disabled:
            extra["disabled"] = True
        final = widget.build_attrs(widget.attrs, extra)
        shared = {k: v for k, v in final.items() if k not in _PER_ROW}
        css = widget_class(widget)
        css = f"{css} {css}-{size}" if size else css
        kind = {"type": widget.input_type} if self.kind == "input" else {}
        # The attributes of the row's input but its name, id and value, without
        # and with errors: the same for every row of the column.
        self.attrs = attributes({**kind, "class": css, **shared})
        self.invalid = attributes(
            {**kind, "class": f"{css} is-invalid", "aria-invalid": "true", **shared}
        )
        if self.kind == "select":
            self.options = tuple(
                ("" if value is None else str(value), label)
                for value, label in widget.choices
            )
            self.index = {}
            for position, (value, _label) in enumerate(self.options):
                self.index.setdefault(value, position)

    @staticmethod
    def _kind(field, form) -> str:
        widget = field.widget
        auto_id = form.auto_id
        if not (auto_id and "%s" in str(auto_id)) or field.localize:
            return ""
        if field.show_hidden_initial or "id" in widget.attrs:
            return ""
        if any(name in widget.attrs for name in _PER_ROW):
            return ""
        if type(widget) in _INPUTS and widget.template_name in _INPUT_TEMPLATES:
            return "input"
        if type(widget) is forms.Textarea:
            return "textarea"
        if type(widget) is forms.Select:
            try:
                choices = tuple(widget.choices)
            except (TypeError, ValueError):
                return ""
            if any(isinstance(label, (list, tuple)) for _, label in choices):
                return ""  # option groups: Django writes them
            return "select"
        return ""

    def cell(self, form, name, errors, *, fallback) -> InputCell:
        """This control in ``form`` (a row), or Django's rendering (``fallback()``)
        where the field is not this control's or not one the macro writes."""
        field = form.fields.get(name)
        if not self.kind or field is not self.field:
            return InputCell(None, "", "", None, bool(errors), fallback())
        html_name = form.add_prefix(name)
        if form.is_bound:
            value = form[name].value()
        else:
            value = field.prepare_value(form.get_initial_for_field(field, name))
        value = field.widget.format_value(value)
        if self.kind == "select":
            value = self._options(value)
        elif self.kind == "textarea":
            value = value or ""
        return InputCell(
            self, html_name, form.auto_id % html_name, value, bool(errors), None
        )

    def _options(self, value):
        """The select's options with the first of ``value`` found selected: rendered
        (``rows/options.html``) once per table for each option chosen, not once
        per row (a measurement's code list has as many options as code entries)."""
        selected = None
        for wanted in value:
            if wanted in self.index:
                selected = self.index[wanted]
                break
        html = self.chosen.get(selected)
        if html is None:
            html = self.chosen[selected] = fragment("options")(self.options, selected)
        return html


class InputCell(NamedTuple):
    """One row's input: ``control`` and its row's values (a select's ``value``: its
    options), or Django's ``html``."""

    control: Control | None
    name: str
    id: str
    value: object
    invalid: bool
    html: SafeString | None


class RowErrors(NamedTuple):
    """A row form's own errors (not a field's): ``err-<prefix>``."""

    prefix: str
    errors: list
    oob: bool


def row_errors(form, *, oob) -> RowErrors | None:
    if not form.prefix:
        return None
    return RowErrors(form.prefix, form.non_field_errors(), bool(oob))


def posted_feedback(page, oob=True):
    """Out of band in an autosave's answer: the feedback block of every input of
    every row form it sent (compact) and each one's own errors
    (``rows/posted_feedback.html``). The step's own form's blocks are a keyed
    region (``wizard.feedback``), sent with the regions that changed."""
    values = feedback_values(page)
    forms_ = [
        (form_feedback(values, form, oob=oob), row_errors(form, oob=oob))
        for form in page.forms.all_forms()
        if form is not page.forms.main
    ]
    return fragment("posted_feedback")(forms_)
