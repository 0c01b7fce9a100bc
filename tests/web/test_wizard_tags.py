"""The wizard's rows, cells, feedback and cards are Jinja2 macros
(proposals/jinja2/proposals/rows/, rendered by the tags): the same HTML, as elements and
attributes, as Django's own widget templates and the Django templates they replaced,
with the same ids, names, values and ARIA wiring (whitespace and the order of
attributes aside: compared as parsed HTML). The sidebar's lists and the step
templates' table loops are in test_wizard_tables.py."""

import re
from types import SimpleNamespace

import pytest
from django import forms
from django.template import Context
from django.test.html import parse_html

from proposals.domain.sections import TABLE_BY_KIND
from proposals.forms import JobTypeForm, MeasurementForm
from proposals.templatetags import fragments
from tests.factories import CodeEntryFactory, JobTypeFactory, ScalingMeasurementFactory
from tests.web.old_page_tags import old_template as Template


class Everything(forms.Form):
    text = forms.CharField(widget=forms.TextInput(attrs={"inputmode": "decimal"}))
    number = forms.IntegerField(required=False)
    area = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
    choice = forms.ChoiceField(
        choices=[("", "—"), ("1", "A & B"), ("2", "<two>"), ("x", 'say "x"')]
    )
    grouped = forms.ChoiceField(choices=[("G", [("1", "one"), ("2", "two")])])


ATTRS = {"class": "form-control", "aria-describedby": "fb-x", "aria-label": "A <b>"}


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"text": 'a "quoted" <v>', "number": "7", "area": "x\ny", "choice": "2"},
        {"text": "", "number": "", "area": "", "choice": "x", "grouped": "2"},
        {"choice": "nope"},
    ],
)
def test_controls_render_as_django_renders_them(data):
    """The row macro's input, select and text area are Django's widgets: same
    name, id, value, selected option, classes and attributes (with and without
    errors); the grouped select is left to Django."""
    form = Everything(data, prefix="row-3")
    macro = fragments.fragment("control")
    for name in form.fields:
        field = form[name]
        control = fragments.Control(field.field, form, label="A <b>")
        errors = form.errors.get(name) if data else None
        attrs = {
            "class": "form-control" + (" is-invalid" if errors else ""),
            "aria-describedby": f"fb-{field.auto_id}",
            "aria-label": "A <b>",
        }
        attrs["class"] = attrs["class"].replace(
            "form-control", fragments.widget_class(field.field.widget)
        )
        cell = control.cell(
            form, name, errors, fallback=lambda f=field, a=attrs: f.as_widget(attrs=a)
        )
        assert (cell.control is None) == (name == "grouped")
        assert _html(macro([(None, *cell)])) == _html(field.as_widget(attrs=attrs))


def _html(text):
    """``text`` parsed (Django's assertHTMLEqual): equal when the elements, their
    attributes and text are, whatever the whitespace and attribute order."""
    return parse_html(str(text))


def _entities(html: str) -> str:
    """Jinja2's spelling of the escaped quotes as Django's (for text searches)."""
    return str(html).replace("&#34;", "&quot;").replace("&#39;", "&#x27;")


def _count(needle, haystack) -> int:
    return _html(haystack).count(_html(needle))


@pytest.mark.django_db
def test_row_cells_keep_ids_names_and_aria(proposal):
    code = CodeEntryFactory(proposal=proposal, name="trainer")
    rows = [
        (JobTypeForm, JobTypeFactory(proposal=proposal, title="Eval & test"), {}),
        (
            MeasurementForm,
            ScalingMeasurementFactory(proposal=proposal, code=code),
            {"codes": [code]},
        ),
    ]
    for form_class, row, kwargs in rows:
        form = form_class(instance=row, prefix=f"r-{row.pk}", **kwargs)
        html = Template(
            "{% load wizard_tags %}{% row_cells form specs %}{% row_feedback form specs %}"
        ).render(Context({"form": form, "specs": _specs(form), "page": as_page({})}))
        for name, field in form.fields.items():
            bound = form[name]
            expected = bound.as_widget(
                attrs={
                    "class": fragments.widget_class(field.widget)
                    + " "
                    + fragments.widget_class(field.widget)
                    + "-sm",
                    "aria-describedby": f"fb-{bound.auto_id}",
                    "aria-label": bound.label,
                }
            )
            assert _count(expected, html) == 1
            assert f'id="fb-{bound.auto_id}"' in html
            assert f'data-anchor="{bound.auto_id}"' in html


def _specs(form):
    from proposals.domain.fields import columns

    return [spec for spec in columns(form.table) if spec.name in form.fields]


