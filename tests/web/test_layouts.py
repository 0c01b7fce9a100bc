"""Layouts as data (issue 21): every step, the code card and each table's row
declare their layout once (``domain.layouts``) and the forms take their fields from
it. Every form field is an input on its page and every field input of the page is a
form field; a field dropped from a layout is not in the form, so a Save without
JavaScript leaves its stored value alone."""

import re
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from proposals.domain import layouts
from proposals.domain.fields import columns, section_fields
from proposals.domain.layouts import Cell, Group, Layout
from proposals.domain.sections import ROW_PREFIX
from proposals.models import Proposal
from proposals.selectors import proposal_get_for_member
from proposals.wizard.steps import STEPS, build_step_forms
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)


class _FormReader(HTMLParser):
    """What a browser without JavaScript posts from ``#wizard-form``: each named
    input's value (checked radios and checkboxes only), each text area's text and
    each select's selected option. ``names`` holds every named control."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.names: set[str] = set()
        self.data: dict[str, str] = {}
        self._textarea = self._select = None
        self._first_option: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == "wizard-form":
            self.inside = True
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type") not in ("submit", "button"):
            self.names.add(name)
            if attrs.get("type") in ("radio", "checkbox"):
                if "checked" in attrs:
                    self.data[name] = attrs.get("value", "on")
            else:
                self.data[name] = attrs.get("value") or ""
        elif tag == "textarea" and name:
            self.names.add(name)
            self._textarea = name
            self.data[name] = ""
        elif tag == "select" and name:
            self.names.add(name)
            self._select = name
        elif tag == "option" and self._select:
            value = attrs.get("value", "")
            self._first_option.setdefault(self._select, value)
            if "selected" in attrs:
                self.data[self._select] = value

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select" and self._select:
            self.data.setdefault(self._select, self._first_option.get(self._select, ""))
            self._select = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data.removeprefix("\n")


def read_form(html: str) -> _FormReader:
    reader = _FormReader()
    reader.feed(html)
    return reader


# The inputs of the step form that are not fields of the proposal (the GPU unit,
# the region keys, the bases of a save).
_FIELD_NAMES = {spec.name for spec in section_fields("")} | {
    spec.name for step in STEPS for spec in section_fields(step.slug)
}


def _field_inputs(names: set[str]) -> set[str]:
    """The inputs among ``names`` that edit a stored field: a proposal field's name
    or a row's prefixed input (``jobs-17-gpus``)."""
    return {name for name in names if name in _FIELD_NAMES or ROW_PREFIX.match(name)}


def _form_inputs(step, proposal) -> set[str]:
    fresh = proposal_get_for_member(user=proposal.owner, pk=proposal.pk)
    step_forms = build_step_forms(step, fresh)
    return {
        form.add_prefix(name) for form in step_forms.all_forms() for name in form.fields
    }


@pytest.fixture
def filled(proposal):
    """A proposal with a row of every table kind (the schedule shows with rows)."""
    proposal.total_gpu_hours = Decimal("20000")
    proposal.save()
    code = CodeEntryFactory(proposal=proposal, name="nordlicht", version="2.1")
    ScalingMeasurementFactory(proposal=proposal, code=code)
    JobTypeFactory(proposal=proposal)
    UsageMonthFactory(proposal=proposal)
    return proposal


def _mismatch(client, step, proposal) -> tuple[set, set]:
    page = client.get(reverse("proposals:step", args=[proposal.pk, step.slug]))
    assert page.status_code == 200
    shown = _field_inputs(read_form(page.content.decode()).names)
    edited = _form_inputs(step, proposal)
    return edited - shown, shown - edited


@pytest.mark.parametrize("step", STEPS, ids=lambda step: step.slug)
def test_every_form_field_is_an_input_of_its_step_and_back(user_client, filled, step):
    """Each step (its own fields, the code card, every table kind's row): the
    inputs the page shows are exactly the fields its forms edit."""
    not_shown, not_edited = _mismatch(user_client, step, filled)
    assert not_shown == set(), "form fields the page does not show"
    assert not_edited == set(), "inputs the forms do not edit"


def test_a_layout_group_the_template_does_not_place_is_caught(
    user_client, filled, monkeypatch
):
    """A field moved into a group that the step's template never places is in the
    form and not on the page: the walk above would fail."""
    layout = layouts.STEP_LAYOUTS["selection"]
    request = layout["request"]
    kept = tuple(
        tuple(cell for cell in row if cell.name != "auxiliary_services")
        for row in request.rows
    )
    broken = Layout(
        (
            layout["system"],
            Group("request", tuple(row for row in kept if row)),
            Group("forgotten", ((Cell("auxiliary_services"),),)),
        )
    )
    monkeypatch.setitem(layouts.STEP_LAYOUTS, "selection", broken)
    step = next(step for step in STEPS if step.slug == "selection")
    not_shown, not_edited = _mismatch(user_client, step, filled)
    assert not_shown == {"auxiliary_services"}
    assert not_edited == set()


