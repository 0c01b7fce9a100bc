"""Issue 36's page items, each in Chromium at 390 px and 1366 px in the five interface
languages (en-GB, de, fr, it, es): one browser per case walks Settings, the
organisation, selection and scalability steps and the log import, as a person of
that language and region would:

- Settings' number-format list starts with the browser's region;
- the VAT example follows the country chosen in the organisation step;
- SCAL-3 offers "Use the job plan's total" and the button stores it;
- a job plan ending with the language's own sum line stores no total as a job, and
  the preview says so;
- the phone's sticky bar says the save state (hidden at 1366 by design, where the
  status line is in the side column);
- a PNG and an empty file dropped as logs are answered in one line each;
- the GPU/GCD choice of LUMI-G's log import is readable: its labels visible, nothing
  wider than the screen.

Every expected text comes from the catalogue (``translation.override``), never
written out here in another language."""

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from playwright.sync_api import Page, expect

from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, format_number
from proposals.domain.paste_totals import sum_line_note
from proposals.domain.training_logs.filekind import not_a_log
from proposals.domain.vat_examples import vat_example
from proposals.models import JobType
from tests.e2e.test_input_trust import log_in, settled
from tests.e2e.test_language_layout import _too_wide
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory

#: Browser locale -> (interface language, the sum line's word, a country there).
LOCALES = {
    "en-GB": ("en-gb", "Total", "GB"),
    "de-DE": ("de", "Summe", "DE"),
    "fr-FR": ("fr", "Total", "FR"),
    "it-IT": ("it", "Totale", "IT"),
    "es-ES": ("es", "Total", "ES"),
}
WIDTHS = [390, 1366]
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01"


def plan(total_word: str) -> str:
    """A job plan as a spreadsheet copies it (tabs), ending with its sum line."""
    return (
        "Job type\tGPUs per job\tHours\tJobs\tGPU-hours\n"
        "Sweep\t8\t4\t10\t320\n"
        "Pre-training\t16\t24\t2\t768\n"
        f"{total_word}\t\t\t\t1088"
    )


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def fits(page: Page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= window.innerWidth"
    )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("locale", list(LOCALES))