# The templates these tags replaced (main before issue 16), as the reference for the
# HTML they write: the same elements, ids, names, classes and ARIA attributes.
OLD_FEEDBACK = """{% load wizard_tags %}{% with anchor=field.auto_id %}
<div id="fb-{{ anchor }}" class="field-feedback"{% if oob %} hx-swap-oob="true"{% endif %}>
  {% if field.errors %}<div class="invalid-feedback d-block" role="alert">{% for error in field.errors %}{{ error }} {% endfor %}</div>{% endif %}
  {% with note=field.form.notes|get_item:field.name %}{% if note %}<div class="small text-info-emphasis" data-testid="field-note">{{ note }}</div>{% endif %}{% endwith %}
  <div class="field-findings" data-anchor="{{ anchor }}">{% for item in findings_by_anchor|get_item:anchor %}<div class="finding-inline small text-{{ item.css }}-emphasis"><span class="badge text-bg-{{ item.css }} me-1">{{ item.finding.code }}</span>{{ item.finding.message }}</div>{% endfor %}</div>
  {% if field.name == "max_gpus_per_job" and proposal.max_gpus_per_job %}<div class="small text-body-secondary" data-testid="max-gpus-nodes">= {{ proposal.max_gpus_per_job|num }} physical GPU{{ proposal.max_gpus_per_job|pluralize }}{% if max_gpus_nodes %}, {{ max_gpus_nodes|num }} node{{ max_gpus_nodes|pluralize }} of {{ cluster.gpus_per_node }} GPUs{% endif %}</div>{% endif %}
  {% if not compact %}{% with text=help|get_item:field.name example=help_examples|get_item:field.name %}{% if text %}
  <div class="form-text">{{ text }}{% for item in example %} <span class="text-body-secondary d-block mt-1" data-testid="help-example">{% if item.lead %}{{ item.lead }}, for example{% else %}Example{% endif %}: <q>{{ item.text }}</q></span>{% endfor %}</div>
  {% endif %}{% endwith %}{% endif %}
</div>{% endwith %}"""  # noqa: E501
OLD_JOB_FIGURES = """{% load wizard_tags %}{% with figures=job_figures|get_item:row.pk %}<div id="jobs-{{ row.pk }}-computed" data-testid="job-gpu-hours"{% if oob %} hx-swap-oob="true"{% endif %}>{% if figures and figures.gpu_hours %}{{ figures.gpu_hours|num:2 }}{% if figures.nodes %}<div class="small text-body-secondary">{{ figures.nodes|num }} node{{ figures.nodes|pluralize }}{% if figures.walltime_ok is False %} · <span class="text-danger">over the walltime limit</span>{% endif %}</div>{% endif %}{% else %}<span class="text-body-secondary">—</span>{% endif %}{% if row|row_prefix:"jobs" in refused_rows %}<div class="small text-warning-emphasis" data-testid="job-figures-stale">from the last saved values</div>{% endif %}</div>{% endwith %}"""  # noqa: E501
OLD_POINT_FIGURES = """{% load wizard_tags %}{% with point=point_figures|get_item:row.pk %}<div id="measurements-{{ row.pk }}-computed" data-testid="point-figures"{% if oob %} hx-swap-oob="true"{% endif %}>{% if point %}{{ point.speedup|floatformat:2 }}x<div class="small">{{ point.efficiency|pct }}</div>{% else %}<span class="text-body-secondary">—</span>{% endif %}</div>{% endwith %}"""  # noqa: E501
OLD_FORM_ERRORS = """{% if form.prefix %}<div id="err-{{ form.prefix }}" class="row-errors"{% if oob %} hx-swap-oob="true"{% endif %}>{% if form.non_field_errors %}<div class="text-danger small" role="alert">{% for error in form.non_field_errors %}{{ error }} {% endfor %}</div>{% endif %}</div>{% endif %}"""  # noqa: E501
OLD_ROW_ACTIONS = """{% load wizard_tags %}{% with label=tables|get_item:kind %}{% with label=label.item|lower %}<div class="btn-group btn-group-sm row-actions" role="group" aria-label="Row actions">
  {% url 'proposals:row' pk=proposal.pk step=step.slug kind=kind row=row.pk operation="up" as up_url %}<button type="submit" class="btn btn-outline-secondary" formaction="{{ up_url }}" hx-post="{{ up_url }}" hx-target="#wizard-form" hx-swap="outerHTML" title="Move up"{% if first %} disabled{% endif %}><i class="bi bi-arrow-up" aria-hidden="true"></i><span class="visually-hidden">Move {{ label }} up</span></button>
  {% url 'proposals:row' pk=proposal.pk step=step.slug kind=kind row=row.pk operation="down" as down_url %}<button type="submit" class="btn btn-outline-secondary" formaction="{{ down_url }}" hx-post="{{ down_url }}" hx-target="#wizard-form" hx-swap="outerHTML" title="Move down"{% if last %} disabled{% endif %}><i class="bi bi-arrow-down" aria-hidden="true"></i><span class="visually-hidden">Move {{ label }} down</span></button>
  {% url 'proposals:row' pk=proposal.pk step=step.slug kind=kind row=row.pk operation="delete" as delete_url %}<button type="submit" class="btn btn-outline-danger" formaction="{{ delete_url }}" hx-post="{{ delete_url }}" hx-target="#wizard-form" hx-swap="outerHTML" hx-confirm="Remove this {{ label }}?" title="Remove"><i class="bi bi-trash" aria-hidden="true"></i><span class="visually-hidden">Remove {{ label }}</span></button>
</div>{% endwith %}{% endwith %}"""  # noqa: E501


