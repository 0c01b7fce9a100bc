"""The live regions (proposals/wizard/regions.py): a region's template reads its inputs and
nothing else, and its key follows every input, so the key an autosave compares
cannot drift from what the region shows."""

import dataclasses
import re

import pytest
from django.db.models import F
from django.template import Variable, engines
from django.template.base import FilterExpression, TokenType, VariableNode
from django.template.defaulttags import ForNode, IfNode, WithNode
from django.template.library import SimpleNode
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.test import Client
from django.test.utils import override_settings
from django.urls import reverse

from proposals import services
from proposals.domain import numbers
from proposals.domain.sections import ROW_PREFIX
from proposals.models import Proposal
from proposals.templatetags import fragments
from proposals.wizard import regions
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
    cluster,
)
from tests.web.test_live import page_data

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture
def proposals(user):
    """A proposal with every kind of figure, a blank one and one with text typed
    and refused (their regions take every branch of their templates between them)."""
    full = ProposalFactory(owner=user, system=cluster(), total_gpu_hours=5000)
    code = CodeEntryFactory(proposal=full, position=0, model_parameters=10**9)
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280), (16, 4225)]):
        ScalingMeasurementFactory(
            proposal=full,
            code=code,
            gpus=gpus,
            throughput=throughput,
            position=position,
        )
    JobTypeFactory(proposal=full, position=0)
    UsageMonthFactory(proposal=full, position=0)
    blank = services.proposal_create(owner=user, title="Blank")
    refused = ProposalFactory(
        owner=user,
        total_gpu_hours=500,
        refused_inputs={"duration_months": {"text": "99", "message": "Too long."}},
    )
    return [full, blank, refused]


def page_regions(client, proposal, step="scalability") -> list:
    response = client.get(reverse("proposals:step", args=[proposal.pk, step]))
    return response.context["page"].all_regions


def post_answered(client, url, data):
    """POST ``data`` as htmx does: the response and the page it answered with."""
    from proposals.views import wizard

    answered = []
    answer = wizard._answer

    def recording(request, kind, page, **kwargs):
        answered.append(page)
        return answer(request, kind, page, **kwargs)

    wizard._answer = recording
    try:
        response = client.post(url, data, headers=HX)
    finally:
        wizard._answer = answer
    return response, answered[-1]


def autosave_regions(client, proposal) -> list:
    """The regions of an autosave that sends a job row and a measurement (every
    page-level region, as the autosave sends no keys, and the rows' figures)."""
    job = proposal.jobs.first()
    point = proposal.measurements.first()
    data = page_data(
        proposal,
        "scalability",
        **{f"jobs-{job.pk}-count": "3", f"measurements-{point.pk}-gpus": "2"},
    )
    url = reverse("proposals:step", args=[proposal.pk, "scalability"])
    every = post_answered(client, url, data)[1].changed_regions
    assert any(region.name.endswith("-computed") for region in every)
    assert any(region.name == "jobs-total" for region in every)
    return every


def staff_regions(client, proposal) -> list:
    services.review_submit(proposal=proposal, user=proposal.owner, note="")
    response = client.get(reverse("proposals:staff_review", args=[proposal.pk]))
    return regions.flatten(response.context["regions"])


def is_macro(template: str) -> bool:
    """Whether ``template`` names a macro (``<file>.html#<macro>``) of a template
    the Jinja2 engine holds (``proposals/jinja2/``), not a Django template."""
    path, hashed, _ = template.partition("#")
    return bool(hashed) and path in engines["jinja2"].env.list_templates()


def render_recording(region) -> set:
    """The arguments of the region's macro that are not its inputs (``oob``
    aside), after rendering it out of band from its inputs: a macro reads its
    arguments and nothing else (the Jinja2 environment's undefined is strict)."""
    assert is_macro(region.template), region.template
    written = fragments.macro(region.template)(**region.context(), oob=True)
    assert 'hx-swap-oob="true"' in written or not written.strip(), region.name
    return set(fragments.macro(region.template).arguments) - {
        *region.context(),
        "oob",
    }


