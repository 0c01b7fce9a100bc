"""A team of three in Chromium (issue 31): the owner invites two colleagues from
the Team page, each follows the link from the mail and accepts, then the three
type into one proposal at once: different fields all save, the same field tells
the later one, and a row removed by one while another edits it is offered back."""

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from proposals.models import JobType, Membership, OutgoingMail, Proposal
from tests.e2e.test_input_trust import log_in, retype, settled
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory


def _invitation_path(address: str) -> str:
    body = OutgoingMail.objects.filter(to=address).latest("id").body
    return re.search(r"(/invitations/[^/\s]+/)", body).group(1)


@pytest.fixture
def team_of_three(browser, live_server, e2e_catalogue):
    owner = UserFactory(username="olga", first_name="Olga", last_name="Owner")
    anna = UserFactory(username="anna", first_name="Anna", last_name="Editor")
    ben = UserFactory(username="ben", first_name="Ben", last_name="Editor")
    proposal = ProposalFactory(
        owner=owner, title="Team proposal", total_gpu_hours=28000, max_gpus_per_job=8
    )
    pages = {}
    contexts = []
    for user in (owner, anna, ben):
        context = browser.new_context(locale="en-GB")
        contexts.append(context)
        page = context.new_page()
        log_in(page, live_server.url, user.username)
        pages[user.username] = page
    yield pages, proposal, live_server.url
    for context in contexts:
        context.close()


def _invite(page: Page, base: str, proposal, email: str, role: str):
    page.goto(f"{base}/proposals/{proposal.pk}/team/")
    page.fill("#id_email", email)
    page.select_option("#id_role", role)
    page.get_by_role("button", name="Send the invitation").click()
    expect(page.locator(".alert-success")).to_contain_text(email)


def _accept(page: Page, base: str, address: str):
    page.goto(base + _invitation_path(address))
    page.get_by_test_id("accept").click()
    expect(page.locator(".alert-success")).to_contain_text("You joined the team")


def _open(page: Page, base: str, proposal, step: str):
    page.goto(f"{base}/proposals/{proposal.pk}/{step}/")
    page.wait_for_load_state("load")


def test_three_people_write_one_proposal(team_of_three, artifacts):
    pages, proposal, base = team_of_three
    olga, anna, ben = pages["olga"], pages["anna"], pages["ben"]
    _invite(olga, base, proposal, "anna@example.eu", "editor")
    _invite(olga, base, proposal, "ben@example.eu", "editor")
    _accept(anna, base, "anna@example.eu")
    _accept(ben, base, "ben@example.eu")
    assert set(
        Membership.objects.filter(proposal=proposal).values_list(
            "user__username", "role"
        )
    ) == {("anna", "editor"), ("ben", "editor")}
    olga.goto(f"{base}/proposals/{proposal.pk}/team/")
    expect(olga.get_by_test_id("member")).to_have_count(3)
    olga.screenshot(path=artifacts / "team-page.png", full_page=True)

    # Same step, three different fields: all three saved.
    for page in (olga, anna, ben):
        _open(page, base, proposal, "organisation")
    retype(olga, "#id_title", "Team proposal, by Olga")
    retype(anna, "#id_organisation_name", "Anna's Lab Oy")
    retype(ben, "#id_vat_number", "FI20774740")
    for page in (olga, anna, ben):
        settled(page)
    stored = Proposal.objects.get(pk=proposal.pk)
    assert stored.title == "Team proposal, by Olga"
    assert stored.organisation_name == "Anna's Lab Oy"
    assert stored.vat_number == "FI20774740"

    # The same field: the later one is told, and nothing of theirs is stored.
    _open(anna, base, proposal, "organisation")
    _open(ben, base, proposal, "organisation")
    retype(anna, "#id_organisation_name", "Anna's Lab")
    settled(anna)
    retype(ben, "#id_organisation_name", "Ben's Lab")
    settled(ben, "conflict")
    expect(ben.locator("#save-status")).not_to_contain_text("Saved")
    assert Proposal.objects.get(pk=proposal.pk).organisation_name == "Anna's Lab"
    ben.screenshot(path=artifacts / "team-same-field.png", full_page=True)


def test_a_row_removed_by_one_while_another_edits_it(team_of_three):
    pages, proposal, base = team_of_three
    # (Not the factory again: it would set the password anew and end the sessions.)
    for user in User.objects.filter(username__in=["anna", "ben"]):
        Membership.objects.create(
            proposal=proposal, user=user, role="editor", since=proposal.created_at
        )
    job = JobTypeFactory(proposal=proposal, title="Ablations", gpus=8, count=10)
    prefix = f"jobs-{job.pk}"
    anna, ben = pages["anna"], pages["ben"]
    _open(anna, base, proposal, "scalability")
    _open(ben, base, proposal, "scalability")
    anna.once("dialog", lambda dialog: dialog.accept())
    anna.locator(f"#{prefix} button[title=Remove]").click()
    expect(anna.locator(f"#{prefix}")).to_have_count(0)
    assert not JobType.objects.filter(pk=job.pk).exists()
    retype(ben, f"#id_{prefix}-count", "12")
    gone = ben.get_by_test_id("row-gone")
    expect(gone).to_be_visible()
    expect(ben.locator("#save-status")).not_to_contain_text("Saved")
    gone.get_by_role("button", name=re.compile("Add it back")).click()
    expect(ben.get_by_test_id("row-gone")).to_have_count(0)
    restored = JobType.objects.get(proposal=proposal, title="Ablations")
    assert restored.count == 12
