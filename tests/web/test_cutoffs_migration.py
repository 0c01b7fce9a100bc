"""The data migration that brings the dated cut-offs found on 2026-12-05 into a
database loaded before them (issue 38): every shipped cut-off arrives once, with the
systems it offers, and a route fact's source changes only while it is as shipped."""

import json
from pathlib import Path

import pytest
from django.apps import apps

from proposals.models import AccessRoute, Cutoff

ROOT = Path(__file__).resolve().parents[2]
_routes = __import__("proposals.migrations.0040_routes", fromlist=["load_routes"])
_dated = __import__("proposals.migrations.0054_cutoffs_dated", fromlist=["x"])
SHIPPED = json.loads((ROOT / "fixtures" / "routes.json").read_text(encoding="utf-8"))


@pytest.fixture
def before(catalogue):
    """A database as 0040 left it: the routes, their old sources, no dated cut-off
    but the ones shipped then."""
    _routes.load_routes(apps, None)
    for (slug, fact), source in _dated.REPLACED.items():
        route = AccessRoute.objects.get(slug=slug)
        route.sources[fact] = {"source": source, "checked": "2026-12-05"}
        route.save()
    Cutoff.objects.exclude(route__slug="frontier-ai-grand-challenge").delete()


def test_the_dated_cut_offs_arrive_once_with_their_systems(before):
    _dated.load_cutoffs(apps, None)
    _dated.load_cutoffs(apps, None)
    assert Cutoff.objects.count() == len(SHIPPED["cutoffs"])
    for row in SHIPPED["cutoffs"]:
        cutoff = Cutoff.objects.get(route__slug=row["route"], date=row["date"])
        assert cutoff.source == row["source"]
        assert sorted(cutoff.systems.values_list("slug", flat=True)) == sorted(
            row["systems"]
        )
    shipped = {r["slug"]: r["sources"] for r in SHIPPED["routes"]}
    for slug, fact in _dated.REPLACED:
        route = AccessRoute.objects.get(slug=slug)
        assert route.sources[fact] == shipped[slug][fact]


def test_an_administrators_source_and_cut_off_are_kept(before):
    slug, fact = next(iter(_dated.REPLACED))
    route = AccessRoute.objects.get(slug=slug)
    route.sources[fact] = {"source": "Call text, 2026", "checked": "2026-12-04"}
    route.save()
    row = next(r for r in SHIPPED["cutoffs"] if r["route"] == "ai-for-science")
    mine = Cutoff.objects.create(
        route=AccessRoute.objects.get(slug=row["route"]),
        date=row["date"],
        source="Call text",
        checked="2026-12-04",
    )
    _dated.load_cutoffs(apps, None)
    route.refresh_from_db()
    mine.refresh_from_db()
    assert route.sources[fact]["source"] == "Call text, 2026"
    assert (mine.source, mine.time) == ("Call text", None)


_recurring = __import__("proposals.migrations.0056_cutoffs_recurring", fromlist=["x"])


def test_the_routes_whose_cut_offs_recur_are_marked(before):
    shipped = {r["slug"] for r in SHIPPED["routes"] if r.get("recurring")}
    assert shipped
    kept = AccessRoute.objects.get(slug=sorted(shipped)[0])
    kept.sources["recurring"] = {"source": "Call text", "checked": "2026-12-04"}
    kept.save()
    _recurring.load_recurring(apps, None)
    assert (
        set(AccessRoute.objects.filter(recurring=True).values_list("slug", flat=True))
        == shipped
    )
    kept.refresh_from_db()
    assert kept.sources["recurring"]["source"] == "Call text"
