"""The desk's small holes in Chromium (issue 34): the queue's filter selects show
their text whole at 1366 px in German; the staff review page's decision form is
where the reviewer reads (in the first screen, or one visible link away)."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from proposals.models import Proposal
from tests.e2e.test_code_select_width import MEASURE
from tests.e2e.test_staff_journey import TITLE, log_in


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return Proposal.objects.get(title=TITLE)


def test_the_queue_filters_show_every_choice_whole_in_german(
    browser,
    live_server,
    demo,
    artifacts,
):
    context = browser.new_context(
        locale="de-DE", viewport={"width": 1366, "height": 900}
    )
    page = context.new_page()
    log_in(page, live_server.url, "staff", "aifactory-staff")
    page.goto(f"{live_server.url}/staff/review/")
    selects = page.locator("form[hx-get] select")
    expect(selects.first).to_be_visible()
    assert selects.count() >= 4
    cut = []
    for index in range(selects.count()):
        select = selects.nth(index)
        for option in range(select.locator("option").count()):
            select.evaluate(f"s => {{ s.selectedIndex = {option}; }}")
            shown = select.evaluate(MEASURE)
            if shown["room"] < shown["needed"]:
                cut.append(shown)
    page.screenshot(path=artifacts / "desk-queue-filters-de.png")
    context.close()
    assert not cut, cut


# Each action form of the staff review page, and the link at the top that leads to it.
ACTIONS = {
    "#id_to_status": "jump-to-decision",
    "[data-testid=assessment] form": "jump-to-assessment",
    "#hand-over-to": "jump-to-handler",
}


@pytest.mark.parametrize("width,height", [(1366, 900), (390, 844)])
def test_the_action_forms_are_where_the_reviewer_reads(
    browser, live_server, demo, artifacts, width, height
):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    log_in(page, live_server.url, "staff", "aifactory-staff")
    url = f"{live_server.url}/staff/review/{demo.pk}/"
    page.goto(url)
    total = page.evaluate("document.documentElement.scrollHeight")
    assert total > 3 * height  # a long page: the question is where the forms sit
    page.screenshot(path=artifacts / f"desk-review-top-{width}.png")
    for selector, link in ACTIONS.items():
        page.goto(url)
        form = page.locator(selector).first
        expect(form).to_be_attached()
        if form.evaluate("e => e.getBoundingClientRect().top") > height:
            # Not on the first screen: a visible link there leads to it.
            jump = page.get_by_test_id(link)
            expect(jump).to_be_in_viewport()
            jump.click()
            expect(form).to_be_in_viewport()
    context.close()


def test_the_review_box_follows_the_autosave_that_withdrew_ready(
    page, live_server, e2e_catalogue, artifacts
):
    from proposals import services
    from tests.e2e.test_input_trust import log_in as applicant_log_in
    from tests.e2e.test_input_trust import settled
    from tests.factories import (
        CodeEntryFactory,
        ProposalFactory,
        StaffUserFactory,
        UserFactory,
    )

    user, staff = UserFactory(), StaffUserFactory()
    proposal = ProposalFactory(owner=user, title="Ready one")
    CodeEntryFactory(proposal=proposal, position=0)
    services.review_submit(proposal=proposal, user=user)
    services.review_set_status(
        proposal=proposal, user=staff, to_status="ready", note="Known limits."
    )
    applicant_log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    panel = page.get_by_test_id("review-panel")
    expect(panel).to_contain_text("Status: Ready to submit")
    page.locator("#id_libraries").fill("PyTorch 2.6")
    settled(page)
    # The box changed with the status, with no reload, and offers to send again.
    expect(page.get_by_test_id("wizard-status")).to_have_text("Changed since ready")
    expect(panel).to_contain_text("Status: Changed since ready")
    expect(panel.get_by_role("link", name="Send again")).to_be_visible()
    page.screenshot(path=artifacts / "desk-review-box-withdrawn.png")
