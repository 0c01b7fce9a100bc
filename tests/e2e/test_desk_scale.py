"""The help desk at scale (issue 34), in Chromium: the diff compares table rows by
identity (a moved row is one move), and the queue search finds people."""

import re

from playwright.sync_api import Page, expect

from proposals import services
from proposals.models import JobType, Proposal
from tests.e2e.page_checks import serious_violations
from tests.factories import (
    PASSWORD,
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    StaffUserFactory,
    UserFactory,
)


def log_in(page: Page, base: str, username: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{base}/staff/review/")


def test_a_moved_job_row_reads_as_one_move(
    page: Page, live_server, e2e_catalogue, artifacts
):
    applicant = UserFactory(username="olga", first_name="Olga")
    staff = StaffUserFactory(username="desk")
    proposal = ProposalFactory(owner=applicant, title="Protein folding at scale")
    CodeEntryFactory(proposal=proposal, position=0)
    jobs = [
        JobTypeFactory(proposal=proposal, title=title, position=i, gpus=8 * (i + 1))
        for i, title in enumerate(["pretrain", "fine-tune", "eval", "ablation"])
    ]
    services.review_submit(proposal=proposal, user=applicant)
    services.review_set_status(
        proposal=proposal,
        user=staff,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="Put the ablation first.",
    )
    # The applicant moves the last job row to the top, one step at a time.
    for _step in range(3):
        services.proposal_move_row(
            proposal=Proposal.objects.get(pk=proposal.pk),
            row=JobType.objects.get(pk=jobs[3].pk),
            direction=-1,
        )
    JobType.objects.filter(pk=jobs[0].pk).update(hours=12)
    services.review_submit(
        proposal=Proposal.objects.get(pk=proposal.pk), user=applicant
    )

    base = live_server.url
    log_in(page, base, "desk")
    page.goto(f"{base}/staff/review/{proposal.pk}/diff/")
    page.select_option("#diff-a", "1")
    page.select_option("#diff-b", "2")
    page.get_by_role("button", name="Compare").click()
    jobs_section = page.get_by_test_id("diff-scalability")
    expect(jobs_section.get_by_test_id("change-row-moved")).to_have_count(1)
    expect(jobs_section.get_by_test_id("moved-places")).to_have_text(
        "moved from place 4 to place 1"
    )
    expect(jobs_section).to_contain_text("Job type 1 (ablation)")
    # The one value that did change, named by its row's place now.
    changed = jobs_section.get_by_test_id("change-changed")
    expect(changed).to_have_count(1)
    expect(jobs_section).to_contain_text("Job type 2 (pretrain) › ")
    assert serious_violations(page) == []
    page.screenshot(path=artifacts / "staff-diff-moved-row.png", full_page=True)


def test_the_queue_search_finds_people(
    page: Page, live_server, e2e_catalogue, artifacts
):
    from django.utils import timezone

    from proposals.models import Membership

    StaffUserFactory(username="desk")
    olga = UserFactory(
        username="olga",
        first_name="Olga",
        last_name="Virtanen",
        email="olga@uni.example",
    )
    ada = UserFactory(username="ada", first_name="Ada", last_name="Lovelace")
    ben = UserFactory(username="ben", first_name="Ben", last_name="Okafor")
    for owner, title in ((olga, "Protein folding"), (ada, "Difference engine")):
        proposal = ProposalFactory(owner=owner, title=title)
        CodeEntryFactory(proposal=proposal, position=0)
        services.review_submit(proposal=proposal, user=owner)
    Membership.objects.create(
        proposal=Proposal.objects.get(title="Protein folding"),
        user=ben,
        role="editor",
        since=timezone.now(),
    )

    base = live_server.url
    log_in(page, base, "desk")
    expect(page.get_by_test_id("queue-row")).to_have_count(2)
    search = page.get_by_label("Title, organisation or person")
    search.fill("Okafor")  # a team member: the queue answers as one types
    expect(page.get_by_test_id("queue-row")).to_have_count(1)
    expect(page.get_by_test_id("queue-row")).to_contain_text("Protein folding")
    expect(page.get_by_test_id("queue-applicant")).to_contain_text(
        "Olga Virtanen (olga)"
    )
    expect(page.get_by_test_id("queue-applicant")).to_contain_text("olga@uni.example")
    search.fill("lovelace")
    expect(page.get_by_test_id("queue-row")).to_have_count(1)
    expect(page.get_by_test_id("queue-row")).to_contain_text("Difference engine")
    expect(page).to_have_url(re.compile(r"/staff/review/\?q=lovelace&"))  # shareable
    assert serious_violations(page) == []
    page.screenshot(path=artifacts / "staff-queue-people-search.png", full_page=True)
