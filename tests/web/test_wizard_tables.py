"""The sidebar's finding and scaling lists and the step templates' table loops,
rendered by the macros: the same HTML, as parsed elements and attributes,
as the Django template loops they replaced (split from test_wizard_tags.py); and
each step's template chosen by its slug."""

from types import SimpleNamespace

import pytest
from django import forms
from django.template import Context

from proposals.domain.sections import TABLE_BY_KIND
from proposals.templatetags import fragments
from proposals.templatetags.fragments import fragment
from proposals.wizard.regions import finding_links
from tests.factories import CodeEntryFactory, JobTypeFactory, ScalingMeasurementFactory
from tests.web.old_page_tags import old_template as Template
from tests.web.test_wizard_tags import (
    OLD_JOB_FIGURES,
    OLD_POINT_FIGURES,
    _entities,
    _finding,
    _same,
)

OLD_FINDING_ITEMS = """{% for item in findings %}
      <li class="mb-1 finding finding-{{ item.finding.severity }}" data-anchor="{{ item.anchor }}" data-css="{{ item.css }}">
        <span class="badge text-bg-{{ item.css }}">{{ item.finding.code }}</span>
        <a href="{% if staff_view %}#section-{{ item.step }}-h{% else %}{% url 'proposals:step' proposal.pk item.step %}#{{ item.anchor }}{% endif %}" class="link-body-emphasis">{{ item.finding.message }}</a>
      </li>
      {% empty %}<li class="text-body-secondary">Nothing to flag yet.</li>
      {% endfor %}"""  # noqa: E501  (the sidebar's loop before finding_items)


@pytest.mark.parametrize("staff_view", [False, True])
@pytest.mark.parametrize("count", [0, 3])
def test_finding_items_as_the_sidebar_wrote_them(staff_view, count):
    def finding(i):
        message = f"Row {i} <b>needs</b> & more"
        return SimpleNamespace(severity="warning", code=f"S-{i}", message=message)

    findings = [
        {
            "finding": finding(i),
            "css": "warning",
            "anchor": f"id_jobs-{i}-gpus",
            "step": ("scalability", "codes")[i % 2],
        }
        for i in range(count)
    ]
    values = {
        "findings": findings,
        "staff_view": staff_view,
        "proposal": SimpleNamespace(pk=7),
    }
    items = finding_links(findings, staff_view, 7, "", "")
    _same(
        fragment("finding_items")(items),
        Template(OLD_FINDING_ITEMS).render(Context(values)),
    )


OLD_SCALING_ROWS = """{% load wizard_tags %}{% for point in points %}
      <tr><td class="text-end">{{ point.gpus|num }}</td><td class="text-end">{{ point.throughput|num:2 }} <span class="text-body-secondary">{{ point.unit }}</span></td><td class="text-end">{{ point.speedup|floatformat:2 }}x</td><td class="text-end">{{ point.efficiency|pct }}</td></tr>
      {% endfor %}"""  # noqa: E501  (the sidebar's loop before scaling_rows)


def test_scaling_rows_as_the_sidebar_wrote_them():
    from decimal import Decimal

    points = [
        SimpleNamespace(
            gpus=8, throughput=Decimal("1234.5"), unit="img/s", speedup=1, efficiency=1
        ),
        SimpleNamespace(
            gpus=1024,
            throughput=98765.4321,
            unit="tokens <per> s & more",
            speedup=7.456,
            efficiency=None,
        ),
    ]
    for chosen in (points, points[:1], []):
        values = {"points": chosen}
        _same(
            fragment("scaling_rows")(chosen),
            Template(OLD_SCALING_ROWS).render(Context(values)),
        )


