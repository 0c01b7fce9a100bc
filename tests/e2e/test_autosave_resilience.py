"""Autosave never loses work: failed saves are retried, leaving with unsaved changes
asks first."""

import datetime
import time

from playwright.sync_api import Page, expect

from tests.factories import PASSWORD, ProposalFactory, UserFactory


def log_in(page: Page, base: str, username: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    # The list's heading, whatever language the browser asks for.
    expect(page.get_by_test_id("proposal-list-heading")).to_be_visible()


def test_failed_save_is_retried_until_it_lands(page: Page, live_server, e2e_catalogue):
    user = UserFactory()
    proposal = ProposalFactory(owner=user)
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")

    failing = {"count": 0}

    def fail_autosave(route):
        if route.request.method == "POST" and failing["count"] < 2:
            failing["count"] += 1
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/selection/", fail_autosave)
    page.fill("#id_libraries", "PyTorch 2.5 and DeepSpeed 0.15")
    expect(page.locator("#save-status")).to_contain_text("Not saved, retrying")
    expect(page.locator("#save-status")).to_have_attribute(
        "data-state", "saved", timeout=15_000
    )
    assert failing["count"] == 2
    proposal.refresh_from_db()
    assert proposal.libraries == "PyTorch 2.5 and DeepSpeed 0.15"


def test_leaving_with_unsaved_changes_asks_first(
    page: Page, live_server, e2e_catalogue
):
    user = UserFactory()
    proposal = ProposalFactory(owner=user)
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    # Hold every save so the change stays unsaved.
    page.route("**/selection/", lambda route: None)
    page.click("#id_libraries")
    page.keyboard.type("JAX 0.4")
    dialogs = []

    def on_dialog(dialog):
        dialogs.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.close(run_before_unload=True)
    page.wait_for_timeout(500)
    assert dialogs == ["beforeunload"]


def test_without_javascript_steps_save_validate_and_navigate(
    browser, live_server, e2e_catalogue
):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=None)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    page.fill("#id_total_gpu_hours", "18176")
    page.fill("#id_duration_months", "99")
    page.get_by_role("button", name="Code details").click()
    # The invalid field is explained next to it; the valid one was saved.
    expect(page.locator("#fb-id_duration_months")).to_contain_text("Enter at most 60")
    expect(page.get_by_test_id("tier")).to_have_text("Fast Lane")
    page.fill("#id_duration_months", "3")
    page.get_by_role("button", name="Code details").click()
    expect(page.get_by_role("heading", name="Code details", exact=True)).to_be_visible()
    expect(page.locator("section.code-entry")).to_have_count(0)
    page.get_by_test_id("add-codes").click()
    expect(page.locator("section.code-entry")).to_have_count(1)
    proposal.refresh_from_db()
    assert (proposal.total_gpu_hours, proposal.duration_months) == (18176, 3)
    assert list(proposal.codes.values_list("role", flat=True)) == ["main"]
    context.close()


def test_leaving_within_the_typing_delay_keeps_what_was_typed(
    browser, live_server, e2e_catalogue
):
    """Issue 36: the last words typed just before leaving (within the 200 ms before
    the autosave) were lost once the person confirmed the "leave site?" dialog."""
    user = UserFactory()
    proposal = ProposalFactory(owner=user, libraries="PyTorch")
    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.clock.install()
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    # The page's clock stops: the 200 ms typing delay never ends by itself.
    page.clock.pause_at(datetime.datetime.now() + datetime.timedelta(minutes=1))
    dialogs = []

    def leave(dialog):
        dialogs.append(dialog.type)
        dialog.accept()

    page.on("dialog", leave)
    page.click("#id_libraries")
    page.keyboard.press("End")
    page.keyboard.type(" 2.5 and JAX", delay=5)
    again = context.new_page()
    page.close(run_before_unload=True)  # at once: no autosave has been sent yet
    again.wait_for_timeout(500)  # Playwright answers the dialog while it waits
    assert dialogs == ["beforeunload"]  # the browser still asked first
    assert _stored(proposal, "PyTorch 2.5 and JAX")
    again.goto(f"{live_server.url}/proposals/{proposal.pk}/selection/")
    expect(again.locator("#id_libraries")).to_have_value("PyTorch 2.5 and JAX")
    context.close()


def _stored(proposal, value: str, timeout: float = 10.0) -> bool:
    """Wait until the server has stored ``value`` (it arrives as the page goes, or
    just after)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        proposal.refresh_from_db()
        if proposal.libraries == value:
            return True
        time.sleep(0.1)
    return False
