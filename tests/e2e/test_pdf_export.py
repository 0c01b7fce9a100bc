"""The applicant views their PDF in the browser (issues 15 and 16): the review step's
"View PDF" shows the progress while the task worker renders it, and the page opens
the file, inline, once it is ready; the Markdown has its own page."""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from proposals.models import Proposal
from tests.e2e.test_staff_journey import log_in


@pytest.fixture
def draft(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return Proposal.objects.filter(owner__username="demo").order_by("pk").first()


def test_view_pdf_shows_progress_then_opens_the_file(
    page: Page, live_server, draft, artifacts, run_tasks
):
    base = live_server.url
    log_in(page, base, "demo", "aifactory-demo")
    page.goto(f"{base}/proposals/{draft.pk}/review/")
    page.get_by_test_id("export-pdf-view").click()
    status = page.get_by_test_id("pdf-status")
    expect(status).to_have_attribute("data-status", "pending")
    expect(status).to_contain_text("the page updates by itself")
    page.screenshot(path=artifacts / "pdf-progress.png")
    # The file is fetched for real and checked here; the page is shown a stand-in,
    # not the PDF: closing a context while headless Chromium's PDF viewer is still
    # loading could hang the test run (seen once in CI, at the browser's teardown).
    fetched = []

    def fetch_pdf(route):
        fetched.append(route.fetch())
        route.fulfill(status=200, content_type="text/plain", body="PDF checked")

    page.route("**/file.pdf*", fetch_pdf)
    run_tasks()
    expect(page).to_have_url(re.compile(r"/file\.pdf"))
    expect(page.locator("body")).to_contain_text("PDF checked")
    (response,) = fetched
    assert response.status == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("inline;")
    assert f"proposal-{draft.pk}-draft-" in response.headers["content-disposition"]
    assert response.body().startswith(b"%PDF-")


def test_view_markdown_in_the_browser(page: Page, live_server, draft):
    base = live_server.url
    log_in(page, base, "demo", "aifactory-demo")
    page.goto(f"{base}/proposals/{draft.pk}/review/")
    page.get_by_test_id("export-markdown-view").click()
    text = page.get_by_test_id("markdown-text")
    expect(text).to_contain_text("Working draft, exported on")
    expect(page.get_by_test_id("markdown-download")).to_be_visible()