def test_the_layouts_lay_out_every_field_of_the_vocabulary_once():
    """Every field of the vocabulary has a place, and only one."""
    for slug, layout in layouts.STEP_LAYOUTS.items():
        assert sorted(layout.fields) == sorted(s.name for s in section_fields(slug))
    for step in STEPS:
        if section_fields(step.slug):
            assert step.slug in layouts.STEP_LAYOUTS
    for kind, layout in layouts.ROW_LAYOUTS.items():
        assert sorted(layout.fields) == sorted(s.name for s in columns(kind))


def _drop(layout: Layout, name: str) -> Layout:
    groups = []
    for group in layout.groups:
        rows = tuple(
            kept
            for row in group.rows
            if (kept := tuple(cell for cell in row if cell.name != name))
        )
        groups.append(Group(group.name, rows, group.legend, group.description))
    return Layout(tuple(groups))


def _save_without_javascript(client, proposal, slug):
    url = reverse("proposals:step", args=[proposal.pk, slug])
    form = read_form(client.get(url).content.decode())
    return client.post(url, {**form.data, "save": "1"})


def test_a_field_dropped_from_the_code_card_keeps_its_value_on_save(
    user_client, filled, monkeypatch
):
    """The code card without its version: a Save without JavaScript posts every
    other input (one of them changed) and the stored version stays."""
    code = filled.codes.get()
    monkeypatch.setitem(
        layouts.ROW_LAYOUTS, "codes", _drop(layouts.ROW_LAYOUTS["codes"], "version")
    )
    url = reverse("proposals:step", args=[filled.pk, "codes"])
    form = read_form(user_client.get(url).content.decode())
    assert f"codes-{code.pk}-version" not in form.names
    form.data[f"codes-{code.pk}-name"] = "nordlicht-train"
    answer = user_client.post(url, {**form.data, "save": "1"})
    assert answer.status_code == 302
    code.refresh_from_db()
    assert (code.name, code.version) == ("nordlicht-train", "2.1")


@pytest.mark.parametrize(
    ("slug", "name", "value"),
    [
        ("selection", "libraries", "PyTorch 2.4, NCCL"),
        ("organisation", "vat_number", "FI20774740"),
        ("scalability", "runtime_stability_pct", Decimal("5.0")),
    ],
)
def test_a_field_dropped_from_a_step_layout_keeps_its_value_on_save(
    user_client, filled, monkeypatch, slug, name, value
):
    Proposal.objects.filter(pk=filled.pk).update(**{name: value})
    monkeypatch.setitem(
        layouts.STEP_LAYOUTS, slug, _drop(layouts.STEP_LAYOUTS[slug], name)
    )
    answer = _save_without_javascript(user_client, filled, slug)
    assert answer.status_code == 302
    filled.refresh_from_db()
    assert getattr(filled, name) == value


def test_a_column_dropped_from_a_table_keeps_its_value_on_save(
    user_client, filled, monkeypatch
):
    job = filled.jobs.get()
    title = job.title
    monkeypatch.setitem(
        layouts.ROW_LAYOUTS, "jobs", _drop(layouts.ROW_LAYOUTS["jobs"], "title")
    )
    url = reverse("proposals:step", args=[filled.pk, "scalability"])
    page = user_client.get(url).content.decode()
    form = read_form(page)
    assert f"jobs-{job.pk}-title" not in form.names
    answer = user_client.post(url, {**form.data, "save": "1"})
    assert answer.status_code == 302
    job.refresh_from_db()
    assert job.title == title


def test_a_gpu_count_of_a_step_layout_carries_the_gpu_unit(user_client, filled):
    """The layout's cells render as the hand-written template did: the largest
    job's input with the unit the applicant types GPU counts in."""
    url = reverse("proposals:step", args=[filled.pk, "selection"])
    page = user_client.get(url).content.decode()
    wrap = page[page.index('id="wrap-id_max_gpus_per_job"') :]
    wrap = wrap[: wrap.index('id="fb-id_max_gpus_per_job"')]
    assert '<span class="input-group-text" data-gpu-unit-label>GPUs</span>' in wrap
    before = page[: page.index('id="wrap-id_max_gpus_per_job"')]
    assert re.search(
        r'<div class="col-md-6">\s*<div class="mb-3 wizard-field" $', before
    )


def test_the_system_is_read_from_the_kept_catalogue_without_a_query(filled):
    """The selection form's system field is a ``ClusterChoiceField`` declared in
    its ``Meta.field_classes`` (no class swap): validating a system costs no query."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from proposals.forms import ClusterChoiceField, SelectionForm
    from proposals.models import Cluster
    from proposals.reference_data import cached_clusters

    other = (
        Cluster.objects.exclude(pk=filled.system_id).filter(in_production=True).first()
    )
    cached_clusters()  # the catalogue, kept in process
    form = SelectionForm({"system": str(other.pk)}, instance=filled)
    assert type(form.fields["system"]) is ClusterChoiceField
    with CaptureQueriesContext(connection) as queries:
        assert form.is_valid(), form.errors
    assert form.cleaned_data["system"] == other
    assert not [q for q in queries.captured_queries if "cluster" in q["sql"]]