def test_each_region_reads_only_its_inputs_when_rendered(
    user_client, staff_user, proposals
):
    seen = set()
    for proposal in proposals:
        every = page_regions(user_client, proposal)
        every += page_regions(user_client, proposal, "review")
        for region in every:
            assert render_recording(region) == set(), region.name
            seen.add(region.template)
    staff_client = Client()
    staff_client.force_login(staff_user)
    for region in autosave_regions(user_client, proposals[0]):
        assert render_recording(region) == set(), region.name
        seen.add(region.template)
    for region in staff_regions(staff_client, proposals[0]):
        assert render_recording(region) == set(), region.name
    # the sidebar's parts, the bar, the badges, the progress, the rows' figures
    assert len(seen) >= 14


def _names(expression) -> set[str]:
    """The context names a filter expression (and its filters' arguments) reads."""
    if not isinstance(expression, FilterExpression):
        return set()
    names = set()
    parts = [expression.var] + [
        arg for _, args in expression.filters for _, arg in args
    ]
    for part in parts:
        if isinstance(part, Variable) and part.lookups:
            names.add(part.lookups[0])
    return names


def _condition_names(condition) -> set[str]:
    if condition is None:
        return set()
    if hasattr(condition, "value"):  # a literal of the condition: a variable
        return _names(condition.value)
    return _condition_names(getattr(condition, "first", None)) | _condition_names(
        getattr(condition, "second", None)
    )


def template_reads(nodelist, bound=frozenset()) -> set[str]:
    """Every context name the nodes read that they do not bind themselves (the
    names ``{% for %}`` and ``{% with %}`` bind), walked without rendering, so a
    branch no proposal takes is read too."""
    reads = set()
    bound = set(bound)
    for node in nodelist:
        inner = set(bound)
        if isinstance(node, TranslateNode):
            reads |= _names(node.filter_expression)
            if node.asvar:  # binds a name for the nodes after it
                bound.add(node.asvar)
        elif isinstance(node, BlockTranslateNode):
            for expression in node.extra_context.values():
                reads |= _names(expression)
            if node.counter is not None:
                reads |= _names(node.counter)
            mine = set(node.extra_context) | ({node.countervar} - {None})
            for token in [*node.singular, *(node.plural or ())]:
                if token.token_type == TokenType.VAR:
                    reads |= {token.contents.split(".")[0]} - mine - bound
            if node.asvar:
                bound.add(node.asvar)
        elif isinstance(node, VariableNode):
            reads |= _names(node.filter_expression)
        elif isinstance(node, IfNode):
            for condition, _ in node.conditions_nodelists:
                reads |= _condition_names(condition)
        elif isinstance(node, ForNode):
            reads |= _names(node.sequence)
            inner |= set(node.loopvars) | {"forloop"}
        elif isinstance(node, WithNode):
            for expression in node.extra_context.values():
                reads |= _names(expression)
            inner |= set(node.extra_context)
        elif isinstance(node, SimpleNode):
            for expression in [*node.args, *node.kwargs.values()]:
                reads |= _names(expression)
        for attr in getattr(node, "child_nodelists", ()):
            child = getattr(node, attr, None)
            if child:
                reads |= template_reads(child, inner)
        if isinstance(node, IfNode):
            for _, child in node.conditions_nodelists:
                reads |= template_reads(child, inner)
        bound |= _asvars_inside(node)
    return reads - set(bound)


def _asvars_inside(node) -> set[str]:
    """The names ``{% translate ... as x %}`` / ``{% blocktranslate asvar x %}``
    bind inside ``node``'s branches, which the nodes after it may read."""
    names = set()
    children = [getattr(node, a, None) for a in getattr(node, "child_nodelists", ())]
    if isinstance(node, IfNode):
        children += [child for _, child in node.conditions_nodelists]
    for child in filter(None, children):
        for inner in child:
            if isinstance(inner, TranslateNode | BlockTranslateNode) and inner.asvar:
                names.add(inner.asvar)
            names |= _asvars_inside(inner)
    return names


def test_each_region_template_reads_only_names_of_its_inputs(user_client, proposals):
    """A region's template is a macro whose arguments are exactly its inputs (and
    ``oob``, how it is sent): it can read no other name, in any branch."""
    checked = 0
    every = page_regions(user_client, proposals[0])
    for region in every + autosave_regions(user_client, proposals[0]):
        allowed = {f.name for f in dataclasses.fields(region.inputs)} | {"oob"}
        # Every region is a macro, whose names are its arguments: its inputs.
        assert is_macro(region.template), region.template
        assert set(fragments.macro(region.template).arguments) == allowed
        checked += 1
    assert checked > 10


