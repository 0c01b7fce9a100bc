"""The call router page, starting a proposal on a route, the cut-off calendars and
the sidebar's next cut-off (issue 38). Expectations come from the shipped routes
data and the call terms, not from literals."""

from datetime import date, datetime, timedelta
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from proposals.assess import terms_from_db
from proposals.models import (
    AccessRoute,
    Cluster,
    Cutoff,
    Preferences,
    Proposal,
    ProposalRoute,
)
from tests.factories import ProposalFactory

_routes = __import__("proposals.migrations.0040_routes", fromlist=["load_routes"])


@pytest.fixture
def routes(catalogue):
    _routes.load_routes(apps, None)


def science_answers(**extra):
    family = terms_from_db()["ai_for_science"]
    # Inside the call's node-hour bounds on every system: its minimum on the
    # widest nodes (twice it on nodes of half the GPUs).
    widest = max(
        Cluster.objects.exclude(gpus_per_node=None).values_list(
            "gpus_per_node", flat=True
        )
    )
    return {
        "organisation_kind": family.eligible_kinds[0],
        "country": "NL",
        "work": "research",
        "accelerator": "any",
        "experience": "some",
        "gpu_hours": str(family.modes[0].min_hours * widest),
        **extra,
    }


def only_own_cutoffs(route):
    """``route`` without its shipped cut-offs: the test's own decide what is next."""
    route.cutoffs.all().delete()
    return route


def add_cutoff(route, when: datetime):
    local = when.astimezone(ZoneInfo("Europe/Brussels"))
    return Cutoff.objects.create(
        route=route,
        date=local.date(),
        time=local.time().replace(second=0, microsecond=0),
        zone="Europe/Brussels",
        source="test",
        checked=date(2026, 12, 5),
    )


def test_the_router_lists_fitting_and_other_routes(client, routes):
    page = client.get(reverse("proposals:calls"), science_answers())
    assert page.status_code == 200
    # The call counts node-hours: the request over each system's GPUs per node.
    mode = terms_from_db()["ai_for_science"].modes[0]
    (science,) = [
        d for d in page.context["fitting"] if d.route.slug == "ai-for-science"
    ]
    assert (
        science.request == f"about {mode.min_hours:,}–{2 * mode.min_hours:,} node-hours"
    )
    fitting = [d.route.slug for d in page.context["fitting"]]
    others = [d.route.slug for d in page.context["others"]]
    assert "ai-for-science" in fitting
    industrial = AccessRoute.objects.filter(family="industrial_innovation")
    assert set(industrial.values_list("slug", flat=True)) <= set(others)
    assert set(fitting) | set(others) == set(
        AccessRoute.objects.values_list("slug", flat=True)
    )
    assert "Start a proposal on this route" in page.text


def test_the_next_cut_off_shows_in_the_chosen_zone_with_days(client, routes):
    route = only_own_cutoffs(AccessRoute.objects.get(slug="ai-for-science"))
    cutoff = add_cutoff(route, timezone.now() + timedelta(days=20))
    page = client.get(
        reverse("proposals:calls"), science_answers(zone="Europe/Helsinki")
    )
    (item,) = [d for d in page.context["fitting"] if d.route.slug == route.slug]
    moment = datetime.combine(cutoff.date, cutoff.time, ZoneInfo(cutoff.zone))
    local = moment.astimezone(ZoneInfo("Europe/Helsinki"))
    assert local.strftime("%H:%M") in item.cutoff.text
    assert local.tzname() in item.cutoff.text
    assert item.cutoff.days in (19, 20)
    assert f"in {item.cutoff.days} days" in page.text


def test_starting_needs_a_log_in_and_keeps_the_answers(client, user, routes):
    route = AccessRoute.objects.get(slug="ai-for-science")
    system = route.systems.order_by("name").first()
    answers = science_answers()
    start = reverse("proposals:calls_start", args=[route.slug])
    query = urlencode({**answers, "system": system.slug})
    response = client.get(f"{start}?{query}")
    assert response.status_code == 302
    assert "login" in response.url and "gpu_hours" in response.url

    client.force_login(user)
    page = client.get(f"{start}?{query}")
    assert page.status_code == 200
    response = client.post(
        f"{start}?{query}", {"title": "Protein folding", "system": system.slug}
    )
    proposal = Proposal.objects.get(owner=user, title="Protein folding")
    assert response.url == proposal.get_absolute_url()
    assert (proposal.call_family, proposal.system) == (route.family, system)
    assert proposal.organisation_kind == answers["organisation_kind"]
    assert proposal.organisation_country == answers["country"]
    assert float(proposal.total_gpu_hours) == float(answers["gpu_hours"])
    assert ProposalRoute.objects.get(proposal=proposal).route == route


def test_a_route_without_a_wizard_form_cannot_be_started(user_client, routes):
    route = AccessRoute.objects.get(slug="antenna")
    assert not route.family
    response = user_client.get(reverse("proposals:calls_start", args=[route.slug]))
    assert response.status_code == 404


def test_a_system_the_route_does_not_offer_is_refused(user_client, user, routes):
    route = AccessRoute.objects.get(slug="antenna")
    science = AccessRoute.objects.get(slug="ai-for-science")
    science.systems.set(route.systems.all())
    other = Cluster.objects.exclude(pk__in=route.systems.all()).first()
    start = reverse("proposals:calls_start", args=[science.slug])
    page = user_client.post(start, {"title": "X", "system": other.slug})
    assert page.status_code == 200 and page.context["form"].errors
    assert not Proposal.objects.filter(owner=user, title="X").exists()


def test_the_feed_parses_back_with_one_event_per_cut_off(client, routes):
    route = only_own_cutoffs(AccessRoute.objects.get(slug="ai-for-science"))
    timed = add_cutoff(route, datetime(2027, 3, 30, 10, tzinfo=ZoneInfo("UTC")))
    first = client.get(reverse("proposals:cutoffs_ics"))
    assert first["Content-Type"].startswith("text/calendar")
    cal = Calendar.from_ical(first.content)
    events = cal.walk("VEVENT")
    assert len(events) == Cutoff.objects.count()
    assert all(e.get("dtstamp") and e.get("uid") and e.get("url") for e in events)
    (event,) = [e for e in events if str(e["uid"]).startswith(route.slug)]
    start = event.decoded("dtstart")
    assert start.tzinfo is not None
    assert start == datetime.combine(timed.date, timed.time, ZoneInfo(timed.zone))
    assert route.label in str(event["summary"])
    # A published date without a time is an all-day event.
    untimed = [c for c in Cutoff.objects.all() if c.time is None]
    for cutoff in untimed:
        (e,) = [e for e in events if cutoff.date.isoformat() in str(e["uid"])]
        assert e.decoded("dtstart") == cutoff.date
    # UIDs are stable from one download to the next.
    again = Calendar.from_ical(client.get(reverse("proposals:cutoffs_ics")).content)
    assert sorted(str(e["uid"]) for e in again.walk("VEVENT")) == sorted(
        str(e["uid"]) for e in events
    )
    assert cal.walk("VTIMEZONE")


def test_a_proposal_adds_its_next_cut_off_to_a_calendar(user_client, user, routes):
    route = only_own_cutoffs(AccessRoute.objects.get(slug="ai-for-science"))
    proposal = ProposalFactory(owner=user, call_family="ai_for_science")
    url = reverse("proposals:proposal_cutoff_ics", args=[proposal.pk])
    assert user_client.get(url).url == proposal.get_absolute_url()
    add_cutoff(route, timezone.now() - timedelta(days=3))
    upcoming = add_cutoff(route, timezone.now() + timedelta(days=30))
    add_cutoff(route, timezone.now() + timedelta(days=60))
    (event,) = Calendar.from_ical(user_client.get(url).content).walk("VEVENT")
    assert event.decoded("dtstart").date() == upcoming.date


@pytest.mark.parametrize(("days", "warned"), [(3, True), (10, False)])
def test_the_sidebar_shows_the_next_cut_off_and_warns_within_a_week(
    user_client, user, routes, days, warned
):
    Preferences.objects.update_or_create(
        user=user, defaults={"time_zone": "Europe/Lisbon"}
    )
    route = only_own_cutoffs(AccessRoute.objects.get(slug="ai-for-science"))
    proposal = ProposalFactory(owner=user, call_family="ai_for_science")
    cutoff = add_cutoff(route, timezone.now() + timedelta(days=days))
    page = user_client.get(
        reverse("proposals:step", args=[proposal.pk, "organisation"])
    )
    assert page.status_code == 200
    assert 'data-testid="sidebar-cutoff"' in page.text
    lisbon = datetime.combine(cutoff.date, cutoff.time, ZoneInfo(cutoff.zone))
    lisbon = lisbon.astimezone(ZoneInfo("Europe/Lisbon"))
    assert f"{lisbon:%H:%M} {lisbon.tzname()}" in page.text
    assert ('data-testid="cutoff-soon"' in page.text) is warned


def test_the_sidebar_says_when_a_route_is_open_all_year(user_client, user, routes):
    continuous = AccessRoute.objects.filter(
        family="industrial_innovation", continuous=True
    ).first()
    mode = terms_from_db()["industrial_innovation"].mode(continuous.mode)
    proposal = ProposalFactory(
        owner=user, total_gpu_hours=mode.max_hours, call_family=continuous.family
    )
    page = user_client.get(
        reverse("proposals:step", args=[proposal.pk, "organisation"])
    )
    assert continuous.label in page.text
    assert "Open all year" in page.text


def test_time_of_a_cut_off_without_one_published(client, routes):
    route = only_own_cutoffs(AccessRoute.objects.get(slug="ai-for-science"))
    Cutoff.objects.create(
        route=route,
        date=(timezone.now() + timedelta(days=40)).date(),
        time=None,
        source="test",
        checked=date(2026, 12, 5),
    )
    page = client.get(reverse("proposals:calls"), science_answers())
    assert "(no time published)" in page.text


def test_a_new_proposal_and_the_guide_lead_to_the_router(user_client, routes):
    router = reverse("proposals:calls")
    for url in (reverse("proposals:create"), reverse("proposals:guide")):
        page = user_client.get(url)
        assert f'href="{router}"' in page.text
