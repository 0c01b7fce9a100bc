"""Two tabs on one proposal in Chromium (issue 20): a stale tab's delete of a row
changed in the other asks first; an edit of a row the other tab removed is kept and
added back in one click; a value saved in one tab reaches the other's input (or,
where the person is typing, the conflict)."""

import pytest
from playwright.sync_api import Page, expect

from proposals.models import JobType, Proposal
from tests.e2e.test_input_trust import log_in, retype
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory


@pytest.fixture
def two_tabs(browser, live_server, e2e_catalogue):
    """A logged-in browser with two tabs (one session), and the proposal."""
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=28000, max_gpus_per_job=8)
    context = browser.new_context(locale="en-US")
    tab_a = context.new_page()
    log_in(tab_a, live_server.url, user.username)
    tab_b = context.new_page()
    yield tab_a, tab_b, proposal, live_server.url
    context.close()


def open_step(tab: Page, base: str, proposal, step: str):
    tab.goto(f"{base}/proposals/{proposal.pk}/{step}/")
    tab.wait_for_load_state("load")


def saved(tab: Page):
    expect(tab.locator("#save-status")).to_have_attribute("data-state", "saved")


def remove_row(tab: Page, prefix: str):
    """Press the row's delete button and confirm ("Remove this job type?")."""
    tab.once("dialog", lambda dialog: dialog.accept())
    tab.locator(f"#{prefix} button[title=Remove]").click()


def test_stale_delete_of_a_row_renamed_in_the_other_tab_asks_first(two_tabs, artifacts):
    tab_a, tab_b, proposal, base = two_tabs
    job = JobTypeFactory(proposal=proposal, title="Pretraining", gpus=8, count=2)
    prefix = f"jobs-{job.pk}"
    open_step(tab_a, base, proposal, "scalability")
    open_step(tab_b, base, proposal, "scalability")

    retype(tab_a, f"#id_{prefix}-title", "Pretraining, renamed in tab A")
    saved(tab_a)
    assert JobType.objects.get(pk=job.pk).title == "Pretraining, renamed in tab A"

    remove_row(tab_b, prefix)
    question = tab_b.get_by_test_id("row-changed")
    expect(question).to_contain_text("This job type was changed in another tab")
    expect(question).to_contain_text("Pretraining, renamed in tab A")
    expect(tab_b.locator("#save-status")).not_to_contain_text("Saved")
    # The row is still there, showing tab A's title.
    expect(tab_b.locator(f"#id_{prefix}-title")).to_have_value(
        "Pretraining, renamed in tab A"
    )
    assert JobType.objects.get(pk=job.pk).title == "Pretraining, renamed in tab A"
    tab_b.screenshot(path=artifacts / "two-tabs-stale-delete.png", full_page=True)

    question.get_by_role("button", name="Delete anyway").click()
    expect(tab_b.locator(f"#{prefix}")).to_have_count(0)
    expect(tab_b.get_by_test_id("row-changed")).to_have_count(0)
    assert not JobType.objects.filter(pk=job.pk).exists()


def test_keep_it_closes_the_question_and_keeps_the_row(two_tabs):
    tab_a, tab_b, proposal, base = two_tabs
    job = JobTypeFactory(proposal=proposal, title="Pretraining", gpus=8, count=2)
    prefix = f"jobs-{job.pk}"
    open_step(tab_a, base, proposal, "scalability")
    open_step(tab_b, base, proposal, "scalability")
    retype(tab_a, f"#id_{prefix}-count", "3")
    saved(tab_a)
    remove_row(tab_b, prefix)
    question = tab_b.get_by_test_id("row-changed")
    expect(question).to_contain_text("Number of jobs")
    question.get_by_role("button", name="Keep it").click()
    expect(tab_b.get_by_test_id("row-changed")).to_have_count(0)
    expect(tab_b.locator(f"#id_{prefix}-count")).to_have_value("3")
    assert JobType.objects.get(pk=job.pk).count == 3