def _same(new: str, old: str, *, ignore=()):
    """The same elements, attributes and text (as parsed HTML), but for the given
    added attributes."""
    for pattern in ignore:
        new = re.sub(pattern, "", str(new))
    assert _html(new) == _html(old)


def as_page(values: dict) -> SimpleNamespace:
    """The wizard's ``page`` as the tags read it, from the names the old templates
    (which the tags are compared with) read."""

    def given(name, otherwise):
        value = values.get(name)
        return otherwise if value is None else value

    return SimpleNamespace(
        findings=SimpleNamespace(by_anchor=given("findings_by_anchor", {})),
        proposal=values.get("proposal"),
        step=values.get("step"),
        max_gpus_nodes=values.get("max_gpus_nodes"),
        cluster=values.get("cluster"),
        help=SimpleNamespace(
            text=given("help", {}), examples=given("help_examples", {})
        ),
        gpu_unit_label=values.get("gpu_unit_label"),
        conflict_notes=given("conflict_notes", {}),
        units=values.get("units"),
        field_stamps={},
    )


class Row(forms.Form):
    max_gpus_per_job = forms.IntegerField()
    hours = forms.CharField()

    notes = {"hours": "Read 1,5 as 1.5 <hours>"}

    def clean(self):
        raise forms.ValidationError("This row & that one")


def _finding(code, message, css):
    return {"finding": SimpleNamespace(code=code, message=message), "css": css}


CONTEXTS = [
    {},
    {
        "oob": True,
        "findings_by_anchor": {
            "id_r-1-hours": [_finding("JOB-2", "Too <long>", "warning")],
            "id_r-1-max_gpus_per_job": [_finding("SEL-1", "Big", "danger")],
        },
        "proposal": SimpleNamespace(max_gpus_per_job=32),
        "max_gpus_nodes": 8,
        "cluster": SimpleNamespace(gpus_per_node=4),
        "help": {"hours": "Wall-clock & more", "max_gpus_per_job": "Largest"},
        "help_examples": {
            "hours": [
                SimpleNamespace(lead="", text="24 <h>"),
                SimpleNamespace(lead="Tested & run", text="48"),
            ]
        },
    },
    {"proposal": SimpleNamespace(max_gpus_per_job=1), "help": {"hours": "H"}},
]


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("data", [None, {"r-1-max_gpus_per_job": "x", "r-1-hours": ""}])
@pytest.mark.parametrize("compact", [False, True])
def test_feedback_as_the_template_wrote_it(context, data, compact):
    form = Row(data, prefix="r-1")
    for name in form.fields:
        values = {"help": {}, "help_examples": {}, **context}
        values.update(field=form[name], compact=compact, page=as_page(values))
        new = Template("{% load wizard_tags %}{% field_feedback field compact oob %}")
        _same(
            new.render(Context(values)),
            Template(OLD_FEEDBACK).render(Context(values)),
            # Added since: the label for the autosave, the examples' language
            # (portal text, English on a German or French page too) and the
            # findings box's id (a region of its own, issue 21).
            ignore=[r' data-label="[^"]*"', r'(?<=<q) lang="en-GB"', r' id="ff-[^"]*"'],
        )
    new = Template("{% load wizard_tags %}{% form_errors form %}")
    values = {**context, "form": form}
    _same(
        new.render(Context(values)), Template(OLD_FORM_ERRORS).render(Context(values))
    )


@pytest.mark.parametrize("oob", [False, True])
def test_figures_as_the_templates_wrote_them(oob):
    figures = {
        1: SimpleNamespace(gpu_hours=3840.0, nodes=2, walltime_ok=False),
        2: SimpleNamespace(gpu_hours=12.5, nodes=1, walltime_ok=True),
        3: SimpleNamespace(gpu_hours=0, nodes=None, walltime_ok=None),
    }
    points = {1: SimpleNamespace(speedup=1.899, efficiency=0.95)}
    for pk in (1, 2, 3, 4):
        values = {
            "row": SimpleNamespace(pk=pk),
            "job_figures": figures,
            "point_figures": points,
            "refused_rows": {"jobs-2"},
            "oob": oob,
        }
        # The rows' macros, as the table and the rows' regions call them.
        job = fragments.fragment("job_figures")(
            pk, figures.get(pk), f"jobs-{pk}" in values["refused_rows"], oob
        )
        point = fragments.fragment("point_figures")(pk, points.get(pk), oob)
        for written, old in ((job, OLD_JOB_FIGURES), (point, OLD_POINT_FIGURES)):
            _same(written, Template(old).render(Context(values)))


