"""SCAL-3's "Use the job plan's total" in Chromium: the button shows once the script
runs and stores the plan's total; without the script (it posts through htmx, with
the page's CSRF header) there is no button to press and be refused."""

from decimal import Decimal

from playwright.sync_api import expect

from tests.e2e.test_autosave_resilience import log_in
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory


def _disagreeing():
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=Decimal("4000"))
    JobTypeFactory(proposal=proposal, gpus=8, hours=Decimal("4.5"), count=100)
    return user, proposal


def test_the_action_stores_the_plan_total(browser, live_server, e2e_catalogue):
    user, proposal = _disagreeing()
    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    action = page.get_by_test_id("finding-action-SCAL-3")
    expect(action).to_be_visible()
    action.get_by_role("button").click()
    expect(page.locator("#id_total_gpu_hours")).to_have_value("3600", timeout=10_000)
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("3600")
    context.close()


def test_without_the_script_no_action_is_offered(browser, live_server, e2e_catalogue):
    user, proposal = _disagreeing()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    expect(page.get_by_test_id("finding-action-SCAL-3")).to_be_hidden()
    context.close()