# The step templates' loops over a table's row forms before table_rows and
# code_entries (main before this change), byte for byte the reference for the tags.
OLD_TABLE_LOOPS = {
    "measurements": """{% for entry in forms.tables.measurements %}{% with f=entry.form row=entry.row %}
    <tr id="measurements-{{ row.pk }}">
      {% row_cells f columns.measurements %}
      <td class="text-end font-monospace computed" data-label="Speedup / efficiency">{% point_figures row %}</td>
      <td class="row-actions-cell">{% row_actions "measurements" row forloop.first forloop.last %}</td>
    </tr>
    <tr class="row-feedback"><td colspan="{{ columns.measurements|length|add:2 }}">{% row_feedback f columns.measurements %}{% form_errors f %}</td></tr>
    {% endwith %}{% empty %}
    <tr><td colspan="{{ columns.measurements|length|add:2 }}" class="text-body-secondary small">No measurements yet.</td></tr>
    {% endfor %}""",  # noqa: E501
    "jobs": """{% for entry in forms.tables.jobs %}{% with f=entry.form row=entry.row %}
    <tr id="jobs-{{ row.pk }}">
      {% row_cells f columns.jobs %}
      <td class="text-end font-monospace computed" data-label="GPU-hours">{% job_figures row %}</td>
      <td class="row-actions-cell">{% row_actions "jobs" row forloop.first forloop.last %}</td>
    </tr>
    <tr class="row-feedback"><td colspan="{{ columns.jobs|length|add:2 }}">{% row_feedback f columns.jobs %}{% form_errors f %}</td></tr>
    {% endwith %}{% empty %}
    <tr><td colspan="{{ columns.jobs|length|add:2 }}" class="text-body-secondary small">No job types yet.</td></tr>
    {% endfor %}""",  # noqa: E501
    "schedule": """{% for entry in forms.tables.schedule %}{% with f=entry.form row=entry.row %}
    <tr id="schedule-{{ row.pk }}">
      {% row_cells f columns.schedule %}
      <td class="row-actions-cell">{% row_actions "schedule" row forloop.first forloop.last %}</td>
    </tr>
    <tr class="row-feedback"><td colspan="{{ columns.schedule|length|add:1 }}">{% row_feedback f columns.schedule %}{% form_errors f %}</td></tr>
    {% endwith %}{% empty %}
    <tr><td colspan="{{ columns.schedule|length|add:1 }}" class="text-body-secondary small">No periods yet.</td></tr>
    {% endfor %}""",  # noqa: E501
}
# (the figures' tags are gone: the old loops write the figures with the old markup)
OLD_TABLE_LOOPS = {
    kind: loop.replace("{% point_figures row %}", OLD_POINT_FIGURES).replace(
        "{% job_figures row %}", OLD_JOB_FIGURES
    )
    for kind, loop in OLD_TABLE_LOOPS.items()
}
OLD_CODE_LOOP = """{% for entry in forms.tables.codes %}{% with f=entry.form row=entry.row %}
<section class="card mb-3 code-entry" id="codes-{{ row.pk }}" aria-labelledby="codes-{{ row.pk }}-h">
  <div class="card-header d-flex align-items-center gap-2">
    <h3 class="h6 mb-0 me-auto" id="codes-{{ row.pk }}-h">{{ tables.codes.item }} {{ forloop.counter }}{% if row.name %} ({{ row.name }}){% endif %}</h3>
    {% row_actions "codes" row forloop.first forloop.last %}
  </div>
  <div class="card-body">
    {% form_errors f %}

    {% wizard_field f.role %}
    <div class="row">
      <div class="col-md-8">{% wizard_field f.name %}</div>
      <div class="col-md-4">{% wizard_field f.version %}</div>
    </div>
    {% wizard_field f.references %}
    {% wizard_field f.description %}
    {% wizard_field f.launch_command %}
    <details class="compute-inputs"{% if row.model_parameters %} open{% endif %}>
      <summary class="small">Compute estimate from the model (optional): parameters, tokens, MFU</summary>
      <div class="row mt-2">
        <div class="col-md-4">{% wizard_field f.model_use %}</div>
        <div class="col-md-4">{% wizard_field f.model_parameters %}</div>
        <div class="col-md-4">{% wizard_field f.training_tokens %}</div>
        <div class="col-md-4">{% wizard_field f.dataset_samples %}</div>
        <div class="col-md-2 col-6">{% wizard_field f.epochs %}</div>
        <div class="col-md-3 col-6">{% wizard_field f.tokens_per_sample %}</div>
        <div class="col-md-3">{% wizard_field f.assumed_mfu_pct %}</div>
      </div>
    </details>
  </div>
</section>
{% endwith %}{% empty %}
<p class="alert alert-warning">No code entries yet. Add one for your main training or inference loop.</p>
{% endfor %}"""  # noqa: E501

