"""The AI for Science and Collaborative EU Projects call counts node-hours (20,000 to
90,000 per project, EuroCC Turkey's documentation of the 2025 cut-offs): the data
migration brings it into an existing database, and the wizard, the exports and the
JSON show the request in node-hours, converted with the system's GPUs per node."""

import json

import pytest
from django.apps import apps
from django.urls import reverse

from proposals.models import CallMode, Cluster
from tests.factories import JobTypeFactory, ProposalFactory
from tests.web.test_exports import get_pdf, pdf_text

pytestmark = pytest.mark.usefixtures("catalogue")
_migration = __import__("proposals.migrations.0058_aisci_node_hours", fromlist=["x"])


def science_mode():
    return CallMode.objects.get(family__slug="ai_for_science", slug="ai_for_science")


def as_before():
    """The mode as the earlier migrations left it: GPU-hours, no bounds."""
    mode = science_mode()
    mode.request_unit, mode.min_hours, mode.max_hours = "gpu_hours", None, None
    for fact in _migration.FACTS:
        mode.sources.pop(fact, None)
    mode.save()
    return mode


def test_the_migration_brings_the_unit_bounds_and_sources():
    as_before()
    _migration.load_node_hours(apps, None)
    mode = science_mode()
    shipped = _migration.shipped()
    assert (mode.request_unit, mode.min_hours, mode.max_hours) == (
        "node_hours",
        20000,
        90000,
    )
    for fact in _migration.FACTS:
        assert mode.sources[fact] == shipped["sources"][fact]
    assert "durations_months" in mode.sources  # the other facts' sources stay


def test_the_migration_keeps_an_administrators_terms():
    mode = as_before()
    mode.max_hours = 70000
    mode.save()
    _migration.load_node_hours(apps, None)
    mode.refresh_from_db()
    assert (mode.request_unit, mode.max_hours) == ("gpu_hours", 70000)


def science(user, hours):
    proposal = ProposalFactory(
        owner=user,
        call_family="ai_for_science",
        system=Cluster.objects.get(slug="lumi-g"),
        total_gpu_hours=hours,
    )
    JobTypeFactory(proposal=proposal, gpus=8, hours=10, count=500)  # 40,000 GPU-h
    return proposal


def test_the_wizard_shows_the_request_in_node_hours(user_client, user):
    proposal = science(user, 100000)  # 25,000 node-hours on LUMI-G (4 GPUs a node)
    step = reverse("proposals:step", args=[proposal.pk, "selection"])
    page = user_client.get(step).content.decode()
    assert 'data-testid="requested-call-unit">25,000<' in page
    assert 'data-testid="plan-call-unit">10,000<' in page
    assert "In node-hours, the call's unit" in page
    assert "It grants 20,000 to 90,000 node-hours per project." in page
    assert "TIER-7" not in page
    proposal.total_gpu_hours = 400000  # 100,000 node-hours
    proposal.save()
    page = user_client.get(step).content.decode()
    assert "TIER-7" in page and "at most 90,000 node-hours per project" in page


def test_the_exports_give_node_hours(user_client, user, run_tasks):
    proposal = science(user, 100000)
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "Requested in node-hours (the call's unit)" in markdown
    assert "25,000 (4 GPUs per node on LUMI-G; source: EuroCC Turkey" in markdown
    assert "| Node-hours |" in markdown and "| 10,000 |" in markdown
    portal = user_client.get(
        reverse("proposals:export_portal", args=[proposal.pk])
    ).content.decode()
    assert "100,000 (25,000 node-hours, the unit the call counts: 4 GPUs" in portal
    pdf = " ".join(
        pdf_text(
            get_pdf(
                user_client,
                reverse("proposals:export_pdf", args=[proposal.pk]),
                run_tasks,
            ).content
        )
    )
    assert "Requested in node-hours (the call's unit)" in pdf and "25,000" in pdf


def test_the_assessment_json_has_the_call_request(user_client, user):
    proposal = science(user, 100000)
    from proposals.assess import assess_proposal

    found = assess_proposal(proposal).to_dict()["call_request"]
    assert (found["unit"], found["requested"], found["job_plan"]) == (
        "node_hours",
        25000,
        10000,
    )
    assert json.dumps(found)


def test_a_tier_in_node_hours_is_refused():
    """Tiers are chosen from the GPU-hours before a system is known: a tiered
    family's mode in node-hours would be compared in the wrong unit."""
    from django.core.exceptions import ValidationError

    mode = CallMode.objects.get(family__slug="industrial_innovation", slug="playground")
    mode.request_unit = "node_hours"
    with pytest.raises(ValidationError) as error:
        mode.full_clean()
    assert "request_unit" in error.value.message_dict
    science_mode().full_clean()  # a family without tiers may count node-hours


def test_the_glossary_says_which_call_counts_node_hours():
    from proposals.domain.glossary import TERMS

    (term,) = [t for t in TERMS if t.slug == "node-hour"]
    assert "AI for Science and Collaborative EU Projects call counts node-hours" in (
        term.text
    )
