"""The wizard's pages fit: every step of two demo proposals and their portal text, at
390 px (a phone) and 1366 px (a laptop): no page scrolls sideways, no control is cut
off by the window or by a scrolling box around it, axe finds no serious or critical
violation, and the browser logs no error or warning (tests/e2e/page_checks.py; every
other page is walked the same way by tests/e2e/test_pages_accessible.py). Screenshots
of every page at both widths go to ``test-artifacts/`` to be looked at."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from proposals.models import Proposal
from tests.e2e.page_checks import (
    CLIPPED,
    SCROLL,
    WIDTHS,
    Console,
    check_page,
    log_in,
    wait_ready,
)
from tests.e2e.test_wizard_journey import (
    LUMI_JOBS,
    STEPS,
    add_row,
    sign_up,
    type_into,
    wait_saved,
)


def applicant_pages(proposals) -> list[tuple[str, str]]:
    pages = []
    for label, proposal in proposals:
        pages += [
            (f"{label}-{step}", reverse("proposals:step", args=[proposal.pk, step]))
            for step in STEPS
        ]
        pages.append(
            (
                f"{label}-portal-text",
                reverse("proposals:export_portal", args=[proposal.pk]),
            )
        )
    return pages


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request, page: Page):
    page.set_viewport_size({"width": WIDTHS[request.param], "height": 900})
    return request.param


def test_applicant_pages_fit(page: Page, live_server, submitted, artifacts, width):
    console = Console(page)
    demos = Proposal.objects.filter(owner__username="demo")
    proposals = [
        ("fast-lane", demos.get(title__contains="paper mills")),
        ("large-scale", demos.get(title__contains="Iberian")),
    ]
    log_in(page, live_server.url, "demo", "aifactory-demo")
    problems: list[str] = []
    for name, url in applicant_pages(proposals):
        response = page.goto(f"{live_server.url}{url}")
        assert response.status == 200, url
        check_page(page, artifacts, f"{width}-{name}", problems)
    assert problems == [], "\n".join(problems)
    assert console.messages == []


def test_rows_are_cards_on_a_phone_with_their_labels(
    page: Page, live_server, submitted
):
    page.set_viewport_size({"width": 390, "height": 900})
    proposal = Proposal.objects.get(
        owner__username="demo", title__contains="paper mills"
    )
    log_in(page, live_server.url, "demo", "aifactory-demo")
    page.goto(
        f"{live_server.url}{reverse('proposals:step', args=[proposal.pk, 'scalability'])}"
    )
    row = page.locator("tr[id^='jobs-']").first
    title = row.locator("td[data-label]").first
    expect(title).to_have_attribute("data-label", "Job type")
    label = title.evaluate("td => getComputedStyle(td, '::before').content")
    assert label == '"Job type"'
    # The summary is at hand at the top of the screen, and leads to the sidebar.
    bar = page.get_by_test_id("live-bar")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("Fast Lane")
    page.evaluate("window.scrollTo(0, 2000)")
    page.wait_for_function("window.scrollY > 1000")
    assert bar.bounding_box()["y"] < 5
    bar.get_by_role("link").click()
    expect(page.locator("#live-tier")).to_be_in_viewport()
    # On a laptop the sidebar is beside the form: no bar.
    page.set_viewport_size({"width": 1366, "height": 900})
    expect(bar).to_be_hidden()


def test_a_whole_journey_logs_no_error(page: Page, live_server, e2e_catalogue):
    """Sign up, build a Fast Lane proposal through every step (autosaves on every step,
    rows added and typed in), read the portal text: not one console error or warning
    (the schedule's total, absent below Large Scale, is not sent out of band)."""
    console = Console(page)
    base = live_server.url
    sign_up(page, base, "journey")
    page.get_by_role("link", name="New proposal").click()
    page.fill("#id_title", "Journey on LUMI")
    page.select_option("#id_system", label="LUMI-G")
    page.get_by_role("button", name="Create proposal").click()
    proposal = Proposal.objects.get(title="Journey on LUMI")
    page.get_by_role("link", name=re.compile("Selection")).click()
    type_into(page, "#id_total_gpu_hours", "18176")
    type_into(page, "#id_max_gpus_per_job", "32")
    page.get_by_role("link", name=re.compile("Scalability")).click()
    type_into(page, "#id_scalability_narrative", "We measured on LUMI-G.")
    for title, gpus, hours, count in LUMI_JOBS[:2]:
        row = add_row(page, "jobs")
        page.fill(f"#{row} input[name$='-title']", title)
        page.fill(f"#{row} input[name$='-gpus']", gpus)
        page.fill(f"#{row} input[name$='-hours']", hours)
        page.fill(f"#{row} input[name$='-count']", count)
        wait_saved(page)
    for gpus, throughput in (("4", "1200"), ("8", "2280")):
        row = add_row(page, "measurements")
        page.fill(f"#{row} input[name$='-gpus']", gpus)
        page.fill(f"#{row} input[name$='-throughput']", throughput)
        wait_saved(page)
    # The chart arrives as an image after the numbers (its own URL, drawn once).
    chart = page.get_by_test_id("scaling-chart").locator("img")
    expect(chart).to_be_visible()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=chart.element_handle()
    )
    page.get_by_role("link", name=re.compile("Code details")).click()
    page.fill("input[name$='-name']", "PyTorch training loop")
    wait_saved(page)
    page.get_by_role("link", name=re.compile("Optimisation")).click()
    type_into(page, "#id_optimisation_narrative", "FSDP and FlashAttention.")
    page.get_by_role("button", name=re.compile("Review")).first.click()
    expect(page.locator("#save-status")).to_be_attached()
    page.goto(f"{base}{reverse('proposals:export_portal', args=[proposal.pk])}")
    wait_ready(page)
    assert console.messages == []


@pytest.mark.parametrize("pixels", [820, 1024, 1280, 1440])
def test_tables_fit_beside_the_sidebar_at_any_width(
    page: Page, live_server, submitted, artifacts, pixels
):
    """Between the phone and the wide screen, each table is a table where its box has
    room for the columns and cards where it has not: nothing is cut off."""
    page.set_viewport_size({"width": pixels, "height": 900})
    proposal = Proposal.objects.get(owner__username="demo", title__contains="Iberian")
    log_in(page, live_server.url, "demo", "aifactory-demo")
    page.goto(
        f"{live_server.url}{reverse('proposals:step', args=[proposal.pk, 'scalability'])}"
    )
    problems: list[str] = []
    wait_ready(page)
    page.screenshot(path=artifacts / f"layout-{pixels}-scalability.png", full_page=True)
    scroll, client = page.evaluate(SCROLL)
    assert scroll <= client
    problems.extend(page.evaluate(CLIPPED))
    assert problems == [], "\n".join(problems)
