"""A Playground applicant's path (issue 15): the wizard asks for what the tier needs,
a description of tests done or planned, and folds the job plan and the scaling
measurements away until the applicant asks for them."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from proposals.models import Proposal
from tests.e2e.test_input_trust import log_in, settled
from tests.factories import CodeEntryFactory, ProposalFactory, UserFactory, cluster

# The guides' Playground examples, in our words (proposals/domain/field_examples.py).
NARRATIVE = (
    "So far we have run only on a workstation with one RTX 4080. This allocation "
    "lets us port the code to the MI250X and measure throughput on 1 to 4 nodes."
)


@pytest.fixture
def playground(browser, live_server, e2e_catalogue):
    """A logged-in applicant and their 4,000 GPU-hour (Playground) LUMI-G proposal."""
    user = UserFactory()
    proposal = ProposalFactory(owner=user, title="Port to LUMI")
    CodeEntryFactory(proposal=proposal)
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    yield page, proposal, live_server.url
    context.close()


def step(base: str, proposal, slug: str) -> str:
    return f"{base}{reverse('proposals:step', args=[proposal.pk, slug])}"


def test_playground_never_sees_a_job_plan_unless_asked(playground, artifacts):
    page, proposal, base = playground
    page.goto(step(base, proposal, "scalability"))
    expect(page.get_by_test_id("tier-path")).to_contain_text("Playground")
    # The help and its examples are the Playground ones, in LUMI's words.
    help_text = page.locator("#fb-id_scalability_narrative .form-text")
    expect(help_text).to_contain_text("No scaling data needed")
    examples = help_text.get_by_test_id("help-example")
    expect(examples).to_have_count(2)
    expect(examples.first).to_contain_text("MI250X")
    expect(help_text).not_to_contain_text("FSDP")  # the Fast Lane example
    # No job plan, no measurement table, no workload shape, no GCD toggle.
    for hidden in (
        page.get_by_test_id("jobs-table"),
        page.get_by_test_id("measurements-table"),
        page.locator("input[name='workload']").first,
        page.locator("#gpu-unit-gcds"),
        page.get_by_test_id("add-jobs"),
    ):
        expect(hidden).to_be_hidden()
    page.screenshot(path=artifacts / "playground-scalability-folded.png")

    page.fill("#id_scalability_narrative", NARRATIVE)
    settled(page)
    # Moving on and back: still folded, nothing was asked for.
    page.get_by_role("button", name="Optimisation").click()
    expect(page.locator("#step-heading")).to_have_text(
        "Optimisation of the work proposed"
    )
    expect(page.get_by_test_id("tier-path")).to_contain_text("if any")
    # OPT-1 is advice here, not an error: the guides ask for planned tests "if any".
    nav = page.get_by_role("navigation", name="Wizard steps")
    expect(nav.locator("#badges-optimisation .text-bg-danger")).to_have_count(0)
    expect(
        page.locator(".field-findings[data-anchor='id_optimisation_narrative']")
    ).to_contain_text("Optional in Playground")
    page.get_by_role("button", name="Scalability").click()
    expect(page.get_by_test_id("jobs-table")).to_be_hidden()

    # Asked for: the job plan and the measurements are there.
    page.get_by_test_id("add-plan").click()
    expect(page.get_by_test_id("jobs-table")).to_be_visible()
    expect(page.get_by_test_id("measurements-table")).to_be_visible()
    page.get_by_test_id("add-jobs").click()
    row = page.locator("tr[id^='jobs-']").first
    expect(row).to_be_visible()
    row.locator("input[name$='-title']").fill("Porting tests")
    settled(page)
    assert Proposal.objects.get(pk=proposal.pk).jobs.count() == 1
    # What exists is always shown, without asking again.
    page.reload()
    expect(page.get_by_test_id("plan-fold")).to_have_count(0)
    expect(page.get_by_test_id("jobs-table")).to_be_visible()
    expect(page.locator("tr[id^='jobs-'] input[name$='-title']")).to_have_value(
        "Porting tests"
    )


def test_fast_lane_sees_the_job_plan_at_once(playground):
    page, proposal, base = playground
    Proposal.objects.filter(pk=proposal.pk).update(total_gpu_hours=18176)
    page.goto(step(base, proposal, "scalability"))
    expect(page.get_by_test_id("plan-fold")).to_have_count(0)
    expect(page.get_by_test_id("jobs-table")).to_be_visible()
    expect(page.locator("input[name='workload']").first).to_be_visible()


def test_examples_speak_the_system_s_words(playground):
    page, proposal, base = playground
    Proposal.objects.filter(pk=proposal.pk).update(system=cluster("marenostrum5-acc"))
    page.goto(step(base, proposal, "scalability"))
    examples = page.locator("#fb-id_scalability_narrative [data-testid=help-example]")
    expect(examples).to_have_count(2)
    expect(examples.last).to_contain_text("H100")
    for text in examples.all_inner_texts():
        assert "MI250X" not in text and "LUMI" not in text