TABLE_TAGS = {
    "measurements": 'computed="Speedup / efficiency" empty="No measurements yet."',
    "jobs": 'computed="GPU-hours" empty="No job types yet."',
    "schedule": 'empty="No periods yet."',
}
CODE_TAG = (
    '{% load wizard_rows %}{% code_entries summary="Compute estimate from the model '
    '(optional): parameters, tokens, MFU" empty="No code entries yet. Add one for your '
    'main training or inference loop." %}'
)


def _step_context(proposal, step, data=None, *, gpu_unit="gpus", oob=False):
    """What the wizard view gives a step's template, for the row tags: real forms
    (posted rows bound, refused values shown back), made-up figures and findings."""
    from proposals import selectors
    from proposals.domain.fields import columns
    from proposals.domain.sections import TABLE_KINDS
    from proposals.wizard.page import Page, Person
    from proposals.wizard.steps import STEP_BY_SLUG, build_step_forms

    proposal = selectors.proposal_get_for_member(user=proposal.owner, pk=proposal.pk)
    step_forms = build_step_forms(STEP_BY_SLUG[step], proposal, data, gpu_unit=gpu_unit)
    rows = {
        kind: [e.row for e in step_forms.tables.get(kind, ())] for kind in TABLE_KINDS
    }
    findings = {}
    for row in rows["jobs"][:1] + rows["measurements"][-1:] + rows["codes"][:1]:
        kind = {"JobType": "jobs", "ScalingMeasurement": "measurements"}.get(
            type(row).__name__, "codes"
        )
        name = {"codes": "name"}.get(kind, "gpus")
        findings[f"id_{kind}-{row.pk}-{name}"] = [
            _finding("R-1", "Check <this> & that", "warning"),
            _finding("R-2", "Too big", "danger"),
        ]
    page = Page(proposal, SimpleNamespace(slug=step), step_forms, Person(True))
    # The parts the row tags read, made up (cached parts: set on the page itself).
    page.__dict__.update(
        columns={kind: columns(kind) for kind in TABLE_KINDS},
        gpu_unit_label="GCDs" if step_forms.gpu_unit == "gcds" else "GPUs",
        findings=SimpleNamespace(by_anchor=findings),
        figures=(
            {
                row.pk: SimpleNamespace(gpu_hours=12.5 * i, nodes=i, walltime_ok=i != 1)
                for i, row in enumerate(rows["jobs"])
            },
            {
                row.pk: SimpleNamespace(speedup=1.899 * (i + 1), efficiency=0.95)
                for i, row in enumerate(rows["measurements"][1:])
            },
        ),
        refused=SimpleNamespace(
            refused_rows={f"jobs-{row.pk}" for row in rows["jobs"][-1:]}
        ),
        help=SimpleNamespace(
            text={"name": "Say <what>", "description": "The loop & its data"},
            examples={"name": [SimpleNamespace(lead="", text="nanoGPT <1.0>")]},
        ),
        max_gpus_nodes=None,
        # units beside inputs (one escaped, one the GPU unit the toggle relabels)
        units={"epochs": "passes <over> data", "model_parameters": "GPUs"},
    )
    # The old loops (the reference) read the same parts by their own names.
    job_figures, point_figures = page.figures
    old = {"forms": step_forms, "columns": page.columns, "tables": TABLE_BY_KIND}
    return {
        "page": page,
        "oob": oob,
        **old,
        "job_figures": job_figures,
        "point_figures": point_figures,
        "refused_rows": page.refused.refused_rows,
    }


def _rows(proposal):
    """Code entries, measurements (one with a code, one without), jobs; no periods."""
    codes = [
        CodeEntryFactory(proposal=proposal, name='Trainer & "co" <x>', version=""),
        CodeEntryFactory(proposal=proposal, name="", model_parameters=7_000_000_000),
    ]
    measurements = [
        ScalingMeasurementFactory(proposal=proposal, code=codes[0], unit="img/s <b>"),
        ScalingMeasurementFactory(proposal=proposal, code=None, gpus=8),
    ]
    jobs = [
        JobTypeFactory(proposal=proposal, title="Eval & <test>"),
        JobTypeFactory(proposal=proposal, title="Train", gpus=16),
    ]
    proposal.refused_inputs = {
        f"jobs-{jobs[1].pk}-hours": {
            "text": '4,5 "h" <x>',
            "message": "Enter <a> number.",
        },
        f"measurements-{measurements[0].pk}-throughput": {
            "text": "12 000",
            "message": "Not saved yet & held.",
            "held": True,
        },
        f"codes-{codes[1].pk}-epochs": {"text": "three", "message": "Enter a number."},
    }
    proposal.save(update_fields=["refused_inputs"])
    return codes, measurements, jobs


