"""Two support staff members working the queue at once, each in their own browser:
take, take over (asked first, the colleague told), comment, hand over and decide,
with a stale decision refused saying who changed what; every page axe clean."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from playwright.sync_api import Page, expect

from proposals.models import OutgoingMail, Proposal, ReviewState
from proposals.selectors import STAFF_GROUP
from tests.e2e.page_checks import serious_violations
from tests.factories import PASSWORD, UserFactory

TITLE = "Visual inspection model for production lines"  # waiting in the demo data


def log_in(page: Page, base: str, username: str, password: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{base}/staff/review/")


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    colleague = UserFactory(username="colleague", email="colleague@example.eu")
    colleague.groups.add(Group.objects.get(name=STAFF_GROUP))
    proposal = Proposal.objects.get(title=TITLE)
    ReviewState.objects.filter(proposal=proposal).update(handled_by=None)
    return proposal


def test_two_staff_members_in_parallel(browser, live_server, demo, artifacts):
    base = live_server.url
    review = f"{base}/staff/review/{demo.pk}/"
    first_context = browser.new_context(viewport={"width": 1366, "height": 900})
    second_context = browser.new_context(viewport={"width": 1366, "height": 900})
    staff, colleague = first_context.new_page(), second_context.new_page()
    log_in(staff, base, "staff", "aifactory-staff")
    log_in(colleague, base, "colleague", PASSWORD)

    # The default queue: what the staff owe, the proposal among it.
    for page in (staff, colleague):
        expect(page.get_by_role("link", name=TITLE)).to_be_visible()
        assert serious_violations(page) == []

    # Both open it; staff takes it first.
    staff.goto(review)
    colleague.goto(review)
    staff.get_by_role("button", name="Take it").click()
    expect(staff.get_by_test_id("handler")).to_contain_text("you")

    # The colleague's page is stale: "Take it" now asks, naming who has it.
    colleague.get_by_role("button", name="Take it").click()
    expect(colleague.get_by_test_id("take-confirm")).to_contain_text(
        "staff handles this proposal"
    )
    assert serious_violations(colleague) == []
    colleague.screenshot(path=artifacts / "staff-take-confirm.png", full_page=True)
    colleague.get_by_role("button", name="Take it over from staff").click()
    expect(colleague.get_by_test_id("handler")).to_contain_text("you")
    told = OutgoingMail.objects.filter(
        to="staff@example.org", subject__contains="taken over by colleague"
    )
    assert told.count() == 1

    # The staff member comments from their (older) page; the colleague sees it.
    general = staff.locator("#comments-general")
    general.get_by_text("Comment on this section").click()
    general.locator("textarea[name=body]").fill("The runtime of one job is unclear.")
    general.get_by_role("button", name="Add comment").click()
    expect(staff.get_by_text("The runtime of one job is unclear.")).to_be_visible()
    colleague.reload()
    expect(colleague.get_by_text("The runtime of one job is unclear.")).to_be_visible()

    # The colleague hands it back; both decide from pages loaded at the same time.
    colleague.select_option("#hand-over-to", label="staff")
    colleague.get_by_role("button", name="Hand over").click()
    expect(colleague.get_by_test_id("handler")).to_contain_text("staff")
    staff.reload()
    colleague.reload()
    staff.select_option("#id_to_status", "changes_requested")
    staff.fill("#id_note", "Please say how long one screening job runs.")
    staff.get_by_role("button", name="Set status").click()
    expect(staff.get_by_test_id("status")).to_have_text("Changes requested")

    colleague.select_option("#id_to_status", "ready")
    colleague.fill("#id_note", "Fine as it is.")
    colleague.get_by_role("button", name="Set status").click()
    expect(colleague.locator(".alert-danger, .alert-error").first).to_contain_text(
        "staff changed the status from \u201cSubmitted for review\u201d to "
        "\u201cChanges requested\u201d"
    )
    expect(colleague.get_by_test_id("status")).to_have_text("Changes requested")
    assert serious_violations(colleague) == []
    colleague.screenshot(path=artifacts / "staff-stale-decision.png", full_page=True)

    # Out of the default view now (waiting for the applicant), in their view.
    staff.goto(f"{base}/staff/review/")
    expect(staff.get_by_role("link", name=TITLE)).to_have_count(0)
    staff.goto(f"{base}/staff/review/?show=applicant")
    expect(staff.get_by_role("link", name=TITLE)).to_be_visible()
    first_context.close()
    second_context.close()
