"""Call terms and billing units without a public document say "Unverified" in the
admin, in docs/rules.md and in the data (issue 22); a data migration marks the rows
an administrator has not changed."""

import json
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import reverse

from proposals.domain.reference import markdown
from proposals.domain.terms import default_terms
from proposals.models import CallFamily, CallMode, Cluster

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
_migration = __import__(
    "proposals.migrations.0028_unverified_sources", fromlist=["mark_unverified"]
)
OLD_DURATIONS = (
    "Product specification §2, “Typical call terms” (second-hand, national "
    "competence centre pages; guidance, not rules)"
)


def test_no_fact_rests_on_the_product_specification_alone():
    for family in default_terms().values():
        facts = list(family.sources.items()) + [
            item for mode in family.modes for item in mode.sources.items()
        ]
        for fact, source in facts:
            text = source.source
            if text.startswith(("Product specification", "Issue")):
                pytest.fail(f"{family.slug} {fact}: {text}")
    for row in json.loads((ROOT / "fixtures" / "catalogue.json").read_text("utf-8")):
        assert not row["billing_unit_source"].startswith(("Product", "Issue"))


def test_rules_md_says_unverified_beside_the_fact():
    text = markdown()
    assert "- playground `durations_months` **unverified**:" in text
    assert "- large_scale `review` **unverified**:" in text
    assert "- ai_for_science `durations_months` **unverified**:" in text
    # A term the guides state is not marked.
    assert "- playground `max_hours`: BSC support knowledge centre" in text
    # Node-hours as Leonardo's granted unit.
    assert "node-hours: **unverified**" in text


def test_the_migration_marks_unchanged_rows_and_keeps_edited_ones(catalogue):
    playground = CallMode.objects.get(
        family__slug="industrial_innovation", slug="playground"
    )
    fast = CallMode.objects.get(family__slug="industrial_innovation", slug="fast_lane")
    for mode, text in ((playground, OLD_DURATIONS), (fast, "EuroHPC call text, §3")):
        mode.sources = {
            **mode.sources,
            "durations_months": {"source": text, "checked": "2026-12-02"},
        }
        mode.save()
    Cluster.objects.filter(slug="leonardo-booster").update(
        billing_unit_source="Product specification §6 (Leonardo Booster: 1 GPU-hour = "
        "a quarter node-hour); issue 11 (a Playground granted as 1,250 node-hours)"
    )
    _migration.mark_unverified(apps, None)
    playground.refresh_from_db()
    fast.refresh_from_db()
    assert playground.sources["durations_months"]["source"].startswith("Unverified")
    assert fast.sources["durations_months"]["source"] == "EuroHPC call text, §3"
    leonardo = Cluster.objects.get(slug="leonardo-booster")
    assert leonardo.billing_unit_source.startswith("Unverified")


def test_the_admin_lists_unverified_facts(admin_client, catalogue):
    family = CallFamily.objects.get(slug="ai_for_science")
    page = admin_client.get(
        reverse("admin:proposals_callfamily_change", args=[family.pk])
    ).content.decode()
    assert "unverified (no public document found)" in page.lower()
    assert "eligible_kinds, conditional_kinds, document_reminder" in page
    listing = admin_client.get(reverse("admin:proposals_cluster_changelist"))
    assert "billing unit" in listing.content.decode()
