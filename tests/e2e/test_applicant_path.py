"""The applicant's path around the wizard: the landing page, the guide and the
glossary, and managing proposals from the list, at a phone's and a laptop's width."""

import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import Page, expect

from proposals.domain import tiers
from proposals.domain.numbers import grouped
from proposals.models import JobType, Proposal
from tests.e2e.page_checks import log_in, serious_violations

WIDTHS = {"390": {"width": 390, "height": 844}, "1366": {"width": 1366, "height": 900}}
LUMI = "Defect detection models for paper mills"


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)


def assert_fits(page: Page, selector: str):
    """No horizontal page scroll, and every visible control inside the viewport."""
    width = page.viewport_size["width"]
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page scrolls sideways: {scroll} px > {width} px"
    boxes = page.locator(selector).evaluate_all(
        """els => els.filter(e => e.offsetParent !== null).map(e => {
             const r = e.getBoundingClientRect();
             return {text: e.innerText.trim().slice(0, 40), left: r.left, right: r.right};
           })"""
    )
    assert boxes, f"nothing matches {selector}"
    clipped = [b for b in boxes if b["left"] < 0 or b["right"] > width + 0.5]
    assert clipped == []


@pytest.mark.parametrize("width", WIDTHS)
def test_anonymous_visitors_learn_what_the_tool_is(
    page: Page, live_server, e2e_catalogue, artifacts, width
):
    page.set_viewport_size(WIDTHS[width])
    page.goto(live_server.url)
    expect(page.get_by_role("heading", level=1)).to_contain_text("GPU time")
    for label in tiers.TIER_LABELS.values():
        expect(page.get_by_role("heading", name=label)).to_be_visible()
    expect(page.locator("main")).to_contain_text(f"Up to {grouped(5000)} GPU-hours")
    shot = page.locator("img.landing-shot")
    expect(shot).to_be_visible()
    assert shot.evaluate("img => img.complete && img.naturalWidth") == 1366
    assert_fits(page, "main a, main button, main img")
    page.screenshot(path=artifacts / f"landing-{width}.png", full_page=True)
    assert serious_violations(page) == []

    page.locator("main").get_by_role("link", name=re.compile("Sign up")).click()
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    ("name", "url"),
    [("guide", "proposals:guide"), ("glossary", "proposals:glossary")],
)
def test_guide_and_glossary_are_accessible(
    page: Page, live_server, demo, artifacts, width, name, url
):
    page.set_viewport_size(WIDTHS[width])
    log_in(page, live_server.url, "demo", "aifactory-demo")
    page.goto(f"{live_server.url}{reverse(url)}")
    assert_fits(page, "main a, main button")
    page.screenshot(path=artifacts / f"{name}-{width}.png", full_page=True)
    assert serious_violations(page) == []


def test_a_header_explains_its_word_on_keyboard_focus(
    page: Page, live_server, demo, artifacts
):
    proposal = Proposal.objects.get(title=LUMI)
    log_in(page, live_server.url, "demo", "aifactory-demo")
    page.goto(
        live_server.url + reverse("proposals:step", args=[proposal.pk, "scalability"])
    )
    link = page.locator("th a.term[href$='#mfu']")
    tip = page.locator(f"#{link.get_attribute('aria-describedby')}")
    expect(tip).to_be_hidden()
    link.scroll_into_view_if_needed()
    link.focus()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("Model FLOPs utilisation")
    expect(link).to_have_accessible_description(re.compile("Model FLOPs"))
    page.screenshot(path=artifacts / "glossary-help-on-focus.png")
    link.click()
    expect(page).to_have_url(re.compile(r"/glossary/#mfu$"))
    expect(page.locator("#mfu")).to_be_in_viewport()


def test_duplicate_archive_and_delete_from_the_list(
    page: Page, live_server, demo, artifacts
):
    base = live_server.url
    original = Proposal.objects.get(title=LUMI)
    demos = Proposal.objects.filter(owner=original.owner).count()
    log_in(page, base, "demo", "aifactory-demo")
    page.goto(f"{base}{reverse('proposals:list')}")

    # Duplicate: a new draft under the title the applicant types.
    page.get_by_role("link", name=f"Duplicate “{LUMI}”").click()
    expect(page.locator("#id_title")).to_have_value(f"Copy of {LUMI}")
    assert serious_violations(page) == []
    page.fill("#id_title", "Paper mills, second call")
    page.get_by_role("button", name="Create the copy").click()
    expect(
        page.get_by_role("heading", name="Organisation and eligibility")
    ).to_be_visible()
    copy = Proposal.objects.get(title="Paper mills, second call")
    assert copy.pk != original.pk
    assert JobType.objects.filter(proposal=copy).count() == (
        JobType.objects.filter(proposal=original).count()
    )

    # Archive: out of the list, under "Archived", and back.
    page.goto(f"{base}{reverse('proposals:list')}")
    items = page.locator(".proposal-item")
    expect(items).to_have_count(demos + 1)
    page.get_by_role("button", name="Archive “Paper mills, second call”").click()
    expect(page.get_by_role("status")).to_contain_text("was archived")
    expect(items).to_have_count(demos)
    page.get_by_role("link", name="Archived").click()
    expect(page.get_by_role("heading", name="Archived proposals")).to_be_visible()
    expect(items).to_have_count(1)
    expect(items).to_contain_text("Paper mills, second call")
    page.screenshot(path=artifacts / "proposals-archived.png", full_page=True)
    assert serious_violations(page) == []

    # Delete, from the archive: a confirmation first; Cancel changes nothing.
    page.get_by_role("link", name="Delete “Paper mills, second call”").click()
    expect(page.get_by_role("heading", name=re.compile("^Delete"))).to_be_visible()
    expect(page.locator("main")).to_contain_text("This cannot be undone.")
    expect(page.get_by_role("button", name="Archive instead")).to_have_count(0)
    page.screenshot(path=artifacts / "proposal-confirm-delete.png", full_page=True)
    assert serious_violations(page) == []
    page.get_by_role("link", name="Cancel").click()
    assert Proposal.objects.filter(pk=copy.pk).exists()
    page.goto(f"{base}{reverse('proposals:delete', args=[copy.pk])}")
    page.get_by_role("button", name="Delete proposal").click()
    expect(page.get_by_role("status")).to_contain_text(
        "“Paper mills, second call” was deleted."
    )
    assert not Proposal.objects.filter(pk=copy.pk).exists()
    expect(items).to_have_count(demos)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_list_fits_a_phone_and_a_laptop(
    page: Page, live_server, demo, artifacts, width
):
    owner = Proposal.objects.get(title=LUMI).owner
    Proposal.objects.create(
        owner=owner, title="An unusually long working title " + "x" * 60
    )
    page.set_viewport_size(WIDTHS[width])
    log_in(page, live_server.url, "demo", "aifactory-demo")
    page.goto(f"{live_server.url}{reverse('proposals:list')}")
    expect(page.locator(".proposal-item")).to_have_count(
        Proposal.objects.filter(owner=owner).count()
    )
    assert_fits(page, "main a, main button, main .badge, main h2")
    # The status badge is whole: as wide as its text needs.
    for badge in page.locator(".proposal-status").all():
        assert badge.evaluate("b => b.scrollWidth <= b.clientWidth")
    page.screenshot(path=artifacts / f"proposals-{width}.png", full_page=True)
    assert serious_violations(page) == []
