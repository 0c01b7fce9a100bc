"""A support staff member's journey through the workspace, with the applicant
answering in a second browser: queue, review page, exports, assessment, change
request, resubmission, comparison, ready, and an edit after ready."""

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from proposals.models import Proposal

TITLE = "Visual inspection model for production lines"  # waiting in the demo data


def log_in(page: Page, base: str, username: str, password: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


def wait_saved(page: Page):
    expect(page.locator("#save-status")).to_have_attribute("data-state", "saved")


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return Proposal.objects.get(title=TITLE)


def test_staff_journey(page: Page, browser, live_server, demo, artifacts, run_tasks):
    base = live_server.url
    # Sign-in lands on the queue, which has work in it.
    log_in(page, base, "staff", "aifactory-staff")
    expect(page).to_have_url(f"{base}/staff/review/")
    # By default what the staff owe: two of the three demo reviews (the third is
    # ready, waiting for the applicant).
    expect(page.get_by_test_id("queue-row")).to_have_count(2)

    # The review page: the job plan and the scaling table are tables.
    page.get_by_role("link", name=TITLE).click()
    expect(page.get_by_test_id("job-plan-table")).to_be_visible()
    expect(page.get_by_test_id("scaling-table-review").first).to_be_visible()
    expect(page.get_by_test_id("scaling-table-review").first).to_contain_text(
        "Efficiency"
    )
    page.screenshot(path=artifacts / "staff-review.png", full_page=True)
    review_url = page.url

    # Its PDF and its portal text.
    # The PDF is rendered by the task worker: the page shows its progress, polls,
    # and offers the file when it is ready.
    page.get_by_test_id("staff-export-pdf").click()
    expect(page.get_by_test_id("pdf-status")).to_have_attribute(
        "data-status", "pending"
    )
    run_tasks()
    expect(page.get_by_test_id("pdf-view")).to_be_visible(timeout=10_000)
    pdf_href = page.get_by_test_id("pdf-view").get_attribute("href")
    pdf = page.request.get(base + pdf_href)
    assert pdf.status == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"].startswith("inline;")
    page.goto(review_url)
    page.get_by_test_id("staff-export-portal").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("application portal")
    page.goto(review_url)

    # Assess with a condition.
    checklist = page.get_by_test_id("checklist-item")
    expect(checklist).to_have_count(2)
    page.check("#outcome-feasible_with_conditions")
    page.select_option("#decision-0", "condition")
    page.fill("#reason-0", "Scaling data at 64 GPUs by month 2")
    page.fill("#assessment-text", "Feasible on MareNostrum 5.")
    page.get_by_role("button", name="Record assessment").click()
    expect(page.get_by_test_id("assessment-recorded")).to_contain_text(
        "Feasible with conditions"
    )

    # Request changes from two findings.
    page.check("#outcome-not_feasible")
    page.select_option("#decision-0", "change_request")
    page.select_option("#decision-1", "change_request")
    page.get_by_role("button", name="Request changes from the chosen findings").click()
    expect(page.get_by_test_id("status")).to_have_text("Changes requested")
    expect(page.get_by_test_id("status-history")).to_contain_text("SCAL-10")

    # The applicant edits and sends it again.
    applicant_context = browser.new_context(viewport={"width": 1366, "height": 900})
    applicant = applicant_context.new_page()
    log_in(applicant, base, "demo", "aifactory-demo")
    applicant.goto(f"{base}/proposals/{demo.pk}/submission/")
    expect(applicant.get_by_test_id("assessment-r1")).to_contain_text("Not feasible")
    applicant.goto(f"{base}/proposals/{demo.pk}/selection/")
    applicant.fill("#id_libraries", "PyTorch 2.5, torchvision 0.20, ONNX Runtime")
    wait_saved(applicant)
    applicant.goto(f"{base}/proposals/{demo.pk}/submission/send/")
    applicant.get_by_role("button", name="Send for review").click()
    expect(applicant.get_by_test_id("status")).to_have_text("Submitted for review")

    # Staff compare r1 and r2, then mark it ready.
    page.goto(f"{base}/staff/review/{demo.pk}/diff/?a=1&b=2")
    expect(page.get_by_test_id("diff-selection")).to_contain_text("ONNX Runtime")
    page.goto(review_url)
    page.select_option("#id_to_status", "ready")
    # Revision 2 still has error findings: "Ready" needs the reason.
    page.fill("#id_note", "Ready: the open findings are known limits.")
    page.get_by_role("button", name="Set status").click()
    expect(page.get_by_test_id("status")).to_have_text("Ready to submit")

    # The applicant edits again: the queue says so.
    applicant.goto(f"{base}/proposals/{demo.pk}/selection/")
    applicant.fill("#id_libraries", "PyTorch 2.5, torchvision 0.20")
    wait_saved(applicant)
    page.goto(f"{base}/staff/review/?status=changed_since_ready")
    row = page.get_by_test_id("queue-row")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("queue-status")).to_have_text("Changed since ready")
    page.screenshot(path=artifacts / "staff-queue-changed.png", full_page=True)
    applicant_context.close()