def _another(value):
    """A value unlike ``value`` of the same kind where one is easy to make."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return (*value, "x")
    if isinstance(value, dict):
        return {**value, "x": 1}
    return object()


def test_a_change_of_any_input_changes_the_key(user_client, proposals):
    regions_seen = page_regions(user_client, proposals[0])
    regions_seen += autosave_regions(user_client, proposals[0])
    for region in regions_seen:
        for field in dataclasses.fields(region.inputs):
            value = getattr(region.inputs, field.name)
            other = dataclasses.replace(region.inputs, **{field.name: _another(value)})
            changed = dataclasses.replace(region, inputs=other)
            assert changed.key != region.key, (region.name, field.name)


def test_the_key_follows_the_number_format_and_the_language(user_client, proposals):
    from django.utils import translation

    region = page_regions(user_client, proposals[0])[0]
    # A region lives for one request (its key is kept): one per way of writing.
    fresh = lambda: dataclasses.replace(region)  # noqa: E731
    with numbers.using(numbers.NUMBER_FORMAT_BY_NAME["en"]):
        english = fresh().key
    with numbers.using(numbers.NUMBER_FORMAT_BY_NAME["de"]):
        german = fresh().key
    with translation.override("fr"), numbers.using(numbers.NUMBER_FORMAT_BY_NAME["en"]):
        french = fresh().key
    assert len({english, german, french}) == 3


@override_settings(DEBUG=False)
def test_an_autosave_sends_exactly_the_regions_whose_key_changed(
    user_client, proposals
):
    """Generic: whatever region changed is sent, and only those; the page's keys
    come back in one field. A form's findings region is sent as its fields' blocks."""
    full = proposals[0]
    url = reverse("proposals:step", args=[full.pk, "selection"])
    page = user_client.get(url).content.decode()
    shown = field(page)
    response, answered = post_answered(
        user_client,
        url,
        {**page_data(full, "selection", total_gpu_hours="600"), "regions": shown},
    )
    content = response.content.decode()
    before, after = regions.parse_shown(shown), regions.parse_shown(field(content))
    sent = {r.name for r in answered.changed_regions}
    assert sent == {name for name in after if after[name] != before.get(name)}
    assert "live-totals" in sent and "live-chart" not in sent
    forms = {r.name: r for r in answered.field_findings_regions}
    feedback = {r.name: r for r in answered.feedback_regions}
    assert set(feedback) == {"fb-step"}
    for name in after:
        if name in forms:  # each field's block, the empty ones too
            for anchor, _ in forms[name].inputs.fields:
                assert (f'id="ff-{anchor}"' in content) == (name in sent), anchor
        elif name in feedback:  # each field's feedback block
            for item in feedback[name].inputs.blocks:
                assert (f'id="fb-{item.anchor}"' in content) == (name in sent), item
        else:
            assert (f'id="{name}"' in content) == (name in sent), name


@override_settings(DEBUG=False)
def test_a_job_row_s_figures_are_sent_when_they_changed_and_only_then(
    user_client, proposals
):
    """The job rows' figures are keyed like every region (issue 35): an autosave
    that changes one row's count sends that row's figures and the plan total, not
    the other rows'; the same autosave again sends no figures."""
    full = proposals[0]
    JobTypeFactory(proposal=full, position=full.jobs.count())
    first, *others = full.jobs.order_by("position")
    url = reverse("proposals:step", args=[full.pk, "scalability"])
    shown = field(user_client.get(url).content.decode())
    assert f"jobs-{first.pk}-computed:" in shown

    def sent(**changes):
        data = {**page_data(full, "scalability", **changes), "regions": shown}
        response, answered = post_answered(user_client, url, data)
        return {r.name for r in answered.changed_regions}, response.content.decode()

    count = {f"jobs-{first.pk}-count": str(first.count + 1)}
    names, content = sent(**count)
    assert {f"jobs-{first.pk}-computed", "jobs-total"} <= names
    assert not any(f"jobs-{other.pk}-computed" in names for other in others)
    assert f'id="jobs-{first.pk}-computed"' in content
    shown = field(content)
    names, _ = sent(**count)
    assert not any(
        name.endswith("-computed") or name == "jobs-total" for name in names
    ), names


def field(content: str) -> str:
    return content.split('name="regions"')[1].split('value="')[1].split('"')[0]


def test_a_region_shown_key_is_parsed_leniently():
    assert regions.parse_shown("a:1 b:2 junk :3 c:") == {"a": "1", "b": "2"}
    assert regions.parse_shown(None) == {}


