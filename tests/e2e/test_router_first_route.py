"""A newcomer with only a need (issue 38), in Chromium: from /calls/ through the
questions to the first route it offers, a new proposal with that route's family,
mode and system, and the route's next cut-off (or "no dated cut-off") in the
sidebar. The page loads and the fields filled are counted, not timed."""

import json

import pytest
from django.apps import apps
from django.utils import timezone
from playwright.sync_api import expect

from proposals import reference_data
from proposals.assess import catalogue_from_db, terms_from_db
from proposals.domain.router import Profile, route_profile
from proposals.models import AccessRoute, Proposal, ProposalRoute
from proposals.selectors.routes import routes_data
from tests.factories import PASSWORD, UserFactory

LOADERS = [
    # The call terms and country lists the router decides from: a browser test
    # starts from a database another one may have flushed.
    ("0010_call_terms", "load_terms"),
    ("0012_country_eligibility", "load_countries"),
    ("0027_country_associations", "load_associations"),
    ("0040_routes", "load_routes"),
    ("0054_cutoffs_dated", "load_cutoffs"),
    ("0055_cutoffs_factories", "load_factories"),
    ("0056_cutoffs_recurring", "load_recurring"),
]
# The need: a university in Spain, research with AI, 160,000 GPU-hours (inside AI
# for Science's node-hour bounds: 40,000 node-hours on nodes of 4 GPUs, 20,000 on 8).
NEED = {
    "#id_organisation_kind": "academic",
    "#id_country": "ES",
    "#id_work": "research",
    "#id_gpu_hours": "160000",
}


@pytest.fixture
def shipped_routes(e2e_catalogue):
    for module, name in LOADERS:
        loader = __import__(f"proposals.migrations.{module}", fromlist=[name])
        getattr(loader, name)(apps, None)
    # The loaders write as a data migration does (bulk, no signals): the process's
    # copy of the routes, if one was read meanwhile, is forgotten as after a deploy.
    reference_data.forget()


def test_a_need_reaches_a_proposal_on_the_first_route(
    browser, live_server, shipped_routes, artifacts
):
    user = UserFactory()
    answers = Profile(
        organisation_kind=NEED["#id_organisation_kind"],
        country=NEED["#id_country"],
        work=NEED["#id_work"],
        gpu_hours=float(NEED["#id_gpu_hours"]),
    )
    data = routes_data()
    fitting, _ = route_profile(
        answers,
        data=data,
        terms=terms_from_db(),
        catalogue=catalogue_from_db(),
        now=timezone.now(),
    )
    first = next(d for d in fitting if d.route.startable)
    upcoming = data.next_cutoff(first.route.slug, timezone.now())

    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    loads: list[str] = []
    page.on("framenavigated", lambda f: f == page.main_frame and loads.append(f.url))
    filled = 0

    def fill(selector: str, value: str) -> None:
        nonlocal filled
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
        filled += 1

    page.goto(f"{live_server.url}/calls/")
    for selector, value in NEED.items():
        fill(selector, value)
    page.get_by_role("button", name="Show the routes").click()
    card = (
        page.get_by_test_id("fitting")
        .locator("[data-route]")
        .filter(has=page.get_by_test_id("start"))
        .first
    )
    expect(card).to_have_attribute("data-route", first.route.slug)
    card.get_by_test_id("start").click()
    fill("#id_username", user.username)
    fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("#id_system")).to_have_value(first.systems[0].slug)
    fill("#id_title", "From a need")
    page.get_by_test_id("create").click()

    sidebar = page.get_by_test_id("sidebar-cutoff")
    expect(sidebar).to_contain_text(first.route.label)
    if upcoming is not None:
        expect(sidebar).to_contain_text(str(upcoming.date.year))
        expect(sidebar.get_by_role("link", name="Add to calendar")).to_be_visible()
    else:
        expect(sidebar).to_contain_text("No dated cut-off is published")
    page.screenshot(path=artifacts / "router-first-route.png", full_page=True)

    proposal = Proposal.objects.get(owner=user, title="From a need")
    route = AccessRoute.objects.get(slug=first.route.slug)
    assert ProposalRoute.objects.get(proposal=proposal).route == route
    assert proposal.call_family == route.family
    family = terms_from_db()[route.family]
    hours = float(proposal.total_gpu_hours)
    assert hours == answers.gpu_hours
    if family.tiered:
        from proposals.domain.tiers import tier_for_hours

        assert tier_for_hours(hours, family) == route.mode
    else:
        assert family.mode(route.mode) is not None
    assert proposal.system.slug == first.systems[0].slug
    (artifacts / "router-first-route.json").write_text(
        json.dumps({"page_loads": len(loads), "fields_filled": filled, "urls": loads})
    )
    # The path's length, as counted: /calls/, the answer, the log-in, the new
    # proposal form, the proposal (no timing is asserted).
    assert len(loads) <= 5 and filled <= 7
    context.close()
