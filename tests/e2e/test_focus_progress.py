"""Focus and progress in the wizard (issue 15): after moving between steps with the
keyboard, focus is in the step, not on <body>; a finding link keeps its field's label
in view; the progress line follows the applicant's work as autosave stores it."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.test_input_trust import settled
from tests.e2e.test_playground_path import playground, step  # noqa: F401 (fixture)

ACTIVE = """() => {
  const el = document.activeElement;
  return {tag: el.tagName, id: el.id, form: !!el.closest('#wizard-form')};
}"""


def active(page: Page) -> dict:
    return page.evaluate(ACTIVE)


def test_keyboard_navigation_lands_focus_in_the_step(playground):  # noqa: F811
    page, proposal, base = playground
    page.goto(step(base, proposal, "organisation"))
    # Next, pressed with the keyboard: the new step's heading has focus.
    page.get_by_role("button", name=re.compile("Selection")).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#step-heading")).to_have_text("AI Factory selection")
    expect(page.locator("#step-heading")).to_be_focused()
    assert active(page) == {"tag": "H2", "id": "step-heading", "form": True}
    # One Tab from there reaches the step's first field, not the page's header.
    page.keyboard.press("Tab")
    first = active(page)
    assert first["form"] and first["tag"] in ("INPUT", "SELECT", "TEXTAREA"), first
    # Previous, then a step tab: the same.
    page.get_by_role("button", name=re.compile("Organisation")).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#step-heading")).to_have_text("Organisation and eligibility")
    expect(page.locator("#step-heading")).to_be_focused()
    nav = page.get_by_role("navigation", name="Wizard steps")
    nav.get_by_role("link", name=re.compile("Code details")).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#step-heading")).to_have_text("Code details")
    expect(page.locator("#step-heading")).to_be_focused()
    # Opening a step's address directly leaves focus where the browser puts it.
    page.goto(step(base, proposal, "codes"))
    assert active(page)["tag"] == "BODY"


def test_progress_follows_the_applicant(playground):  # noqa: F811
    page, proposal, base = playground
    page.goto(step(base, proposal, "optimisation"))
    progress = page.get_by_test_id("progress-text")
    expect(progress).to_have_text(
        re.compile(r"^0 of 5 steps complete, \d+ items? to do$")
    )
    badges = page.locator("#badges-optimisation")
    # Untouched: said in words, never shown as complete.
    expect(badges.get_by_test_id("step-not-started")).to_have_text("not started")
    expect(badges.get_by_test_id("step-complete")).to_have_count(0)
    page.fill(
        "#id_optimisation_narrative",
        "We will learn multi-GPU training with PyTorch DDP and try batch sizes.",
    )
    settled(page)
    # The autosave answer updated the tab and the summary line (out of band).
    expect(badges.get_by_test_id("step-complete")).to_be_visible()
    expect(badges).to_contain_text("complete")
    expect(progress).to_have_text(re.compile(r"^1 of 5 steps complete"))
    expect(page.locator("#wizard-progress progress")).to_have_attribute("value", "1")
    # Emptied again: an item to do (advice only in Playground, so still complete).
    page.fill("#id_optimisation_narrative", "")
    settled(page)
    expect(progress).to_have_text(re.compile(r"^1 of 5 steps complete"))


def label_box(page: Page, field_id: str) -> dict:
    return page.evaluate(
        """id => {
          const r = document.querySelector(`label[for="${id}"]`).getBoundingClientRect();
          return {top: r.top, bottom: r.bottom, height: innerHeight};
        }""",
        field_id,
    )


def test_a_finding_link_keeps_the_label_in_view(playground):  # noqa: F811
    page, proposal, base = playground
    proposal.storage_tb = None
    proposal.save()
    page.goto(step(base, proposal, "selection"))
    link = page.locator("aside a[href$='#id_storage_tb']").first
    expect(link).to_be_visible()
    # Start from the bottom of the page, so that reaching the field means scrolling.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    link.click()
    expect(page.locator("#id_storage_tb")).to_be_focused()
    box = label_box(page, "id_storage_tb")
    assert box["top"] >= 0 and box["bottom"] <= box["height"], box
    # From another step: the page opens at the field with its label in view.
    page.goto(step(base, proposal, "organisation"))
    page.locator("aside a[href$='#id_storage_tb']").first.click()
    expect(page.locator("#id_storage_tb")).to_be_focused()
    page.wait_for_load_state("load")
    box = label_box(page, "id_storage_tb")
    assert box["top"] >= 0 and box["bottom"] <= box["height"], box
