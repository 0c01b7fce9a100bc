"""A new applicant's whole journey through the wizard, as the user sees it."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core import mail
from playwright.sync_api import Page, expect

from proposals.models import Proposal

STEPS = ["organisation", "selection", "codes", "scalability", "optimisation", "review"]
LUMI_JOBS = [
    ("Hyperparameter evaluation", "8", "4", "120"),
    ("Full-scale training", "32", "24", "1"),
    ("Ablation training", "32", "24", "16"),
    ("Model variant evaluation", "4", "2", "160"),
]
LUMI_MEASUREMENTS = [("4", "1200"), ("8", "2280"), ("16", "4225")]


def wait_saved(page: Page):
    # Generous: on a loaded two-core machine a debounced autosave and its answer
    # can take seconds; what is asserted is that it ends "saved", not how fast.
    expect(page.locator("#save-status")).to_have_attribute(
        "data-state", "saved", timeout=15_000
    )


def type_into(page: Page, selector: str, value: str):
    # A click on a step link returns once the navigation commits; typing before htmx
    # has set up the form (on load) would show "Typing…" with no autosave to follow.
    page.wait_for_load_state("load")
    field = page.locator(selector)
    field.fill(value)
    wait_saved(page)


def sign_up(page: Page, base: str, username: str):
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.eu")
    page.fill("#id_password1", "a-long-unusual-passphrase")
    page.fill("#id_password2", "a-long-unusual-passphrase")
    page.click("button[type=submit]")
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    link = re.search(r"https?://\S+", mail.outbox[-1].body).group(0)
    page.goto(link)
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("heading", name="Your first five minutes")).to_be_visible()


def add_row(page: Page, kind: str) -> str:
    """Click "+ ..." for ``kind`` and return the new row's id."""
    rows = page.locator(f"tr[id^='{kind}-']")
    before = rows.count()
    page.get_by_test_id(f"add-{kind}").click()
    expect(rows).to_have_count(before + 1)
    return rows.nth(before).get_attribute("id")


def test_new_applicant_builds_the_lumi_fast_lane_example(
    page: Page, live_server, e2e_catalogue, artifacts
):
    base = live_server.url
    sign_up(page, base, "newcomer")

    page.get_by_role("link", name="New proposal").click()
    page.fill("#id_title", "Defect detection on LUMI")
    page.select_option("#id_system", label="LUMI-G")
    page.get_by_role("button", name="Create proposal").click()
    expect(
        page.get_by_role("heading", name="Organisation and eligibility")
    ).to_be_visible()
    proposal = Proposal.objects.get(title="Defect detection on LUMI")

    page.get_by_role("link", name=re.compile("Selection")).click()
    type_into(page, "#id_total_gpu_hours", "4000")
    expect(page.get_by_test_id("tier")).to_have_text("Playground")
    type_into(page, "#id_total_gpu_hours", "18176")
    expect(page.get_by_test_id("tier")).to_have_text("Fast Lane")
    type_into(page, "#id_max_gpus_per_job", "32")
    expect(page.get_by_test_id("max-gpus-nodes")).to_contain_text("8 nodes")

    page.get_by_role("link", name=re.compile("Scalability")).click()
    for title, gpus, hours, count in LUMI_JOBS:
        row = add_row(page, "jobs")
        page.fill(f"#{row} input[name$='-title']", title)
        page.fill(f"#{row} input[name$='-gpus']", gpus)
        page.fill(f"#{row} input[name$='-hours']", hours)
        page.fill(f"#{row} input[name$='-count']", count)
        wait_saved(page)
    # The last row's figures arrive out of band (no later request re-renders them).
    last = page.locator("tr[id^='jobs-']").last
    expect(last.get_by_test_id("job-gpu-hours")).to_contain_text("1,280")
    expect(page.get_by_test_id("jobs-total")).to_have_text("18,176")
    expect(page.get_by_test_id("plan-total")).to_have_text("18,176")

    for gpus, throughput in LUMI_MEASUREMENTS:
        row = add_row(page, "measurements")
        page.fill(f"#{row} input[name$='-gpus']", gpus)
        page.fill(f"#{row} input[name$='-throughput']", throughput)
        wait_saved(page)
    table = page.get_by_test_id("scaling-table")
    expect(table).to_contain_text("95%")
    expect(table).to_contain_text("88%")
    expect(table).to_contain_text("1.90x")
    # The chart is an image of its own URL, loaded after the numbers.
    chart = page.get_by_test_id("scaling-chart").locator("img")
    expect(chart).to_be_visible()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=chart.element_handle()
    )
    expect(page.get_by_test_id("projection")).to_contain_text("at 32 GPUs")

    page.get_by_role("link", name=re.compile("Code details")).click()
    page.fill("input[name$='-name']", "PyTorch training loop")
    wait_saved(page)
    page.get_by_test_id("add-codes").click()
    second = page.locator("section.code-entry").nth(1)
    expect(second).to_be_visible()
    second.locator("input[name$='-name']").fill("vLLM evaluation")
    second.locator("input[name$='-version']").fill("0.6.3")
    wait_saved(page)

    # Everything is stored: a reload shows it all again.
    page.reload()
    expect(page.locator("section.code-entry")).to_have_count(2)
    expect(
        page.locator("section.code-entry").nth(1).locator("input[name$='-name']")
    ).to_have_value("vLLM evaluation")
    page.goto(f"{base}/proposals/{proposal.pk}/scalability/")
    expect(page.get_by_test_id("jobs-total")).to_have_text("18,176")
    expect(page.locator("tr[id^='measurements-']")).to_have_count(3)
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 18176
    assert proposal.jobs.count() == 4

    # Two tabs change the same field: the second save is a conflict showing both
    # values, and nothing is overwritten until the person keeps one.
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    other = page.context.new_page()
    other.goto(f"{base}/proposals/{proposal.pk}/selection/")
    type_into(other, "#id_libraries", "PyTorch 2.5, vLLM 0.6")
    page.fill("#id_libraries", "an older idea")
    expect(page.locator("#save-status")).to_have_attribute("data-state", "conflict")
    banner = page.locator("#conflict-banner")
    expect(banner).to_contain_text("changed somewhere else")
    expect(banner.get_by_test_id("conflict-theirs")).to_have_text(
        "PyTorch 2.5, vLLM 0.6"
    )
    proposal.refresh_from_db()
    assert proposal.libraries == "PyTorch 2.5, vLLM 0.6"
    other.close()


@pytest.mark.parametrize("step", STEPS)
def test_every_step_is_accessible(
    page: Page, live_server, e2e_catalogue, artifacts, step
):
    from django.core.management import call_command

    call_command("load_demo", "--with-public-passwords", verbosity=0)
    proposal = Proposal.objects.get(
        owner__username="demo", title__contains="paper mills"
    )
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "demo")
    page.fill("#id_password", "aifactory-demo")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/{step}/")
    expect(page.locator("#live-tier")).to_be_visible()
    page.screenshot(
        path=artifacts / f"step-{STEPS.index(step) + 1}-{step}.png", full_page=True
    )
    results = Axe().run(page)
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == []
