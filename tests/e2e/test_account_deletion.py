"""An applicant takes their data and deletes their account from Settings; the staff
keep what was sent for review, without the applicant's name."""

import io
import json
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import Page, expect

from proposals.models import Proposal


def log_in(page: Page, base: str, username: str, password: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return User.objects.get(username="demo")


def test_download_data_then_delete_the_account(
    page: Page, live_server, demo, artifacts
):
    base = live_server.url
    sent = set(
        Proposal.objects.filter(owner=demo, review_state__isnull=False).values_list(
            "pk", flat=True
        )
    )
    assert len(sent) == 3 and demo.proposals.count() == 5
    log_in(page, base, "demo", "aifactory-demo")
    page.get_by_role("link", name="Settings").click()

    # The data, in one download.
    with page.expect_download() as download:
        page.get_by_role("link", name="Download all my data").click()
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    summary = json.loads(archive.read("account.json"))
    assert summary["account"]["username"] == "demo"
    assert len(summary["proposals"]) == 5

    # Deleting asks for the password and says what goes and what stays.
    page.get_by_role("link", name="Delete my account…").click()
    consequences = page.get_by_test_id("delete-consequences")
    # The first demo proposal has a team (the demo colleague, an editor): it is
    # handed over, not deleted.
    expect(consequences).to_contain_text(
        "Your 1 draft never sent for review is deleted"
    )
    expect(page.get_by_test_id("delete-team")).to_contain_text(
        "colleague, its longest-standing editor, becomes its owner"
    )
    expect(consequences).to_contain_text(
        "The 3 proposals you sent for review stay with the help desk"
    )
    page.get_by_label("Your password").fill("not my password")
    page.get_by_role("button", name="Delete my account").click()
    expect(page.locator(".invalid-feedback, .text-danger").first).to_contain_text(
        "That is not your password: nothing was deleted."
    )
    assert User.objects.filter(username="demo").exists()
    page.screenshot(path=artifacts / "account-delete.png", full_page=True)

    page.get_by_label("Your password").fill("aifactory-demo")
    page.get_by_role("button", name="Delete my account").click()
    expect(page.get_by_role("status").first).to_contain_text(
        "Your account and your drafts were deleted. 1 proposal with a team now "
        "belongs to its longest-standing editor. The 3 proposals you sent for "
        "review stay with the help desk"
    )
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Log in")).to_be_visible()
    assert not User.objects.filter(username="demo").exists()
    handed = Proposal.objects.get(owner__username="colleague")
    assert set(Proposal.objects.values_list("pk", flat=True)) == sent | {handed.pk}
    assert not Proposal.objects.exclude(pk=handed.pk).filter(owner__isnull=False)

    # The login is gone too.
    log_in(page, base, "demo", "aifactory-demo")
    expect(page).to_have_url(f"{base}/accounts/login/")

    # The staff still review what was sent, without the applicant's name.
    log_in(page, base, "staff", "aifactory-staff")
    # Withdrawn by the deletion: out of the default view, under "Ended".
    expect(page.get_by_test_id("queue-row")).to_have_count(0)
    page.goto(f"{base}/staff/review/?show=ended")
    expect(page.get_by_test_id("queue-row")).to_have_count(3)
    expect(page.locator("main")).to_contain_text("Withdrawn")
    page.goto(f"{base}/staff/review/{min(sent)}/")
    expect(page.locator("main")).to_contain_text("applicant (account deleted)")
    expect(page.locator("main")).not_to_contain_text("demo@example.org")
