"""Load the dated cut-offs found on 2026-12-05 (Large Scale, AI for Science, AI and
Data-Intensive Applications) into existing databases, and the sources of the route
facts they settle. Cut-offs already there (same route and day) stay as they are; a
route fact's source is replaced only while it still reads as shipped before, so an
administrator's edit is kept."""

import datetime
import json
from pathlib import Path

from django.db import migrations

ROUTES = Path(__file__).resolve().parents[2] / "fixtures" / "routes.json"
# The sources these facts shipped with before (fixtures/routes.json at 0040).
REPLACED = {
    ("af-large-scale", "continuous"): (
        "Unverified: product specification §2 says two cut-offs a month "
        "(second-hand); no dated cut-off was found in a public document"
    ),
    ("ai-for-science", "continuous"): (
        "Unverified: no dated cut-off was found in a public document"
    ),
    ("ai-data-intensive", "continuous"): (
        "Unverified: no dated cut-off was found in a public document"
    ),
    ("ai-data-intensive", "unit"): (
        "Unverified: issue 38 states the call grants node-hours; its terms of "
        "reference were not found"
    ),
}


def load_cutoffs(apps, schema_editor):
    Route = apps.get_model("proposals", "AccessRoute")
    Cutoff = apps.get_model("proposals", "Cutoff")
    Cluster = apps.get_model("proposals", "Cluster")
    data = json.loads(ROUTES.read_text(encoding="utf-8"))
    clusters = dict(Cluster.objects.values_list("slug", "id"))
    routes = {
        r.slug: r
        for r in Route.objects.filter(
            slug__in=[row["route"] for row in data["cutoffs"]]
        )
    }
    for row in data["cutoffs"]:
        route = routes.get(row["route"])
        if route is None:  # an administrator removed the route
            continue
        cutoff, created = Cutoff.objects.get_or_create(
            route=route,
            date=datetime.date.fromisoformat(row["date"]),
            defaults={
                "time": row["time"] and datetime.time.fromisoformat(row["time"]),
                "zone": row["zone"],
                "source": row["source"],
                "checked": datetime.date.fromisoformat(row["checked"]),
            },
        )
        if created:
            cutoff.systems.set([clusters[s] for s in row["systems"] if s in clusters])
    shipped = {row["slug"]: row for row in data["routes"]}
    for (slug, fact), before in REPLACED.items():
        route = Route.objects.filter(slug=slug).first()
        if route is None or (route.sources.get(fact) or {}).get("source") != before:
            continue
        route.sources[fact] = shipped[slug]["sources"][fact]
        route.save(update_fields=["sources"])


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0053_seams2_time_zone_chosen"),
    ]

    operations = [
        migrations.RunPython(load_cutoffs, migrations.RunPython.noop),
    ]