def _posted(codes, measurements, jobs):
    """Rows typed into and sent: bad values (errors on the cells), escaped text."""
    return {
        f"jobs-{jobs[0].pk}-title": 'a "quoted" <title>',
        f"jobs-{jobs[0].pk}-gpus": "x<y",
        f"jobs-{jobs[0].pk}-hours": "",
        f"measurements-{measurements[1].pk}-gpus": "-3",
        f"measurements-{measurements[1].pk}-code": str(codes[1].pk),
        f"measurements-{measurements[1].pk}-throughput": "1,5",
        f"codes-{codes[0].pk}-name": "<b>bold</b>",
        f"codes-{codes[0].pk}-model_parameters": "many",
        f"codes-{codes[0].pk}-role": "nonsense",
    }


@pytest.mark.django_db
@pytest.mark.parametrize("posted", [False, True])
@pytest.mark.parametrize("gpu_unit", ["gpus", "gcds"])
@pytest.mark.parametrize("oob", [False, True])
def test_table_rows_as_the_step_template_wrote_them(proposal, posted, gpu_unit, oob):
    """``{% table_rows kind %}`` is byte for byte the loop it replaced: inputs with
    their labels for the stacked layout, values typed and refused shown back, errors
    and findings under the row, the GPU unit, the code select, an empty table."""
    rows = _rows(proposal)
    data = _posted(*rows) if posted else None
    context = _step_context(proposal, "scalability", data, gpu_unit=gpu_unit, oob=oob)
    if posted:
        assert any(e.form.errors for e in context["page"].forms.tables["jobs"])
    for kind, old in OLD_TABLE_LOOPS.items():
        new = Template(
            f'{{% load wizard_rows %}}{{% table_rows "{kind}" {TABLE_TAGS[kind]} %}}'
        )
        html = new.render(Context(context))
        _same(html, Template("{% load wizard_tags %}" + old).render(Context(context)))
        html = _entities(html)
        assert ("<input" in html) == (kind != "schedule")  # no periods: the empty row
        if kind == "jobs":
            assert ("a &quot;quoted&quot; &lt;title&gt;" in html) == posted
            assert ("Eval &amp; &lt;test&gt;" in html) != posted
            assert 'aria-invalid="true"' in html and " is-invalid" in html  # refused
            assert ('value="x&lt;y"' in html) == posted
            assert 'value="4,5 &quot;h&quot; &lt;x&gt;"' in html  # refused, shown back
            unit = "GCDs" if gpu_unit == "gcds" else "GPUs"
            assert f"data-gpu-unit-label>{unit}</span>" in html
        if kind == "measurements":
            assert " selected>Trainer &amp; &quot;co&quot; &lt;x&gt;" in html
            assert 'value="12 000"' in html and "Not saved yet &amp; held." in html
            assert 'data-label="' in html  # each cell labelled for small screens


@pytest.mark.django_db
@pytest.mark.parametrize("posted", [False, True])
@pytest.mark.parametrize("oob", [False, True])
def test_code_entries_as_the_step_template_wrote_them(proposal, posted, oob):
    """``{% code_entries %}`` is byte for byte the loop of ``{% wizard_field %}``s
    it replaced (labels, help, errors, refused values, findings, the folded inputs)."""
    rows = _rows(proposal)
    data = _posted(*rows) if posted else None
    context = _step_context(proposal, "codes", data, oob=oob)
    html = Template(CODE_TAG).render(Context(context))
    old = Template("{% load wizard_tags %}" + OLD_CODE_LOOP).render(Context(context))
    _same(html, old)
    html = _entities(html)
    assert "Trainer &amp; &quot;co&quot; &lt;x&gt;" in html
    assert "passes &lt;over&gt; data</span>" in html
    assert '<span class="input-group-text" data-gpu-unit-label>GPUs</span>' in html
    assert ("&lt;b&gt;bold&lt;/b&gt;" in html) == posted


