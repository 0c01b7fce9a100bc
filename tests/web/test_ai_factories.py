"""The AI Factories and Antennas (issue 38): all nineteen factories of the three
selection rounds and the thirteen Antennas reach a database, each with a source and
check date, kind and link; the Antennas match the Antenna route's countries."""

import json
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from django.apps import apps

from proposals.models import AccessRoute, AiFactory

ROOT = Path(__file__).resolve().parents[2]
_routes = __import__("proposals.migrations.0040_routes", fromlist=["load_routes"])
_factories = __import__("proposals.migrations.0055_cutoffs_factories", fromlist=["x"])
SHIPPED = json.loads((ROOT / "fixtures" / "routes.json").read_text(encoding="utf-8"))
# The selection rounds as announced: seven (December 2024), six (March 2025), six
# (October 2025); thirteen Antennas (13 October 2025).
ROUNDS = {1: 7, 2: 6, 3: 6}
ANTENNAS = 13


@pytest.fixture
def loaded(catalogue):
    _routes.load_routes(apps, None)
    _factories.load_factories(apps, None)


def test_all_nineteen_factories_and_thirteen_antennas_are_loaded(loaded):
    factories = AiFactory.objects.filter(kind=AiFactory.Kind.FACTORY)
    assert Counter(factories.values_list("selection_round", flat=True)) == ROUNDS
    antennas = AiFactory.objects.filter(kind=AiFactory.Kind.ANTENNA)
    assert antennas.count() == ANTENNAS
    route = AccessRoute.objects.get(slug="antenna")
    assert sorted(antennas.values_list("country", flat=True)) == sorted(route.countries)
    for antenna in antennas:
        linked = antenna.linked_factory
        assert linked is None or linked.kind == AiFactory.Kind.FACTORY
        assert linked is not None or "Unverified" in antenna.source


def test_every_row_has_a_source_and_says_unverified_where_unknown(loaded):
    for row in AiFactory.objects.all():
        assert row.source.strip() and isinstance(row.checked, date), row.slug
        assert row.site, row.slug
        if row.kind == AiFactory.Kind.FACTORY:
            assert row.system, row.slug
            row.full_clean()
        if row.in_production:
            assert row.cluster is not None and row.cluster.in_production


def test_rows_already_there_keep_an_administrators_edit(loaded):
    row = AiFactory.objects.get(slug=SHIPPED["factories"][0]["slug"])
    row.site = "Edited"
    row.save()
    _factories.load_factories(apps, None)
    row.refresh_from_db()
    assert row.site == "Edited"
    assert AiFactory.objects.count() == len(SHIPPED["factories"])


def test_docs_list_every_factory_and_antenna_with_its_source():
    text = (ROOT / "docs" / "calls.md").read_text(encoding="utf-8")
    for row in SHIPPED["factories"]:
        assert f"`{row['slug']}`" in text and row["source"] in text, row["slug"]
