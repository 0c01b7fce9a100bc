"""A newcomer with only a need (issue 38): the call router in Chromium, from the
questions to a proposal on the route and system it recommends, across the log-in."""

import pytest
from django.apps import apps
from playwright.sync_api import expect

from proposals.domain.router import vendor
from proposals.domain.terms import default_terms
from proposals.models import AccessRoute, Proposal, ProposalRoute
from tests.factories import PASSWORD, UserFactory

_routes = __import__("proposals.migrations.0040_routes", fromlist=["load"])


@pytest.fixture
def routes(e2e_catalogue):
    _routes.load_routes(apps, None)


def test_from_a_need_to_a_proposal_on_the_route(
    browser, live_server, routes, artifacts
):
    user = UserFactory()
    family = default_terms()["industrial_innovation"]
    playground = family.modes[0]
    route = AccessRoute.objects.get(family=family.slug, mode=playground.slug)
    # The systems the route offers as a target: in production (an announced one,
    # such as Alice Recoque, is named but never preselected).
    offered = route.systems.filter(in_production=True).order_by("name")
    amd = [c for c in offered if "AMD" in c.gpu_model.upper()]
    assert amd and all(vendor_of(c) == "amd" for c in amd)

    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/calls/")
    page.select_option("#id_organisation_kind", family.eligible_kinds[0])
    page.select_option("#id_country", "FI")
    page.select_option("#id_work", "fine_tuning")
    page.fill("#id_gpu_hours", str(int(playground.max_hours)))
    page.select_option("#id_accelerator", "amd")
    page.select_option("#id_experience", "none")
    page.select_option("#id_zone", "Europe/Lisbon")
    page.get_by_role("button", name="Show the routes").click()

    card = page.locator(f"[data-route='{route.slug}']").first
    expect(card).to_contain_text(route.label)
    for system in amd:
        expect(card).to_contain_text(system.name)
    expect(card).to_contain_text("Open all year")
    expect(page.get_by_test_id("not-fitting")).to_contain_text("do not have yet")
    page.screenshot(path=artifacts / "call-router-answer.png", full_page=True)

    card.get_by_test_id("start").click()
    # The log-in keeps the answers (they are in the address it returns to).
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("#id_system")).to_have_value(amd[0].slug)
    page.fill("#id_title", "Fine-tune on LUMI")
    page.get_by_test_id("create").click()
    expect(page.get_by_test_id("sidebar-cutoff")).to_contain_text(route.label)
    page.screenshot(path=artifacts / "call-router-proposal.png", full_page=True)

    proposal = Proposal.objects.get(owner=user, title="Fine-tune on LUMI")
    assert proposal.call_family == family.slug
    assert proposal.system == amd[0]
    assert proposal.organisation_country == "FI"
    assert float(proposal.total_gpu_hours) == playground.max_hours
    assert ProposalRoute.objects.get(proposal=proposal).route == route
    context.close()


def vendor_of(cluster):
    from proposals.assess import catalogue_from_db

    return vendor(catalogue_from_db()[cluster.slug])


def test_the_sidebar_warns_and_chromium_downloads_the_cut_off(
    browser, live_server, routes, tmp_path
):
    from datetime import date, timedelta

    from django.utils import timezone
    from icalendar import Calendar

    from proposals.models import Cutoff
    from tests.e2e.test_input_trust import log_in
    from tests.factories import ProposalFactory

    user = UserFactory()
    route = AccessRoute.objects.get(slug="ai-for-science")
    proposal = ProposalFactory(owner=user, call_family=route.family)
    soon = timezone.localtime(timezone.now() + timedelta(days=4))
    # The shipped list may hold a cut-off on that very day: the test's replaces it.
    cutoff, _ = Cutoff.objects.update_or_create(
        route=route,
        date=soon.date(),
        defaults={
            "time": soon.time().replace(hour=10, minute=0, second=0, microsecond=0),
            "zone": "Europe/Brussels",
            "source": "test",
            "checked": date(2026, 12, 5),
        },
    )
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/organisation/")
    card = page.get_by_test_id("sidebar-cutoff")
    expect(card).to_contain_text(route.label)
    expect(card.get_by_test_id("cutoff-soon")).to_be_visible()
    with page.expect_download() as info:
        card.get_by_role("link", name="Add to calendar").click()
    saved = tmp_path / "cutoff.ics"
    info.value.save_as(saved)
    (event,) = Calendar.from_ical(saved.read_bytes()).walk("VEVENT")
    assert event.decoded("dtstart").date() == cutoff.date
    assert route.label in str(event["summary"])
    context.close()