@override_settings(DEBUG=False)
def test_a_field_whose_findings_went_away_is_emptied_by_its_forms_region(
    user_client, proposals
):
    """The findings under the fields are declared regions, one per form the step
    shows (its own, and each row's), whether its fields have findings or not
    (issue 35): a field of a row not sent whose finding went away in another tab
    is emptied by that row's region, sent because its key changed; a form with no
    findings before or after is not sent."""
    full = proposals[0]
    job = full.jobs.get()
    url = reverse("proposals:step", args=[full.pk, "scalability"])
    response = user_client.get(url)
    shown = field(response.content.decode())
    anchor = f"id_jobs-{job.pk}-gpus"
    # SCAL-4: the job's 8 GPUs are above the declared maximum of 4.
    assert anchor in response.context["page"].findings.by_anchor
    quiet = [
        point
        for point in full.measurements.all()
        if not any(
            a.startswith(f"id_measurements-{point.pk}-")
            for a in response.context["page"].findings.by_anchor
        )
    ]
    assert quiet  # a row without findings has its region all the same
    forms = {"ff-step", f"ff-jobs-{job.pk}"} | {
        f"ff-measurements-{p.pk}" for p in quiet
    }
    assert forms <= set(regions.parse_shown(shown))
    # Another tab raises the maximum: the job is within it now.
    Proposal.objects.filter(pk=full.pk).update(
        max_gpus_per_job=64, revision=F("revision") + 1
    )
    data = page_data(full, "scalability", scalability_narrative="Words.")
    data = {k: v for k, v in data.items() if not ROW_PREFIX.match(k)}  # no row sent
    response, answered = post_answered(user_client, url, {**data, "regions": shown})
    sent = {region.name: region for region in answered.changed_regions}
    assert (anchor, ()) in sent[f"ff-jobs-{job.pk}"].inputs.fields
    content = response.content.decode()
    emptied = f'<div id="ff-{anchor}" class="field-findings" data-anchor="{anchor}"'
    assert f'{emptied} hx-swap-oob="true"></div>' in content
    assert not any(f"ff-measurements-{point.pk}" in sent for point in quiet)


def test_the_forms_findings_regions_declare_exactly_the_blocks_a_page_shows(
    user_client, proposals
):
    """Every field's findings block a step shows is in one form's region, and a
    region renders no block the page does not show (an out-of-band fragment
    without its target is an error in the browser)."""
    from proposals.wizard.steps import STEPS

    for proposal in proposals:
        for step in STEPS:
            url = reverse("proposals:step", args=[proposal.pk, step.slug])
            response = user_client.get(url)
            shown = re.findall(r'id="ff-(id_[^"]+)"', response.content.decode())
            declared = [
                anchor
                for region in response.context["page"].field_findings_regions
                for anchor, _ in region.inputs.fields
            ]
            assert sorted(declared) == sorted(shown), (proposal.title, step.slug)


@override_settings(DEBUG=False)
def test_a_row_added_in_another_tab_gets_no_region_in_an_autosave(
    user_client, proposals
):
    """The rows' values among the page's region keys say which rows it shows: an
    autosave sends no figures or findings of a row added in another tab, which
    the page does not show (an out-of-band fragment without its target is an
    error in the browser); the rows it shows keep theirs."""
    full = proposals[0]
    shown_job = full.jobs.get()
    url = reverse("proposals:step", args=[full.pk, "scalability"])
    shown = field(user_client.get(url).content.decode())
    added = JobTypeFactory(proposal=full, position=5, gpus=16)  # SCAL-4 too
    Proposal.objects.filter(pk=full.pk).update(revision=F("revision") + 1)
    data = page_data(full, "scalability", scalability_narrative="Words.")
    data = {k: v for k, v in data.items() if not ROW_PREFIX.match(k)}  # no row sent
    response, answered = post_answered(user_client, url, {**data, "regions": shown})
    sent = {region.name for region in answered.changed_regions}
    assert not any(f"jobs-{added.pk}" in name for name in sent), sent
    content = response.content.decode()
    assert f'id="jobs-{added.pk}-computed"' not in content
    assert f'id="ff-id_jobs-{added.pk}-' not in content
    # The first autosave marks the step visited: the shown row's findings change.
    assert f"ff-jobs-{shown_job.pk}" in sent
