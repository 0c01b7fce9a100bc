"""What the applicant types is what is saved, or they are told (issue 10), typed with
the real keyboard in Chromium, in the English, German and Finnish number formats."""

import re

import pytest
from playwright.sync_api import Page, expect

from proposals import services
from proposals.models import Proposal
from tests.factories import (
    PASSWORD,
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    UserFactory,
)

LOCALES = {"en": "en-US", "de": "de-DE", "fi": "fi-FI"}


def log_in(page: Page, base: str, username: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    # The list's heading, whatever language the browser asks for.
    expect(page.get_by_test_id("proposal-list-heading")).to_be_visible()


def retype(page: Page, selector: str, text: str):
    """Select what the input holds and type ``text`` over it, key by key."""
    page.locator(selector).click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    page.keyboard.type(text)


def settled(page: Page, state: str = "saved"):
    expect(page.locator("#save-status")).to_have_attribute(
        "data-state", state, timeout=10_000
    )


@pytest.fixture
def applicant(browser, live_server, e2e_catalogue, request):
    """A page in a browser of the given locale, logged in as a person who writes
    numbers in that locale's format, and their LUMI-G proposal. The interface stays
    English by their choice in Settings: these tests are about numbers (the
    interface's language has its own tests)."""
    fmt = getattr(request, "param", "en")
    user = UserFactory()
    services.preferences_set(user=user, number_format=fmt, language="en-gb")
    proposal = ProposalFactory(owner=user)
    context = browser.new_context(locale=LOCALES[fmt])
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    yield page, proposal, live_server.url
    context.close()


@pytest.mark.parametrize("applicant", ["en", "de", "fi"], indirect=True)
def test_numbers_are_read_as_people_write_them(applicant):
    page, proposal, base = applicant
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    # Eighteen thousand as a German or Finnish applicant writes it.
    retype(page, "#id_total_gpu_hours", "18.176")
    settled(page)
    expect(page.get_by_test_id("tier")).to_have_text("Fast Lane")
    # A decimal comma is a decimal, never "02".
    retype(page, "#id_transfer_out_tb", "0,2")
    settled(page)
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 18176
    assert str(proposal.transfer_out_tb) == "0.20"
    english = proposal.owner.preferences.number_format == "en"
    note = page.locator("#fb-id_transfer_out_tb").get_by_test_id("field-note")
    if english:
        # English reads "0,2" by the other convention, and says so.
        expect(note).to_have_text("Read as 0.2 TB")
    else:
        expect(note).to_have_count(0)
    page.reload()
    shown = "0.2" if english else "0,2"
    expect(page.locator("#id_transfer_out_tb")).to_have_value(shown)
    # Exports print the canonical form, whatever the person's format.
    markdown = page.request.get(f"{base}/proposals/{proposal.pk}/export.md")
    assert markdown.ok
    assert re.search(r"\b[Oo]ut: 0\.2 TB", markdown.text())


@pytest.mark.parametrize("applicant", ["en", "de", "fi"], indirect=True)
def test_refused_value_is_never_called_saved_and_survives_a_reload(applicant):
    page, proposal, base = applicant
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    retype(page, "#id_total_gpu_hours", "12abc")
    settled(page, "refused")
    status = page.locator("#save-status")
    expect(status).to_contain_text("Not saved: fix the highlighted field")
    expect(page.locator("#fb-id_total_gpu_hours")).to_contain_text(
        "“12abc” is not a number"
    )
    expect(page.locator("#id_total_gpu_hours")).to_have_class(re.compile("is-invalid"))
    nav = page.get_by_role("navigation", name="Wizard steps")
    expect(nav.get_by_test_id("step-not-saved")).to_have_count(1)
    expect(page.get_by_test_id("stale-figures")).to_contain_text("Total GPU-hours")
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 4000  # the last valid value, untouched
    page.reload()
    expect(page.locator("#id_total_gpu_hours")).to_have_value("12abc")
    expect(status).to_contain_text("Not saved: fix the highlighted field")
    # Negative and far too large values: our messages, with the reason.
    retype(page, "#id_total_gpu_hours", "-5")
    settled(page, "refused")
    expect(page.locator("#fb-id_total_gpu_hours")).to_contain_text(
        "GPU-hours cannot be negative"
    )
    expect(page.locator("#fb-id_total_gpu_hours")).not_to_contain_text("Ensure")
    retype(page, "#id_duration_months", "1000")
    expect(page.locator("#fb-id_duration_months")).to_contain_text("Enter at most 60")
    retype(page, "#id_duration_months", "6")
    retype(page, "#id_total_gpu_hours", "18176")
    settled(page)
    expect(page.get_by_test_id("stale-figures")).to_have_count(0)
    proposal.refresh_from_db()
    assert (proposal.total_gpu_hours, proposal.refused_inputs) == (18176, {})


def test_half_edited_row_never_shows_a_mixed_figure(applicant):
    page, proposal, base = applicant
    job = JobTypeFactory(proposal=proposal, gpus=8, hours=4, count=10)
    page.goto(f"{base}/proposals/{proposal.pk}/scalability/")
    figure = page.locator(f"#jobs-{job.pk}-computed")
    expect(figure).to_contain_text("320")
    retype(page, f"#id_jobs-{job.pk}-gpus", "99999999")
    retype(page, f"#id_jobs-{job.pk}-hours", "99999")
    retype(page, f"#id_jobs-{job.pk}-count", "99999")
    settled(page, "refused")
    expect(figure).to_contain_text("320")
    expect(figure.get_by_test_id("job-figures-stale")).to_be_visible()
    expect(page.get_by_test_id("jobs-total")).to_have_text("320")
    expect(page.locator("body")).not_to_contain_text("3,199,968")
    job.refresh_from_db()
    assert (job.gpus, job.count) == (8, 10)
    page.reload()
    expect(page.locator(f"#id_jobs-{job.pk}-count")).to_have_value("99999")
    retype(page, f"#id_jobs-{job.pk}-gpus", "16")
    retype(page, f"#id_jobs-{job.pk}-hours", "2")
    settled(page)
    expect(figure).to_contain_text("3,199,968")  # 16 x 2 x 99,999, all new
    job.refresh_from_db()
    assert (job.gpus, job.count) == (16, 99999)


def test_gpu_unit_survives_edits_on_every_other_step(applicant):
    page, proposal, base = applicant
    CodeEntryFactory(proposal=proposal)
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    # Playground: the choice is folded away until asked for, as the job plan is.
    page.get_by_test_id("gpu-unit-fold").locator("summary").click()
    page.get_by_label("GCDs, as Slurm counts them").check()
    settled(page)
    expect(page.locator("#id_max_gpus_per_job")).to_have_value("8")  # 4 GPUs
    for step, selector in [
        ("organisation", "#id_organisation_name"),
        ("codes", "input[name$='-version']"),
        ("optimisation", "#id_optimisation_narrative"),
    ]:
        page.goto(f"{base}/proposals/{proposal.pk}/{step}/")
        retype(page, selector, f"edited on {step}")
        settled(page)
    page.goto(f"{base}/proposals/{proposal.pk}/scalability/")
    page.get_by_test_id("add-plan").click()  # Playground: folded until asked for
    expect(page.get_by_label("GCDs, as Slurm counts them")).to_be_checked()
    expect(page.locator("th").filter(has_text="GCDs").first).to_be_visible()
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    expect(page.locator("#id_max_gpus_per_job")).to_have_value("8")
    proposal.refresh_from_db()
    assert (proposal.gpu_unit, proposal.max_gpus_per_job) == ("gcds", 4)


def test_two_tabs_editing_different_steps_and_fields_both_save(applicant):
    page, proposal, base = applicant
    other = page.context.new_page()
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    other.goto(f"{base}/proposals/{proposal.pk}/organisation/")
    retype(other, "#id_organisation_name", "Nordlicht AI Oy")
    settled(other)
    retype(page, "#id_libraries", "JAX 0.4")
    settled(page)
    # Both tabs on one step, different fields.
    other.goto(f"{base}/proposals/{proposal.pk}/selection/")
    retype(page, "#id_duration_months", "3")
    settled(page)
    retype(other, "#id_storage_tb", "12")
    settled(other)
    proposal.refresh_from_db()
    assert proposal.organisation_name == "Nordlicht AI Oy"
    assert proposal.libraries == "JAX 0.4"
    assert proposal.duration_months == 3
    assert proposal.storage_tb == 12


def test_two_tabs_editing_the_same_field_choose_which_to_keep(applicant):
    page, proposal, base = applicant
    other = page.context.new_page()
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    other.goto(f"{base}/proposals/{proposal.pk}/selection/")
    retype(other, "#id_libraries", "from the other tab")
    settled(other)
    retype(page, "#id_libraries", "from this tab")
    settled(page, "conflict")
    banner = page.get_by_test_id("conflict")
    expect(banner.get_by_test_id("conflict-mine")).to_have_text("from this tab")
    expect(banner.get_by_test_id("conflict-theirs")).to_have_text("from the other tab")
    proposal.refresh_from_db()
    assert proposal.libraries == "from the other tab"
    banner.get_by_role("button", name="Keep mine").click()
    settled(page)
    expect(page.get_by_test_id("conflict")).to_have_count(0)
    proposal.refresh_from_db()
    assert proposal.libraries == "from this tab"


def test_rows_added_in_two_tabs_are_both_kept(applicant):
    page, proposal, base = applicant
    other = page.context.new_page()
    page.goto(f"{base}/proposals/{proposal.pk}/scalability/")
    other.goto(f"{base}/proposals/{proposal.pk}/scalability/")
    page.get_by_test_id("add-plan").click()  # Playground: folded until asked for
    page.get_by_test_id("add-jobs").click()
    expect(page.locator("tr[id^='jobs-']")).to_have_count(1)
    other.get_by_test_id("add-plan").click()
    other.get_by_test_id("add-jobs").click()
    expect(other.locator("tr[id^='jobs-']")).to_have_count(2)
    first = page.locator("tr[id^='jobs-']").first.get_attribute("id")
    retype(page, f"#{first} input[name$='-title']", "tab one")
    settled(page)
    second = other.locator("tr[id^='jobs-']").last.get_attribute("id")
    retype(other, f"#{second} input[name$='-title']", "tab two")
    settled(other)
    titles = list(
        Proposal.objects.get(pk=proposal.pk).jobs.values_list("title", flat=True)
    )
    assert sorted(titles) == ["tab one", "tab two"]
    page.reload()
    expect(page.locator("tr[id^='jobs-']")).to_have_count(2)


def test_a_new_proposal_is_a_to_do_list_not_a_wall_of_red(applicant):
    page, _, base = applicant
    page.get_by_role("link", name="New proposal").first.click()
    page.fill("#id_title", "Fresh start")
    page.get_by_role("button", name="Create proposal").click()
    nav = page.get_by_role("navigation", name="Wizard steps")
    expect(nav.get_by_test_id("step-todo").first).to_be_visible()
    expect(nav.locator(".badge.text-bg-danger")).to_have_count(0)
    expect(page.get_by_test_id("todo-count")).to_be_visible()
    page.get_by_role("link", name=re.compile("Scalability")).click()
    page.get_by_test_id("add-jobs").click()
    row = page.locator("tr[id^='jobs-']").first
    expect(row).to_be_visible()
    # The row's findings are written under it, in the row of feedback that follows.
    feedback = page.locator("tr[id^='jobs-'] + tr.row-feedback").first
    expect(feedback.locator(".field-feedback")).to_have_count(4)
    expect(feedback.locator(".finding-inline.text-danger-emphasis")).to_have_count(0)
    expect(row.locator("input.is-invalid")).to_have_count(0)
