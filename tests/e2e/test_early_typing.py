"""Text typed while the step page is still arriving (its scripts not yet run) is
autosaved once the page is ready, like any keystroke; nothing shows "saved" before."""

import pytest
from playwright.sync_api import expect

from proposals.models import JobType, Proposal
from tests.e2e.test_input_trust import log_in
from tests.e2e.test_wizard_journey import wait_saved
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory


@pytest.fixture
def typist(browser, live_server, e2e_catalogue):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=16128, max_gpus_per_job=32)
    JobTypeFactory(proposal=proposal, position=0, title="Pre-training")
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    yield page, proposal, live_server.url
    context.close()


def test_typing_before_the_scripts_run_is_saved(typist):
    page, proposal, base = typist
    held = []
    # The page's scripts (htmx first; the others are deferred behind it) wait until
    # the keystrokes are in.
    page.route("**/htmx*.js", lambda route: held.append(route))
    page.goto(f"{base}/proposals/{proposal.pk}/scalability/", wait_until="commit")
    job = proposal.jobs.get()
    page.locator("#id_scalability_narrative").fill("Typed while the page arrived.")
    page.locator(f"#id_jobs-{job.pk}-title").fill("Fine-tuning")
    assert not page.evaluate("typeof window.htmx !== 'undefined'")
    while not held:
        page.wait_for_timeout(20)
    for route in held:
        route.continue_()
    wait_saved(page)
    proposal = Proposal.objects.get(pk=proposal.pk)
    assert proposal.scalability_narrative == "Typed while the page arrived."
    assert JobType.objects.get(pk=job.pk).title == "Fine-tuning"
    expect(page.locator("#id_scalability_narrative")).to_have_value(
        "Typed while the page arrived."
    )


@pytest.mark.parametrize("step", ["organisation", "selection", "codes", "scalability"])
def test_a_page_left_alone_sends_nothing(typist, step):
    """Selects without a chosen option, radios, text areas: a page that was only
    opened (or reloaded) sends no autosave."""
    page, proposal, base = typist
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(f"{base}/proposals/{proposal.pk}/{step}/")
    page.wait_for_load_state("load")
    page.wait_for_timeout(400)
    page.reload()
    page.wait_for_load_state("load")
    page.wait_for_timeout(400)
    assert posts == []
    expect(page.locator("#save-status")).to_have_attribute("data-state", "idle")