def test_first_contact_items_in_every_language_and_width(
    browser, live_server, e2e_catalogue, run_tasks, artifacts, locale, width
):
    language, total_word, country = LOCALES[locale]
    user = UserFactory()
    proposal = ProposalFactory(
        owner=user,
        organisation_country="FI",
        vat_number="",
        total_gpu_hours=Decimal("4000"),
        max_gpus_per_job=16,
    )
    # 8 GPUs x 5 h x 90 jobs = 3,600 GPU-hours, not the 4,000 requested: SCAL-3.
    JobTypeFactory(proposal=proposal, title="Fine-tuning", gpus=8, hours=5, count=90)
    context = browser.new_context(
        locale=locale, viewport={"width": width, "height": 844}
    )
    page = context.new_page()
    page.clock.install()  # paused only while the sticky bar is looked at
    base = live_server.url
    log_in(page, base, user.username)
    wide: dict[str, list] = {}

    # Settings: the number formats start with the browser's region.
    page.goto(base + url("account_settings"))
    assert page.get_attribute("html", "lang") == language
    first = page.locator("select[name=number_format] option").first
    expect(first).to_have_attribute("value", locale.replace("-", "_"))

    # The organisation step: the VAT example is the chosen country's.
    page.goto(base + url("proposals:step", proposal.pk, "organisation"))
    vat_help = page.locator("#fb-id_vat_number")
    expect(vat_help.get_by_test_id("help-example")).to_contain_text(vat_example("FI"))
    page.select_option("#id_organisation_country", country)
    settled(page)
    expect(vat_help.get_by_test_id("help-example")).to_contain_text(
        vat_example(country)
    )
    expect(vat_help).not_to_contain_text(vat_example("FI"))

    # The selection step: SCAL-3's action stores the job plan's total.
    page.goto(base + url("proposals:step", proposal.pk, "selection"))
    action = page.get_by_test_id("finding-action-SCAL-3")
    fmt = NUMBER_FORMAT_BY_NAME[locale.replace("-", "_")]
    with translation.override(language):
        use_total = translation.gettext("Use the job plan's total")
        stored = translation.gettext(
            "Stored: the total GPU-hours are now %(total)s, the job plan's total."
        ) % {"total": format_number(Decimal("3600"), fmt)}
    expect(action.get_by_role("button")).to_have_text(use_total)
    action.get_by_role("button").click()
    expect(page.locator(".messages")).to_contain_text(stored, timeout=10_000)
    expect(action).to_have_count(0)
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("3600")
    if not fits(page):
        wide["selection"] = _too_wide(page)

    # The scalability step: a plan ending with the language's sum line.
    page.goto(base + url("proposals:step", proposal.pk, "scalability"))
    page.wait_for_load_state("load")
    page.get_by_test_id("paste-jobs-toggle").click()
    page.get_by_test_id("paste-jobs-text").fill(plan(total_word))
    page.get_by_test_id("paste-jobs-preview-button").click()
    with translation.override(language):
        note = sum_line_note(4, by_name=True)
        two_rows = translation.ngettext("%(n)s row to add", "%(n)s rows to add", 2) % {
            "n": 2
        }
    result = page.get_by_test_id("paste-jobs-result")
    expect(result).to_contain_text(note)
    expect(page.get_by_test_id("paste-jobs-summary")).to_contain_text(two_rows)
    expect(result.get_by_role("alert")).to_have_count(0)  # no nameless errors
    page.get_by_test_id("paste-jobs-add").click()
    jobs = page.get_by_test_id("jobs-table").locator("tbody tr[id]")
    expect(jobs).to_have_count(3)
    assert sorted(JobType.objects.filter(proposal=proposal).values_list("title")) == [
        ("Fine-tuning",),
        ("Pre-training",),
        ("Sweep",),
    ]
    if not fits(page):
        wide["scalability"] = _too_wide(page)

    # The sticky bar: the save state on a phone; none at 1366 (the status line
    # stays in view there).
    page.wait_for_load_state("load")
    bar = page.get_by_test_id("live-bar")
    copy = page.get_by_test_id("live-bar-save")
    if width == 390:
        sticky_bar_says_typing_then_saved(page, bar, copy, proposal, language)
    else:
        expect(bar).to_be_hidden()
        expect(page.locator("#save-status")).to_be_visible()

    # The log import: a PNG and an empty file, and the GPU/GCD choice.
    page.goto(base + url("proposals:logs", proposal.pk))
    choice = page.get_by_test_id("logs-count")
    for radio in ("gpus", "gcds"):
        label = choice.locator(f"label[for=logs-count-{radio}]")
        expect(label).to_be_visible()
        box = label.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert choice.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.get_by_test_id("logs-files").set_input_files(
        [
            {"name": "loss.png", "mimeType": "image/png", "buffer": PNG},
            {"name": "run.log", "mimeType": "text/plain", "buffer": b""},
        ]
    )
    with translation.override(language):
        preview_label = translation.gettext("Preview")
        answers = [not_a_log("loss.png", PNG), not_a_log("run.log", b"")]
    page.get_by_role("button", name=preview_label, exact=True).click()
    # Read by the task worker: the page shows its progress, then the answers.
    expect(page.get_by_test_id("logs-reading")).to_be_visible()
    run_tasks()
    refused = page.get_by_test_id("logs-refused")
    expect(refused).to_have_text(answers, timeout=10_000)
    page.screenshot(
        path=artifacts / f"first-contact-{locale}-{width}.png", full_page=True
    )
    if not fits(page):
        wide["logs"] = _too_wide(page)
    context.close()
    assert wide == {}, f"wider than {width} px in {locale}: {wide}"


def sticky_bar_says_typing_then_saved(page: Page, bar, copy, proposal, language):
    """As tests/e2e/test_live_bar_save_state.py, in the page's language: the
    page's clock stops so the 200 ms typing delay cannot end before the bar is
    looked at."""
    job = JobType.objects.filter(proposal=proposal).order_by("pk").last()
    count = page.locator(f"#id_jobs-{job.pk}-count")
    count.scroll_into_view_if_needed()
    count.click()
    page.keyboard.press("End")
    page.clock.pause_at(datetime.datetime.now() + datetime.timedelta(minutes=1))
    page.keyboard.type("0")
    page.clock.run_for(50)
    page.mouse.wheel(0, 600)
    status = page.locator("#save-status")
    with translation.override(language):
        typing, saved = translation.gettext("Typing…"), translation.gettext("Saved")
    expect(bar).to_be_in_viewport()
    expect(copy).to_have_text(typing)
    assert status.bounding_box()["y"] + status.bounding_box()["height"] < 0
    page.clock.resume()
    settled(page)
    expect(copy).to_have_attribute("data-state", "saved")
    expect(copy).to_contain_text(saved)
    expect(copy).to_be_in_viewport()
