"""The system catalogue (issue 38): every system has a source or says unverified,
and a system not yet in production is shown with its date but never a target."""

import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import translation

from proposals import services
from proposals.domain.router import Profile, route_profile
from proposals.domain.routes import load_routes
from proposals.domain.terms import default_terms
from proposals.domain.types import load_catalogue
from proposals.forms import SelectionForm
from proposals.forms.proposals import ProposalCreateForm
from proposals.models import AccessRoute, Cluster, Proposal
from proposals.models.catalogue import EXPECTED_FORMAT, TARGET_FIGURES
from proposals.reference_data import forget

ROOT = Path(__file__).resolve().parents[2]
ROWS = json.loads((ROOT / "fixtures" / "catalogue.json").read_text("utf-8"))
SYSTEMS_DOC = (ROOT / "docs" / "systems.md").read_text("utf-8")
FIGURES = ("gpus_per_node", "gpu_nodes", "gpu_model")


def announced_rows():
    return [row for row in ROWS if row.get("in_production") is False]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["slug"])
def test_every_system_has_a_source_or_says_unverified(row):
    """Each figure is backed by a source with its check date, or blank with a
    source that says "Unverified"; every source is cited in docs/systems.md."""
    assert row["site"] and row["country"]
    assert row["gpu_nodes_source"] and row["gpu_nodes_checked"]
    assert row["billing_unit_source"] and row["billing_unit_checked"]
    if any(row.get(name) in (None, "") for name in FIGURES):
        assert row["gpu_nodes_source"].startswith("Unverified"), row["slug"]
    if row.get("in_production", True):
        assert row["source_url"].startswith("https://")
        assert all(row.get(name) not in (None, "") for name in TARGET_FIGURES)
        assert row["gpu_nodes_source"] in SYSTEMS_DOC
    else:
        assert row["production_source"] and row["production_checked"]
        expected = row["expected_in_production"]
        assert expected == "" or re.match(EXPECTED_FORMAT, expected)
        if not expected:
            assert row["production_source"].startswith("Unverified"), row["slug"]
        assert row["production_source"] in SYSTEMS_DOC
    assert f"`{row['slug']}`" in SYSTEMS_DOC


def test_the_catalogue_keeps_the_systems_in_production_and_adds_the_announced(
    catalogue,
):
    in_production = [r["slug"] for r in ROWS if r.get("in_production", True)]
    assert {
        "lumi-g",
        "marenostrum5-acc",
        "leonardo-booster",
        "jupiter-booster",
    } <= set(in_production)
    assert len(ROWS) >= 15 and len(announced_rows()) >= 8
    for row in announced_rows():
        system = Cluster.objects.get(slug=row["slug"])
        assert not system.in_production
        assert system.expected_in_production == row["expected_in_production"]
        assert system.gpus_per_node is None or row["gpus_per_node"] is not None
    assert set(
        Cluster.objects.filter(in_production=True).values_list("slug", flat=True)
    ) == set(in_production)


def test_a_system_in_production_needs_its_figures(catalogue):
    system = Cluster.objects.get(slug="alice-recoque")
    system.in_production = True
    with pytest.raises(ValidationError) as refused:
        system.full_clean()
    assert "gpus_per_node" in refused.value.message_dict
    with pytest.raises(IntegrityError), transaction.atomic():
        system.save()


def test_the_selection_step_refuses_a_system_not_in_production(catalogue):
    forget()
    proposal = Proposal.objects.create(title="X")
    pending = Cluster.objects.get(slug="alice-recoque")
    with translation.override("en"):
        form = SelectionForm({"system": str(pending.pk)}, instance=proposal)
        assert not form.is_valid()
        assert form.errors["system"] == [
            "Alice Recoque is not in production yet: in production from 2027."
        ]
    ready = Cluster.objects.get(slug="lumi-g")
    form = SelectionForm({"system": str(ready.pk)}, instance=proposal)
    form.is_valid()
    assert "system" not in form.errors


def test_the_choice_shows_the_date_and_disables_the_system(catalogue):
    with translation.override("de"):
        html = str(ProposalCreateForm()["system"])
    option = re.search(r"<option[^>]*>Alice Recoque \([^<]*\)</option>", html)
    assert option and "disabled" in option.group(0)
    assert "in Betrieb ab 2027" in option.group(0)
    lumi = re.search(r"<option[^>]*>LUMI-G</option>", html)
    assert lumi and "disabled" not in lumi.group(0)


def test_the_new_proposal_form_refuses_a_system_not_in_production(catalogue):
    forget()
    pending = Cluster.objects.get(slug="ai-at")
    form = ProposalCreateForm(
        {"title": "X", "call_family": "industrial_innovation", "system": pending.pk}
    )
    assert not form.is_valid()
    assert "2027-01" in str(form.errors["system"])


def routed(systems_slugs, **profile):
    data = load_routes(ROOT / "fixtures" / "routes.json")
    catalogue = load_catalogue(ROOT / "fixtures" / "catalogue.json")
    route = replace(data.route("af-playground"), systems=tuple(systems_slugs))
    data = replace(data, routes=(route,))
    kind = default_terms()["industrial_innovation"].eligible_kinds[0]
    base = Profile(organisation_kind=kind, country="FI", gpu_hours=1000)
    fitting, others = route_profile(
        replace(base, **profile),
        data=data,
        terms=default_terms(),
        catalogue=catalogue,
        now=datetime(2026, 12, 5, tzinfo=UTC),
    )
    return fitting, others


def test_the_router_names_but_never_offers_a_system_not_in_production():
    with translation.override("en"):
        (decision,), _ = routed(["lumi-g", "alice-recoque"])
    assert [o.slug for o in decision.systems] == ["lumi-g"]
    assert any(
        "Alice Recoque (in production from 2027)" in reason
        for reason in decision.reasons
    )


def test_a_route_with_no_system_in_production_does_not_fit():
    with translation.override("en"):
        fitting, (decision,) = routed(["alice-recoque", "piast-ai"])
    assert not fitting and not decision.systems
    reason = " ".join(decision.reasons)
    assert "offers no system in production yet" in reason
    assert "Alice Recoque (in production from 2027)" in reason
    assert "PIAST-AI (in production from a date not yet published)" in reason


@pytest.fixture
def routes(catalogue):
    from django.apps import apps

    loader = __import__("proposals.migrations.0040_routes", fromlist=["load_routes"])
    loader.load_routes(apps, None)


def test_starting_on_a_route_refuses_a_system_not_in_production(
    user_client, user, routes
):
    route = AccessRoute.objects.get(slug="af-playground")
    pending = Cluster.objects.get(slug="mimer")
    assert route.systems.filter(pk=pending.pk).exists()
    with pytest.raises(ValidationError):
        services.proposal_create_on_route(
            owner=user, route=route, system=pending, title="X"
        )
    start = reverse("proposals:calls_start", args=[route.slug])
    page = user_client.get(start)
    assert 'value="mimer"' not in page.content.decode()
    page = user_client.post(start, {"title": "Y", "system": "mimer"})
    assert page.status_code == 200 and page.context["form"].errors
    assert not Proposal.objects.filter(owner=user, title__in=["X", "Y"]).exists()