def test_stale_delete_without_javascript_asks_with_a_real_form(
    browser, live_server, e2e_catalogue
):
    user = UserFactory()
    proposal = ProposalFactory(owner=user)
    job = JobTypeFactory(proposal=proposal, title="Pretraining")
    prefix = f"jobs-{job.pk}"
    context = browser.new_context(java_script_enabled=False)
    tab_a, tab_b = context.new_page(), None
    log_in(tab_a, live_server.url, user.username)
    tab_b = context.new_page()
    url = f"{live_server.url}/proposals/{proposal.pk}/scalability/"
    tab_a.goto(url)
    tab_b.goto(url)
    tab_a.fill(f"#id_{prefix}-title", "Renamed in tab A")
    tab_a.get_by_role("button", name="Save", exact=True).click()
    assert JobType.objects.get(pk=job.pk).title == "Renamed in tab A"
    tab_b.locator(f"#{prefix} button[title=Remove]").click()
    question = tab_b.get_by_test_id("row-changed")
    expect(question).to_contain_text("This job type was changed in another tab")
    assert JobType.objects.filter(pk=job.pk).exists()
    question.get_by_role("button", name="Delete anyway").click()
    expect(tab_b.locator(f"#{prefix}")).to_have_count(0)
    assert not JobType.objects.filter(pk=job.pk).exists()
    context.close()


def test_edit_of_a_row_removed_in_the_other_tab_is_offered_back(two_tabs, artifacts):
    tab_a, tab_b, proposal, base = two_tabs
    job = JobTypeFactory(proposal=proposal, title="Ablations", gpus=8, count=10)
    prefix = f"jobs-{job.pk}"
    open_step(tab_a, base, proposal, "scalability")
    open_step(tab_b, base, proposal, "scalability")

    remove_row(tab_a, prefix)
    expect(tab_a.locator(f"#{prefix}")).to_have_count(0)
    assert not JobType.objects.filter(pk=job.pk).exists()

    # Tab B's next autosave (another field) marks the row as removed elsewhere.
    retype(tab_b, "#id_scalability_narrative", "Ablations first, then training.")
    saved(tab_b)
    expect(tab_b.locator(f"#{prefix}")).to_have_attribute("data-removed", "1")

    retype(tab_b, f"#id_{prefix}-title", "Ablations, longer")
    status = tab_b.locator("#save-status")
    expect(status).to_have_attribute("data-state", "refused")
    expect(status).to_contain_text("removed in another tab")
    expect(status).not_to_contain_text("Saved")
    gone = tab_b.get_by_test_id("row-gone")
    expect(gone).to_contain_text("This job type was removed in another tab")
    expect(gone).to_contain_text("Ablations, longer")
    # What was typed stays in the input.
    expect(tab_b.locator(f"#id_{prefix}-title")).to_have_value("Ablations, longer")
    tab_b.screenshot(path=artifacts / "two-tabs-removed-row.png", full_page=True)

    gone.get_by_role("button", name="Add it back").click()
    expect(tab_b.get_by_test_id("row-gone")).to_have_count(0)
    restored = JobType.objects.get(proposal=proposal)
    assert (restored.title, restored.gpus, restored.count) == (
        "Ablations, longer",
        8,
        10,
    )
    expect(tab_b.locator(f"#id_jobs-{restored.pk}-title")).to_have_value(
        "Ablations, longer"
    )
    saved(tab_b)


def test_a_value_saved_in_one_tab_reaches_the_other(two_tabs):
    tab_a, tab_b, proposal, base = two_tabs
    open_step(tab_a, base, proposal, "selection")
    open_step(tab_b, base, proposal, "selection")
    expect(tab_a.locator("#id_total_gpu_hours")).to_have_value("28000")

    retype(tab_b, "#id_total_gpu_hours", "27000")
    saved(tab_b)
    assert Proposal.objects.get(pk=proposal.pk).total_gpu_hours == 27000

    # Tab A's next autosave (another field) brings tab B's value into the input.
    retype(tab_a, "#id_libraries", "PyTorch 2.5")
    saved(tab_a)
    expect(tab_a.locator("#id_total_gpu_hours")).to_have_value("27000")
    expect(tab_a.get_by_test_id("conflict")).to_have_count(0)
    expect(tab_a.get_by_test_id("refreshed-note")).to_contain_text(
        "1 value saved in another tab shown"
    )
    # ...and its base: tab A's later edit of the total is no conflict.
    retype(tab_a, "#id_total_gpu_hours", "26000")
    saved(tab_a)
    assert Proposal.objects.get(pk=proposal.pk).total_gpu_hours == 26000


