"""The paste page of its own (``/proposals/<pk>/paste/<kind>/``, where the step's
"Paste a table" leads without JavaScript), used with JavaScript on: its "Update
preview" must update the preview in place (its hx-target is on the page) and "Add"
must store the rows."""

from playwright.sync_api import expect

from proposals.models import ScalingMeasurement
from tests.e2e.test_input_trust import log_in
from tests.factories import ProposalFactory, UserFactory

TWO_ROWS = "GPUs\tThroughput (samples/s)\n4\t1200\n8\t2280\n"
THREE_ROWS = TWO_ROWS + "16\t4225\n"


def test_update_preview_and_add_with_javascript(browser, live_server, e2e_catalogue):
    user = UserFactory()
    proposal = ProposalFactory(owner=user)
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/paste/measurements/")
    page.wait_for_load_state("load")
    box = page.locator("#paste-measurements-text")
    box.fill(TWO_ROWS)
    page.get_by_role("button", name="Preview", exact=True).click()
    summary = page.get_by_test_id("paste-measurements-summary")
    expect(summary).to_contain_text("2 rows to add")
    # A third row typed after the preview: the preview follows, in place.
    page.wait_for_load_state("load")
    page.locator("#paste-measurements-text").fill(THREE_ROWS)
    page.get_by_role("button", name="Update preview").click()
    expect(summary).to_contain_text("3 rows to add")
    page.get_by_test_id("paste-measurements-add").click()
    page.wait_for_url(f"**/proposals/{proposal.pk}/scalability/**")
    assert sorted(
        ScalingMeasurement.objects.filter(proposal=proposal).values_list(
            "gpus", flat=True
        )
    ) == [4, 8, 16]
    context.close()
