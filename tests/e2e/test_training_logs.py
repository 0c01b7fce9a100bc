"""Measurements from training logs (issue 26) in Chromium: three Megatron-LM logs at
8, 16 and 32 GPUs are dropped into the scalability step, previewed with where each
figure came from, added; the scaling table and the chart fill; Undo takes exactly
those rows away."""

import pytest
from playwright.sync_api import expect

from proposals.models import ScalingMeasurement
from tests.domain.test_training_logs import LOGS
from tests.e2e.page_checks import check_page
from tests.e2e.test_input_trust import log_in
from tests.factories import CodeEntryFactory, ProposalFactory, UserFactory

RUNS = [LOGS / f"megatron-2024-{gpus}gpus.log" for gpus in (8, 16, 32)]


@pytest.fixture
def applicant(browser, live_server, e2e_catalogue):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=16128, max_gpus_per_job=32)
    CodeEntryFactory(proposal=proposal, name="Megatron-LM")
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    yield page, proposal
    context.close()


def test_three_logs_fill_the_scaling_table_and_chart_then_undo(
    applicant, artifacts, run_tasks
):
    page, proposal = applicant
    page.wait_for_load_state("load")
    page.get_by_test_id("logs-toggle").click()
    page.get_by_test_id("logs-files").set_input_files(RUNS)
    # The proposal is on LUMI-G, where Slurm counts GCDs; these runs count GPUs.
    page.locator("#logs-count-gpus").check()
    page.get_by_test_id("logs-preview-button").click()
    # The task worker reads them; the preview shows its progress meanwhile.
    expect(page.get_by_test_id("logs-reading")).to_be_visible()
    page.screenshot(path=artifacts / "logs-reading.png", full_page=True)
    run_tasks()

    summary = page.get_by_test_id("logs-summary")
    expect(summary).to_contain_text("Read 3 files")
    expect(summary).to_contain_text("3 measurements and 0 job-plan rows to add")
    preview = page.get_by_test_id("logs-measurements")
    expect(preview).to_contain_text("248,660.3903")
    expect(preview).to_contain_text("megatron-2024-32gpus.log, lines 19, 22,")
    page.screenshot(path=artifacts / "logs-preview.png", full_page=True)
    page.get_by_test_id("logs-add").click()

    expect(page.locator(".messages")).to_contain_text(
        "Added 3 measurements read from the logs"
    )
    rows = page.get_by_test_id("measurements-table").locator("tbody tr[id]")
    expect(rows).to_have_count(3)
    scaling = page.get_by_test_id("scaling-table")
    expect(scaling).to_contain_text("1.98x")
    expect(scaling).to_contain_text("3.78x")
    expect(scaling).to_contain_text("94%")
    chart = page.get_by_test_id("scaling-chart").locator("img")
    expect(chart).to_be_visible()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=chart.element_handle()
    )
    page.screenshot(path=artifacts / "logs-added.png", full_page=True)
    stored = ScalingMeasurement.objects.filter(proposal=proposal).order_by("gpus")
    assert [(m.gpus, m.unit, m.code.name) for m in stored] == [
        (8, "tokens/s", "Megatron-LM"),
        (16, "tokens/s", "Megatron-LM"),
        (32, "tokens/s", "Megatron-LM"),
    ]
    assert all("the first interval (warm-up)" in m.source for m in stored)

    page.wait_for_load_state("load")
    expect(page.get_by_test_id("logs-last")).to_contain_text("added 3 rows")
    page.get_by_test_id("logs-undo").click()
    expect(page.locator(".messages")).to_contain_text("removed the 3 rows read")
    expect(page.get_by_test_id("measurements-table")).to_contain_text(
        "No measurements yet."
    )
    expect(page.get_by_test_id("logs-undo")).to_have_count(0)
    assert not ScalingMeasurement.objects.filter(proposal=proposal).exists()


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js-phone"])
def test_the_page_of_its_own_reads_and_adds(
    browser, live_server, e2e_catalogue, artifacts, javascript, run_tasks
):
    """The logs page is a real form (multipart): without JavaScript it reads, takes
    a GPU count typed after the preview and adds; at 390 px (with JavaScript, which
    the layout checks need) its preview fits the screen and passes axe."""
    user = UserFactory()
    proposal = ProposalFactory(owner=user)
    context = browser.new_context(
        locale="en-US",
        java_script_enabled=javascript,
        viewport={"width": 390 if javascript else 1280, "height": 900},
    )
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/logs/")
    page.get_by_test_id("logs-files").set_input_files(
        [LOGS / "sacct-lumi.txt", LOGS / "torchtitan-2024-wps-no-mesh.log"]
    )
    page.get_by_role("button", name="Preview").click()
    # Read by the task worker: the page shows its progress, then (polling, or
    # refreshing itself without JavaScript) the preview.
    expect(page.get_by_test_id("logs-reading")).to_be_visible()
    run_tasks()
    expect(page.get_by_test_id("logs-summary")).to_contain_text(
        "0 measurements and 2 job-plan rows to add"
    )
    expect(page.get_by_test_id("logs-gcds")).to_contain_text("LUMI-G GCDs")
    # The GPU count the torchtitan log lacks, typed after the preview: the files
    # are not sent again (a page without JavaScript cannot keep them).
    page.get_by_test_id("logs-gpus").fill("8")
    page.get_by_role("button", name="Update preview").click()
    expect(page.get_by_test_id("logs-summary")).to_contain_text(
        "1 measurement and 2 job-plan rows to add"
    )
    if javascript:
        problems: list[str] = []
        check_page(page, artifacts, "logs-phone", problems)
        assert problems == []
    page.get_by_test_id("logs-add").click()
    expect(page.locator(".messages")).to_contain_text(
        "Added 1 measurement and 2 job-plan rows read from the logs"
    )
    (measurement,) = ScalingMeasurement.objects.filter(proposal=proposal)
    assert measurement.gpus == 8  # as typed: the field asks for GPUs
    assert proposal.jobs.filter(source__contains="sacct-lumi.txt").count() == 2
    context.close()
