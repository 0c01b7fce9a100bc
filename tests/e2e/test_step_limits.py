"""The scalability step at the format's limits (200 measurements, 200 jobs, 120
periods) saves in Chromium, with JavaScript (Save, then Next) and without (Next):
issue 20 found every one of them answering 400 past about 135 measurements."""

import re

import pytest
from playwright.sync_api import Page, expect

from proposals.models import JobType
from tests.e2e.test_autosave_resilience import log_in
from tests.e2e.test_input_trust import retype, settled
from tests.factories import ProposalFactory, UserFactory
from tests.web.test_step_limits import fill_scalability

TIMEOUT = 60_000  # a 2 MB page on a shared two-core machine


@pytest.fixture
def full(e2e_catalogue):
    user = UserFactory()
    proposal = fill_scalability(ProposalFactory(owner=user))
    last = JobType.objects.filter(proposal=proposal).order_by("position").last()
    return user, proposal, last


def _type_into_the_last_job(page: Page, base: str, proposal, last, title: str):
    page.goto(f"{base}/proposals/{proposal.pk}/scalability/", timeout=TIMEOUT)
    field = page.locator(f"#id_jobs-{last.pk}-title")
    field.fill(title)


def test_save_and_next_at_the_limits_with_javascript(page: Page, live_server, full):
    user, proposal, last = full
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server.url, user.username)
    _type_into_the_last_job(page, live_server.url, proposal, last, "Saved at the limit")
    # Save answers with the same URL: wait for that page, not for the URL (which
    # the page typed into already has), or the next value is typed into the page
    # being replaced.
    with page.expect_navigation(url=f"**/proposals/{proposal.pk}/scalability/"):
        page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(f"#id_jobs-{last.pk}-title")).to_have_value(
        "Saved at the limit"
    )
    page.locator(f"#id_jobs-{last.pk}-title").fill("Next at the limit")
    page.get_by_role("button", name="Optimisation").click()
    page.wait_for_url(f"**/proposals/{proposal.pk}/optimisation/")
    last.refresh_from_db()
    assert last.title == "Next at the limit"


def test_next_at_the_limits_without_javascript(browser, live_server, full):
    user, proposal, last = full
    context = browser.new_context(java_script_enabled=False)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    _type_into_the_last_job(page, live_server.url, proposal, last, "Typed without JS")
    page.get_by_role("button", name="Optimisation").click()
    page.wait_for_url(f"**/proposals/{proposal.pk}/optimisation/")
    last.refresh_from_db()
    assert last.title == "Typed without JS"
    context.close()


def test_the_first_edit_at_the_limits_puts_every_rows_findings_in_place(
    page: Page, live_server, full
):
    """The first edit of the step turns its findings from "not looked at yet" to
    what they are, so the answer holds every row's findings again (831 blocks for
    200 jobs). The plain blocks are put in place by the page's script, the rest by
    htmx: every one lands, none keeps its out-of-band marker, and a value refused
    in a row is still marked at its input, then cleared."""
    user, proposal, last = full
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server.url, user.username)
    page.goto(
        f"{live_server.url}/proposals/{proposal.pk}/scalability/", timeout=TIMEOUT
    )
    findings = page.locator("[id^='ff-id_jobs-'] .finding-inline")
    expect(findings.and_(page.locator(".text-secondary-emphasis"))).to_have_count(200)
    retype(page, f"#id_jobs-{last.pk}-title", "First edit")
    settled(page)
    expect(findings.and_(page.locator(".text-danger-emphasis"))).to_have_count(200)
    expect(findings.and_(page.locator(".text-secondary-emphasis"))).to_have_count(0)
    expect(page.locator("[hx-swap-oob]")).to_have_count(0)
    gpus = f"#id_jobs-{last.pk}-gpus"
    retype(page, gpus, "8x")
    settled(page, "refused")
    expect(page.locator(f"#fb-id_jobs-{last.pk}-gpus")).to_contain_text("not a")
    expect(page.locator(gpus)).to_have_class(re.compile("is-invalid"))
    retype(page, gpus, "8")
    settled(page)
    expect(page.locator(gpus)).not_to_have_class(re.compile("is-invalid"))
    last.refresh_from_db()
    assert (last.title, last.gpus) == ("First edit", 8)
