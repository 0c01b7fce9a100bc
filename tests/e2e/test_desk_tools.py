"""The desk's tools in Chromium (issue 34): a bulk take from the queue, checked
before it is done; a canned reply inserted into a comment with the proposal's
figures filled in, then sent."""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from proposals.models import CannedReply, Proposal, ReviewComment, ReviewState
from tests.e2e.test_staff_journey import TITLE, log_in


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return Proposal.objects.get(title=TITLE)


def test_bulk_take_is_checked_then_done(page: Page, live_server, demo, artifacts):
    base = live_server.url
    log_in(page, base, "staff", "aifactory-staff")
    expect(page.get_by_test_id("queue-row")).to_have_count(2)
    picks = page.get_by_test_id("queue-pick")
    for index in range(picks.count()):
        picks.nth(index).check()
    page.select_option("#bulk-action", "take")
    page.get_by_test_id("queue-bulk").locator("button[type=submit]").click()
    # The check page: what will change, nothing done yet.
    changing = page.get_by_test_id("bulk-row")
    expect(changing.first).to_be_visible()
    count = changing.count()
    refused = page.get_by_test_id("bulk-refused-row").count()
    assert count + refused == 2
    before = ReviewState.objects.filter(handled_by__username="staff").count()
    page.screenshot(path=artifacts / "desk-bulk-check.png", full_page=True)
    page.get_by_test_id("bulk-confirm").click()
    expect(page).to_have_url(f"{base}/staff/review/")
    done = "Done for 1 proposal." if count == 1 else f"Done for {count} proposals."
    expect(page.get_by_text(done)).to_be_visible()
    after = ReviewState.objects.filter(handled_by__username="staff").count()
    assert after == before + count


def test_canned_reply_is_inserted_filled_in_then_sent(
    page: Page, live_server, demo, artifacts
):
    CannedReply.objects.create(
        title="Thanks",
        language="en-gb",
        body="Dear {applicant}, thank you for “{title}” ({gpu_hours} GPU-hours).",
    )
    base = live_server.url
    log_in(page, base, "staff", "aifactory-staff")
    page.goto(f"{base}/staff/review/{demo.pk}/")
    replies = page.locator("[data-testid^=canned-replies-]").first
    section = replies.get_attribute("data-testid").removeprefix("canned-replies-")
    replies.evaluate("element => element.closest('details').open = true")
    box = replies.locator("xpath=..").locator("textarea[name=body]")
    box.fill("First a word of mine.")
    replies.get_by_role("button").click()  # Insert, through htmx
    box = replies.locator("xpath=..").locator("textarea[name=body]")
    expect(box).to_have_value(
        re.compile(r"^First a word of mine\.\n\nDear .+, thank you for")
    )
    text = box.input_value()
    assert "{" not in text and TITLE in text
    assert not ReviewComment.objects.filter(body__contains="thank you for").exists()
    page.screenshot(path=artifacts / "desk-canned-reply.png", full_page=False)
    replies.locator("xpath=..").get_by_role("button", name="Add comment").click()
    # The thread comes back through htmx with the comment in it.
    expect(
        page.locator(f"#comments-{section} .comment-body").filter(
            has_text="thank you for"
        )
    ).to_be_visible()
    assert ReviewComment.objects.filter(body__contains=TITLE).exists()