@pytest.mark.django_db
def test_empty_tables_as_the_step_template_wrote_them(proposal):
    for step, kinds in (("scalability", OLD_TABLE_LOOPS), ("codes", ())):
        context = _step_context(proposal, step)
        for kind in kinds:
            new = Template(
                f'{{% load wizard_rows %}}{{% table_rows "{kind}" {TABLE_TAGS[kind]} %}}'
            )
            old = Template("{% load wizard_tags %}" + OLD_TABLE_LOOPS[kind])
            _same(new.render(Context(context)), old.render(Context(context)))
    html = Template(CODE_TAG).render(Context(context))
    _same(
        html,
        Template("{% load wizard_tags %}" + OLD_CODE_LOOP).render(Context(context)),
    )
    assert "No code entries yet." in html


class _OwnInput(forms.TextInput):
    """A widget the row tags leave to Django's own rendering (not one they know)."""


@pytest.mark.django_db
def test_table_rows_leave_other_widgets_to_django_and_match_the_loop(proposal):
    rows = _rows(proposal)
    context = _step_context(proposal, "scalability", _posted(*rows))
    for entry in context["page"].forms.tables["jobs"]:
        field = entry.form.fields["title"]
        if not isinstance(field.widget, _OwnInput):
            field.widget = _OwnInput(attrs={"data-x": 'a "b" \x00 <c>'})
        entry.form.fields["hours"].widget.attrs["data-y"] = "\x00"  # the id's marker
    new = Template(
        f'{{% load wizard_rows %}}{{% table_rows "jobs" {TABLE_TAGS["jobs"]} %}}'
    ).render(Context(context))
    old = Template("{% load wizard_tags %}" + OLD_TABLE_LOOPS["jobs"]).render(
        Context(context)
    )
    _same(new, old)
    assert 'data-x="a &quot;b&quot; \x00 &lt;c&gt;"' in new
    assert new.count('data-y="\x00"') == len(context["page"].forms.tables["jobs"])


# The autosave answer's loop of two includes per input, before {% posted_feedback %}
# (the feedback include held ``{% field_feedback field compact oob %}`` and a newline).
OLD_POSTED_FEEDBACK = """{% for form in forms.all_forms %}{% for field in form %}{% if not field.is_hidden %}{% field_feedback field form.prefix oob %}
{% endif %}{% endfor %}{% form_errors form %}
{% endfor %}"""  # noqa: E501


@pytest.mark.django_db
@pytest.mark.parametrize("step", ["selection", "codes", "scalability"])
@pytest.mark.parametrize("posted", [False, True])
def test_posted_feedback_as_the_autosave_loop_wrote_it(proposal, step, posted):
    """The step's own form's feedback region (``fb-step``) and ``posted_feedback``
    (the rows'): every input's feedback block (compact in table rows, with help
    elsewhere) and every row's errors, out of band, as the loop they replaced."""
    rows = _rows(proposal)
    data = _posted(*rows) if posted else None
    context = _step_context(proposal, step, data, oob=True)
    page = context["page"]
    own = [fragments.render_region(region, True) for region in page.feedback_regions]
    assert len(own) == (0 if step == "codes" else 1)  # no form of its own
    html = "".join(own) + str(fragments.posted_feedback(page))
    old = Template("{% load wizard_tags %}" + OLD_POSTED_FEEDBACK)
    _same(html, old.render(Context(context)))
    assert html.count('hx-swap-oob="true"') >= html.count('class="field-feedback"') > 0
    if step == "scalability":
        assert "Check &lt;this&gt; &amp; that" in html  # a finding, escaped
        assert 'id="err-jobs-' in html
        assert 'value="x&lt;y"' not in html  # feedback only, never an input
        assert "Enter &lt;a&gt; number." in html  # a refused value's message
        assert ('data-testid="field-note">Read as 1.5<' in html) == posted


def test_each_step_has_its_template_chosen_by_slug():
    """The wizard includes ``steps/<slug>.html`` (no list of steps in the page)."""
    from pathlib import Path

    from django.template.loader import get_template

    from proposals.wizard.steps import STEPS

    for step in STEPS:
        get_template(f"proposals/wizard/steps/{step.slug}.html", using="jinja2")
    form = get_template("proposals/wizard/step_form.html", using="jinja2")
    assert "step.slug ==" not in Path(form.origin.name).read_text()
