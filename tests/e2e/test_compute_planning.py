"""Compute planning in a real browser: the estimator inputs update the sidebar live,
the compare-systems page is accessible, and one click makes a retargeted copy."""

import pytest
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import Page, expect

from proposals.models import Proposal
from tests.e2e.page_checks import log_in, serious_violations

LUMI = "Defect detection models for paper mills"


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return Proposal.objects.get(title=LUMI)


def test_estimate_compare_and_retarget(page: Page, live_server, demo, artifacts):
    base = live_server.url
    log_in(page, base, "demo", "aifactory-demo")
    page.goto(f"{base}{reverse('proposals:step', args=[demo.pk, 'codes'])}")
    entry = page.locator("section.code-entry").first
    entry.locator("details.compute-inputs summary").click()
    entry.locator("input[name$='-model_parameters']").fill("1,400,000,000")
    entry.locator("input[name$='-training_tokens']").fill("30,000,000,000")
    expect(page.locator("#save-status")).to_have_attribute("data-state", "saved")
    # No MFU typed: the MFU of the largest measurement (36 %) of 383 TFLOP/s.
    estimate = page.get_by_test_id("compute-estimate")
    expect(estimate).to_contain_text("6·N·D at 36% MFU, measured")
    expect(estimate).to_contain_text("508 GPU-hours")
    page.screenshot(path=artifacts / "compute-sidebar.png", full_page=True)

    page.get_by_test_id("compare-link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Compare systems")
    table = page.get_by_test_id("systems-table")
    expect(table.locator("tbody tr")).to_have_count(7)
    expect(table.locator("tr[data-system='lumi-g']")).to_contain_text("target")
    expect(table.locator("tr[data-system='vega-gpu']")).to_contain_text("estimate")
    page.screenshot(path=artifacts / "compare-systems.png", full_page=True)
    assert serious_violations(page) == []

    row = table.locator("tr[data-system='marenostrum5-acc']")
    row.get_by_role("button", name="Copy for MareNostrum 5 ACC").click()
    expect(page.locator("body")).to_contain_text("aimed at MareNostrum 5 ACC")
    expect(page.get_by_test_id("peak-throughput")).to_contain_text("989 TFLOP/s")
    copy = Proposal.objects.get(title=f"{LUMI} (on MareNostrum 5 ACC)")
    assert copy.system.slug == "marenostrum5-acc"
    assert copy.codes.order_by("position").first().model_parameters == 1_400_000_000