def test_an_input_being_typed_in_keeps_its_text_and_shows_the_conflict(two_tabs):
    tab_a, tab_b, proposal, base = two_tabs
    open_step(tab_a, base, proposal, "selection")
    open_step(tab_b, base, proposal, "selection")
    retype(tab_b, "#id_total_gpu_hours", "27000")
    saved(tab_b)

    # Tab A's autosave of another field is held on the way; meanwhile the person
    # types into the total (not saved yet when the answer arrives).
    held = []
    tab_a.route(
        "**/selection/",
        lambda route: (
            held.append(route)
            if route.request.method == "POST" and not held
            else route.continue_()
        ),
    )
    retype(tab_a, "#id_libraries", "PyTorch 2.5")
    tab_a.wait_for_timeout(600)
    assert held, "the autosave was not sent"
    retype(tab_a, "#id_total_gpu_hours", "29000")
    held[0].continue_()
    conflict = tab_a.get_by_test_id("conflict")
    expect(conflict).to_be_visible()
    # Both values in the person's number format (en-US here), and who saved the
    # other one: the same person, in another tab.
    expect(conflict).to_contain_text("you saved 27,000 in another tab")
    expect(conflict).to_contain_text("here you typed 29,000")
    expect(tab_a.locator("#id_total_gpu_hours")).to_have_value("29000")
    assert Proposal.objects.get(pk=proposal.pk).total_gpu_hours == 27000


def test_a_choice_saved_in_one_tab_reaches_the_other(two_tabs):
    """Radio buttons and selects take another tab's choice too."""
    tab_a, tab_b, proposal, base = two_tabs
    open_step(tab_a, base, proposal, "organisation")
    open_step(tab_b, base, proposal, "organisation")
    tab_b.locator("input[name=hpc_experience][value=proven]").check()
    tab_b.select_option("#id_organisation_country", "DE")
    saved(tab_b)
    stored = Proposal.objects.get(pk=proposal.pk)
    assert (stored.hpc_experience, stored.organisation_country) == ("proven", "DE")

    retype(tab_a, "#id_organisation_name", "Example AI GmbH")
    saved(tab_a)
    expect(tab_a.locator("input[name=hpc_experience][value=proven]")).to_be_checked()
    expect(tab_a.locator("#id_organisation_country")).to_have_value("DE")


def test_a_row_changed_in_one_tab_reaches_the_other_findings_too(two_tabs):
    """Issue 35: the page posts one list of region keys, its rows' values among
    them. Tab A renames a job and brings its GPUs within the maximum; tab B's next
    autosave (another field) shows both in the row's inputs, and the finding
    under the GPUs that went away is emptied by the row's findings region."""
    tab_a, tab_b, proposal, base = two_tabs
    job = JobTypeFactory(proposal=proposal, title="Pretraining", gpus=16, count=2)
    prefix = f"jobs-{job.pk}"
    open_step(tab_a, base, proposal, "scalability")
    open_step(tab_b, base, proposal, "scalability")
    findings = tab_b.locator(f"#ff-id_{prefix}-gpus")
    expect(findings).to_contain_text("SCAL-4")  # 16 GPUs, above the maximum of 8
    expect(tab_b.locator("input[name=row_keys]")).to_have_count(0)

    retype(tab_a, f"#id_{prefix}-title", "Pretraining, renamed in tab A")
    retype(tab_a, f"#id_{prefix}-gpus", "8")
    saved(tab_a)
    assert JobType.objects.get(pk=job.pk).gpus == 8

    retype(tab_b, "#id_scalability_narrative", "Pretraining first.")
    saved(tab_b)
    expect(tab_b.locator(f"#id_{prefix}-title")).to_have_value(
        "Pretraining, renamed in tab A"
    )
    expect(tab_b.locator(f"#id_{prefix}-gpus")).to_have_value("8")
    expect(findings).not_to_contain_text("SCAL-4")
    expect(findings.locator(".finding-inline")).to_have_count(0)
