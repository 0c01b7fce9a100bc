"""Paste a table (issue 14): a scaling table copied from a spreadsheet (tab-separated,
header, thousands separators) and a job plan in Markdown, pasted and typed with the
keyboard into the wizard in Chromium; the rows and totals appear; one paste is
undone."""

import pytest
from playwright.sync_api import Page, expect

from proposals.models import JobType, ScalingMeasurement
from tests.e2e.test_input_trust import log_in
from tests.factories import ProposalFactory, UserFactory

SPREADSHEET = (
    "GPUs\tThroughput (samples/s)\tEfficiency\n"
    "4\t1,200\t100%\n"
    "8\t2,280\t95%\n"
    "16\t4,225\t88%\n"
)
MARKDOWN_PLAN = (
    "| Job type | GPUs per job | Hours | Jobs | GPU-hours |\n"
    "|:--|--:|--:|--:|--:|\n"
    "| Hyper-parameter sweep | 8 | 4 | 120 | 3,840 |\n"
    "| Pre-training | 32 | 24 | 16 | 12,288 |\n"
    "| **Total** | | | | 16,128 |"
)


@pytest.fixture
def applicant(browser, live_server, e2e_catalogue):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=16128, max_gpus_per_job=32)
    context = browser.new_context(locale="en-US")
    context.grant_permissions(
        ["clipboard-read", "clipboard-write"], origin=live_server.url
    )
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    yield page, proposal
    context.close()


def open_paste(page: Page, kind: str):
    # Adding rows reloads the step: until its load event, htmx has not yet set up
    # the form, and "Preview" would post the whole page instead of its region.
    page.wait_for_load_state("load")
    page.get_by_test_id(f"paste-{kind}-toggle").click()
    box = page.get_by_test_id(f"paste-{kind}-text")
    box.click()
    return box


def test_paste_a_spreadsheet_and_a_markdown_plan_then_undo(applicant, artifacts):
    page, proposal = applicant

    # 1. The spreadsheet's cells, as its "Copy" puts them on the clipboard, pasted
    #    with Ctrl+V (tabs between cells: typing them would move the focus).
    open_paste(page, "measurements")
    page.evaluate("text => navigator.clipboard.writeText(text)", SPREADSHEET)
    page.keyboard.press("Control+V")
    expect(page.get_by_test_id("paste-measurements-text")).to_have_value(SPREADSHEET)
    page.get_by_test_id("paste-measurements-preview-button").click()
    summary = page.get_by_test_id("paste-measurements-summary")
    expect(summary).to_contain_text("Read as a tab-separated")
    expect(summary).to_contain_text("3 rows to add")
    preview = page.get_by_test_id("paste-measurements-rows")
    expect(preview).to_contain_text("2,280")
    expect(page.get_by_test_id("paste-measurements-map-2")).to_have_value("computed")
    page.screenshot(path=artifacts / "paste-preview.png", full_page=True)
    page.get_by_test_id("paste-measurements-add").click()

    table = page.get_by_test_id("measurements-table")
    expect(table.locator("tbody tr[id]")).to_have_count(3)
    expect(page.locator("#measurements-h")).to_be_visible()
    scaling = page.get_by_test_id("scaling-table")
    expect(scaling).to_contain_text("95%")
    expect(scaling).to_contain_text("88%")
    expect(page.locator(".messages")).to_contain_text("Added 3 rows")

    # 2. A job plan in Markdown, typed key by key (the total line is left out: the
    #    wizard adds up the rows itself).
    open_paste(page, "jobs")
    page.keyboard.type(MARKDOWN_PLAN)
    page.get_by_test_id("paste-jobs-preview-button").click()
    expect(page.get_by_test_id("paste-jobs-summary")).to_contain_text("2 rows to add")
    expect(page.get_by_test_id("paste-jobs-result")).to_contain_text("total line")
    page.get_by_test_id("paste-jobs-add").click()

    jobs = page.get_by_test_id("jobs-table")
    expect(jobs.locator("tbody tr[id]")).to_have_count(2)
    expect(jobs.locator("tfoot")).to_contain_text("16,128")
    expect(page.get_by_test_id("plan-total")).to_have_text("16,128")
    page.screenshot(path=artifacts / "paste-added.png", full_page=True)

    # 3. Undo the job plan's paste: exactly its rows go, the measurements stay.
    page.wait_for_load_state("load")
    page.get_by_test_id("paste-jobs-undo").click()
    expect(page.locator(".messages")).to_contain_text("removed the 2 pasted rows")
    expect(page.get_by_test_id("jobs-table")).to_contain_text("No job types yet.")
    expect(
        page.get_by_test_id("measurements-table").locator("tbody tr[id]")
    ).to_have_count(3)
    expect(page.get_by_test_id("paste-jobs-undo")).to_have_count(0)
    assert not JobType.objects.filter(proposal=proposal).exists()
    assert sorted(
        ScalingMeasurement.objects.filter(proposal=proposal).values_list(
            "gpus", flat=True
        )
    ) == [4, 8, 16]


def test_an_unknown_header_is_asked_and_answered_in_the_step(applicant):
    page, proposal = applicant
    open_paste(page, "measurements")
    page.keyboard.type("GPUs;Messwert;Art\n4;1200;tokens/s\n8;2280;tokens/s")
    page.get_by_test_id("paste-measurements-preview-button").click()
    add = page.get_by_test_id("paste-measurements-add")
    expect(add).to_be_disabled()
    expect(page.get_by_test_id("paste-measurements-result")).to_contain_text(
        "Choose what each column marked in red holds"
    )
    page.get_by_test_id("paste-measurements-map-1").select_option("throughput")
    page.get_by_test_id("paste-measurements-map-2").select_option("unit")
    page.get_by_role("button", name="Update preview").click()
    expect(add).to_be_enabled()
    expect(add).to_have_text("Add 2 rows to the scaling measurements")
    add.click()
    expect(
        page.get_by_test_id("measurements-table").locator("tbody tr[id]")
    ).to_have_count(2)
    assert sorted(
        ScalingMeasurement.objects.filter(proposal=proposal).values_list(
            "unit", "throughput"
        )
    ) == [("tokens/s", 1200), ("tokens/s", 2280)]
