"""An autosave that leaves while keyboard focus is on a row button goes to the step,
not to the button's endpoint: htmx takes the focused submit button's ``formaction``
for the form's own requests, so tabbing from a row's last input onto its "Remove"
removed the row without the question (found by the held-out check of issue 20)."""

from playwright.sync_api import expect

from proposals.models import JobType
from tests.e2e.test_input_trust import log_in, retype, settled
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory


def test_tabbing_onto_remove_while_an_autosave_waits_keeps_the_row(
    browser, live_server, e2e_catalogue
):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=28000, max_gpus_per_job=8)
    job = JobTypeFactory(proposal=proposal, title="Pretraining", gpus=8, count=1)
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    retype(page, f"#id_jobs-{job.pk}-count", "5")
    # The only row: its up/down buttons are disabled, so Tab lands on "Remove".
    page.keyboard.press("Tab")
    expect(page.locator(f"#jobs-{job.pk} button[title=Remove]")).to_be_focused()
    settled(page)

    assert not [url for url in posted if "/rows/" in url]
    assert dialogs == []
    expect(page.locator(f"#jobs-{job.pk}")).to_have_count(1)
    assert JobType.objects.get(pk=job.pk).count == 5
    context.close()


def test_enter_in_an_input_saves_the_step_and_adds_no_row(
    browser, live_server, e2e_catalogue
):
    """Enter in a one-line input submits the form with its first submit button: on
    the scalability step without measurements that was "Add a measurement" (an
    empty row, unasked), on the selection step "Previous" (the page went back)."""
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=28000, max_gpus_per_job=8)
    job = JobTypeFactory(proposal=proposal, title="Pretraining", gpus=8, count=1)
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)

    step = f"{live_server.url}/proposals/{proposal.pk}/scalability/"
    page.goto(step)
    retype(page, f"#id_jobs-{job.pk}-title", "Pretraining, long")
    # The Save posts the whole page: wait for its answer, not for a load event
    # the page has already had.
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(f"#id_jobs-{job.pk}-title")).to_have_value("Pretraining, long")
    assert not [url for url in posted if "/rows/" in url]
    assert proposal.measurements.count() == 0
    assert JobType.objects.get(pk=job.pk).title == "Pretraining, long"

    selection = f"{live_server.url}/proposals/{proposal.pk}/selection/"
    page.goto(selection)
    retype(page, "#id_total_gpu_hours", "27000")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#id_total_gpu_hours")).to_have_value("27000")
    assert page.url == selection
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 27000
    context.close()