@pytest.mark.parametrize("kind", ["codes", "measurements", "jobs", "schedule"])
@pytest.mark.parametrize(
    ("first", "last"), [(True, False), (False, True), (True, True)]
)
def test_row_buttons_as_the_template_wrote_them(kind, first, last):
    values = {
        "proposal": SimpleNamespace(pk=7),
        "step": SimpleNamespace(slug="scalability"),
        "row": SimpleNamespace(pk=41),
        "kind": kind,
        "first": first,
        "last": last,
        "tables": TABLE_BY_KIND,
    }
    values["page"] = as_page(values)
    new = Template("{% load wizard_tags %}{% row_actions kind row first last %}")
    old = Template(OLD_ROW_ACTIONS).render(Context(values))
    _same(new.render(Context(values)), old)


class Mixed(forms.Form):
    name = forms.CharField(label="Name & <version>", required=False)
    about = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    role = forms.ChoiceField(choices=[("", "—"), ("a", "A & B")], required=False)
    hours = forms.IntegerField(required=True)
    agree = forms.BooleanField(required=False)
    kind = forms.ChoiceField(
        choices=[("x", "X"), ("y", "Y")], widget=forms.RadioSelect, required=False
    )
    notes = {"name": "Read as <1.5>"}


@pytest.mark.parametrize(
    "data", [None, {"c-2-name": 'a "b" <c>', "c-2-hours": "x", "c-2-role": "a"}]
)
@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"addon": "GPUs", "gpu_unit_label": "GPUs"},
        {"units": {"hours": "h <per> job"}, "compact": "c-2", "oob": True},
    ],
)
def test_wizard_field_as_the_field_template_writes_it(data, extra):
    """``{% wizard_field f.x %}`` (the code entries' fields) is byte for byte
    ``{% include "proposals/_field.html" with field=f.x %}``."""
    form = Mixed(data, prefix="c-2")
    values = {"help": {"name": "Say <what>"}, "help_examples": {}, "f": form, **extra}
    values["page"] = as_page(values)
    for name in form.fields:
        new = Template("{% load wizard_tags %}{% wizard_field f." + name + " %}")
        old = Template(
            '{% include "proposals/_field.html" with field=f.' + name + " %}"
        )
        _same(new.render(Context(values)), old.render(Context(values)))


@pytest.mark.django_db
def test_unbound_rows_share_one_set_of_fields_and_show_their_own_values(proposal):
    """A table's unbound row forms share their fields (no deep copy per row) yet
    each shows its own row; a posted row validates with fields of its own."""
    from proposals import selectors
    from proposals.wizard.steps import STEP_BY_SLUG, build_step_forms

    first, second, posted = (
        JobTypeFactory(proposal=proposal, title=title, gpus=gpus)
        for title, gpus in (("Eval & test", 8), ("Train", 16), ("Tune", 4))
    )
    proposal = selectors.proposal_get_for_member(user=proposal.owner, pk=proposal.pk)
    data = {f"jobs-{posted.pk}-title": "Tuned", f"jobs-{posted.pk}-gpus": "x"}
    forms_ = {
        row.row.pk: row.form
        for row in build_step_forms(STEP_BY_SLUG["scalability"], proposal, data).tables[
            "jobs"
        ]
    }
    a, b, c = forms_[first.pk], forms_[second.pk], forms_[posted.pk]
    assert a.fields["gpus"] is b.fields["gpus"] and a.fields is not b.fields
    assert c.fields["gpus"] is not a.fields["gpus"]
    assert (a["title"].value(), b["title"].value()) == ("Eval & test", "Train")
    assert (a["gpus"].value(), b["gpus"].value()) == ("8", "16")
    assert not c.is_valid() and "gpus" in c.errors and not a.errors
    assert f'name="jobs-{second.pk}-gpus"' in str(b["gpus"])


class _LazyHelp(dict):
    """As ``live.PerField``: empty (falsy) until a template asks for a field."""

    def __missing__(self, key):
        value = self[key] = f"Help for {key} & more"
        return value

    def get(self, key, default=None):
        return self[key]


def test_feedback_asks_a_help_mapping_filled_on_demand():
    form = Row(None, prefix="r-1")
    html = Template("{% load wizard_tags %}{% field_feedback field %}").render(
        Context({"field": form["hours"], "page": as_page({"help": _LazyHelp()})})
    )
    assert '<div class="form-text">Help for hours &amp; more</div>' in html
