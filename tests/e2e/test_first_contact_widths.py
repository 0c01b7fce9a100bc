"""Issue 36's page items, each in Chromium at 390 px and 1366 px in the five interface
languages (en-GB, de, fr, it, es): one browser per case walks Settings, the
organisation, selection and scalability steps and the log import, as a person of
that language and region would:

- Settings' number-format list starts with the browser's region, and its time
  zone is the browser's;
- the VAT example follows the country chosen in the organisation step, and what
  is typed just before leaving (within the typing delay) is stored;
- SCAL-3 offers "Use the job plan's total" and the button stores it; the site's
  carbon note (from the system catalogue) is in the page's language;
- the measurement row's code select shows its entry whole; a job plan ending
  with the language's own sum line stores no total as a job, and the preview
  says so;
- the phone's sticky bar says the save state (hidden at 1366 by design, where the
  status line is in the side column);
- a PNG and an empty file dropped as logs are answered in one line each;
- the GPU/GCD choice of LUMI-G's log import is readable: its labels visible, nothing
  wider than the screen;
- AI for Science's selection step says ELIG-5 wholly in the page's language, and
  its calendar shows a 4,800.5 GPU-hour request exactly.

No page is wider than the window.

Every expected text comes from the catalogue (``translation.override``), never
written out here in another language."""

import datetime
import time
from decimal import Decimal
from typing import NamedTuple

import pytest
from django.urls import reverse
from django.utils import translation
from playwright.sync_api import Page, expect

from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, format_number
from proposals.domain.paste_totals import sum_line_note
from proposals.domain.training_logs.filekind import not_a_log
from proposals.domain.vat_examples import vat_example
from proposals.evaluation import Evaluation, Reference
from proposals.models import JobType, Proposal
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_code_select_width import MEASURE
from tests.e2e.test_input_trust import log_in, settled
from tests.e2e.test_language_layout import _too_wide
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    UserFactory,
)
from tests.factories import ScalingMeasurementFactory as Measurement

#: Browser locale -> (interface language, the sum line's word, a country there,
#: its time zone).
LOCALES = {
    "en-GB": ("en-gb", "Total", "GB", "Europe/London"),
    "de-DE": ("de", "Summe", "DE", "Europe/Berlin"),
    "fr-FR": ("fr", "Total", "FR", "Europe/Paris"),
    "it-IT": ("it", "Totale", "IT", "Europe/Rome"),
    "es-ES": ("es", "Total", "ES", "Europe/Madrid"),
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


# The phone cards' labels (a cell's ``data-label``, shown before its input) whose
# word is wider than the cell, so that the browser cuts it anywhere
# ("Kommunikationsaufwa|nd"): words end at spaces, hyphens and soft hyphens.
CUT_LABELS = """() => {
  const canvas = document.createElement("canvas").getContext("2d");
  const cut = [];
  document.querySelectorAll(".wizard-table tbody tr[id] > td[data-label]").forEach(td => {
    const style = getComputedStyle(td, "::before");
    if (style.display !== "block") return;
    canvas.font = style.font;
    for (const word of td.dataset.label.split(/[\\s\\u00ad-]+/)) {
      if (canvas.measureText(word).width > td.clientWidth + 0.5) cut.push(td.dataset.label);
    }
  });
  return cut;
}"""


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def fits(page: Page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= window.innerWidth"
    )


class Case(NamedTuple):
    """One case's browser page and what the person reads and writes."""

    page: Page
    base: str
    proposal: Proposal
    locale: str
    width: int

    @property
    def language(self) -> str:
        return LOCALES[self.locale][0]

    def gettext(self, message: str) -> str:
        with translation.override(self.language):
            return translation.gettext(message)

    def visit(self, name: str, *args):
        self.page.goto(self.base + url(name, *args))
        assert self.page.get_attribute("html", "lang") == self.language


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("locale", list(LOCALES))
def test_first_contact_items_in_every_language_and_width(
    browser, live_server, e2e_catalogue, run_tasks, artifacts, locale, width
):
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
    code = CodeEntryFactory(proposal=proposal, name="Megatron-LM", version="0.9.0")
    Measurement(proposal=proposal, gpus=8, code=code)
    context = browser.new_context(
        locale=locale,
        timezone_id=LOCALES[locale][3],
        viewport={"width": width, "height": 844},
    )
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    case = Case(page, live_server.url, proposal, locale, width)
    wide: dict[str, list] = {}
    settings_start_with_the_person_s_region(case)
    case = case._replace(page=vat_example_follows_the_country(case, context))
    for name, check in (
        ("selection", scal_3_action_stores_the_plan_total),
        ("scalability", sum_line_is_no_job_and_the_bar_says_the_state),
        ("logs", files_are_named_in_one_line_and_the_choice_reads),
        ("ai-for-science", ai_for_science_reads_elig_5_in_the_language),
    ):
        check(case, run_tasks) if name == "logs" else check(case)
        if not fits(case.page):
            wide[name] = _too_wide(case.page)
    case.page.screenshot(
        path=artifacts / f"first-contact-{locale}-{width}.png", full_page=True
    )
    context.close()
    assert wide == {}, f"wider than {width} px in {locale}: {wide}"


def settings_start_with_the_person_s_region(case: Case):
    """Settings: the number formats start with the browser's region, and the time
    zone is the browser's (said beside it) until the person chooses one."""
    case.visit("account_settings")
    first = case.page.locator("select[name=number_format] option").first
    expect(first).to_have_attribute("value", case.locale.replace("-", "_"))
    expect(case.page.locator("select[name=time_zone]")).to_have_value(
        LOCALES[case.locale][3]
    )
    expect(case.page.get_by_test_id("browser-zone-note")).to_have_text(
        case.gettext("Taken from your browser: change it if it is not yours.")
    )


def vat_example_follows_the_country(case: Case, context) -> Page:
    """The organisation step: the VAT example is the chosen country's. Then the
    person types and leaves within the typing delay: what was typed is stored.
    Returns the page the walk goes on in."""
    page, country = case.page, LOCALES[case.locale][2]
    page.clock.install()
    case.visit("proposals:step", case.proposal.pk, "organisation")
    vat_help = page.locator("#fb-id_vat_number")
    expect(vat_help.get_by_test_id("help-example")).to_contain_text(vat_example("FI"))
    page.select_option("#id_organisation_country", country)
    settled(page)
    expect(vat_help.get_by_test_id("help-example")).to_contain_text(
        vat_example(country)
    )
    expect(vat_help).not_to_contain_text(vat_example("FI"))
    # Leaving within the 200 ms typing delay (the page's clock stopped: it never
    # ends by itself), after the "leave site?" dialog.
    page.clock.pause_at(datetime.datetime.now() + datetime.timedelta(minutes=1))
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#id_organisation_name")
    page.keyboard.press("End")
    page.keyboard.type(" Ltd", delay=5)
    again = context.new_page()
    page.close(run_before_unload=True)
    again.wait_for_timeout(500)  # Playwright answers the dialog while it waits
    assert stored_name(case.proposal, "Example AI Oy Ltd")
    again.clock.resume()  # the context's clock: the walk's pages share it
    return again


def stored_name(proposal: Proposal, value: str, timeout: float = 10.0) -> bool:
    """Wait until the server has stored ``value`` (it arrives as the page goes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        proposal.refresh_from_db()
        if proposal.organisation_name == value:
            return True
        time.sleep(0.1)
    return False


def scal_3_action_stores_the_plan_total(case: Case):
    """The selection step: SCAL-3's action stores the job plan's total, and says
    so in the person's language and number format."""
    page, proposal = case.page, case.proposal
    case.visit("proposals:step", proposal.pk, "selection")
    action = page.get_by_test_id("finding-action-SCAL-3")
    fmt = NUMBER_FORMAT_BY_NAME[case.locale.replace("-", "_")]
    stored = case.gettext(
        "Stored: the total GPU-hours are now %(total)s, the job plan's total."
    ) % {"total": format_number(Decimal("3600"), fmt)}
    button = action.get_by_role("button")
    expect(button).to_have_text(case.gettext("Use the job plan's total"))
    button.click()
    expect(page.locator(".messages")).to_contain_text(stored, timeout=10_000)
    expect(action).to_have_count(0)
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("3600")
    # The site's own carbon note (the system catalogue's) in the page's language.
    note = proposal.system.site_carbon_note
    expect(page.locator("#live-energy")).to_contain_text(case.gettext(note))
    if case.language != "en-gb":
        expect(page.locator("#live-energy")).not_to_contain_text(note)


def sum_line_is_no_job_and_the_bar_says_the_state(case: Case):
    """The scalability step: the code select shows its entry whole; a plan ending
    with the language's sum line adds its rows, not the total; the phone's
    sticky bar says the save state (none at 1366: the status line is in view)."""
    page, proposal = case.page, case.proposal
    case.visit("proposals:step", proposal.pk, "scalability")
    select = page.locator("select[name$='-code']").first
    select.scroll_into_view_if_needed()
    page.screenshot(
        path=ARTIFACTS / f"first-contact-{case.locale}-{case.width}-code.png"
    )
    shown = select.evaluate(MEASURE)
    assert shown["room"] >= shown["needed"], shown
    assert page.evaluate(CUT_LABELS) == []
    page.wait_for_load_state("load")
    page.get_by_test_id("paste-jobs-toggle").click()
    page.get_by_test_id("paste-jobs-text").fill(plan(LOCALES[case.locale][1]))
    page.get_by_test_id("paste-jobs-preview-button").click()
    with translation.override(case.language):
        note = sum_line_note(4, by_name=True)
        rows = translation.ngettext("%(n)s row to add", "%(n)s rows to add", 2)
    result = page.get_by_test_id("paste-jobs-result")
    expect(result).to_contain_text(note)
    expect(page.get_by_test_id("paste-jobs-summary")).to_contain_text(rows % {"n": 2})
    expect(result.get_by_role("alert")).to_have_count(0)  # no nameless errors
    page.get_by_test_id("paste-jobs-add").click()
    expect(page.get_by_test_id("jobs-table").locator("tbody tr[id]")).to_have_count(3)
    assert sorted(JobType.objects.filter(proposal=proposal).values_list("title")) == [
        ("Fine-tuning",),
        ("Pre-training",),
        ("Sweep",),
    ]
    page.wait_for_load_state("load")
    if case.width == 390:
        sticky_bar_says_typing_then_saved(case)
    else:
        expect(page.get_by_test_id("live-bar")).to_be_hidden()
        expect(page.locator("#save-status")).to_be_visible()


def sticky_bar_says_typing_then_saved(case: Case):
    """As tests/e2e/test_live_bar_save_state.py, in the page's language: the
    page's clock stops so the 200 ms typing delay cannot end before the bar is
    looked at."""
    page = case.page
    bar, copy = page.get_by_test_id("live-bar"), page.get_by_test_id("live-bar-save")
    job = JobType.objects.filter(proposal=case.proposal).order_by("pk").last()
    count = page.locator(f"#id_jobs-{job.pk}-count")
    count.scroll_into_view_if_needed()
    count.click()
    page.keyboard.press("End")
    page.clock.pause_at(datetime.datetime.now() + datetime.timedelta(minutes=1))
    page.keyboard.type("0")
    page.clock.run_for(50)
    page.mouse.wheel(0, 600)
    status = page.locator("#save-status")
    expect(bar).to_be_in_viewport()
    expect(copy).to_have_text(case.gettext("Typing…"))
    assert status.bounding_box()["y"] + status.bounding_box()["height"] < 0
    page.clock.resume()
    settled(page)
    expect(copy).to_have_attribute("data-state", "saved")
    expect(copy).to_contain_text(case.gettext("Saved"))
    expect(copy).to_be_in_viewport()


def files_are_named_in_one_line_and_the_choice_reads(case: Case, run_tasks):
    """The log import: the GPU/GCD choice's labels are visible and inside the
    screen; a PNG and an empty file are each answered in one line."""
    page = case.page
    case.visit("proposals:logs", case.proposal.pk)
    choice = page.get_by_test_id("logs-count")
    for radio in ("gpus", "gcds"):
        label = choice.locator(f"label[for=logs-count-{radio}]")
        expect(label).to_be_visible()
        box = label.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= case.width
    assert choice.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.get_by_test_id("logs-files").set_input_files(
        [
            {"name": "loss.png", "mimeType": "image/png", "buffer": PNG},
            {"name": "run.log", "mimeType": "text/plain", "buffer": b""},
        ]
    )
    with translation.override(case.language):
        answers = [not_a_log("loss.png", PNG), not_a_log("run.log", b"")]
    page.get_by_role("button", name=case.gettext("Preview"), exact=True).click()
    # Read by the task worker: the page shows its progress, then the answers.
    expect(page.get_by_test_id("logs-reading")).to_be_visible()
    run_tasks()
    expect(page.get_by_test_id("logs-refused")).to_have_text(answers, timeout=10_000)


def ai_for_science_reads_elig_5_in_the_language(case: Case):
    """AI for Science (the family universities are sent to): ELIG-5, the family's
    own document and terms, as the catalogue says it in the page's language; the
    calendar of a fractional request."""
    science = ProposalFactory(
        owner=case.proposal.owner,
        call_family="ai_for_science",
        organisation_kind="academic",
        organisation_country=LOCALES[case.locale][2],
        vat_number="",
        total_gpu_hours=Decimal("4800.5"),
        duration_months=2,
    )
    case.visit("proposals:step", science.pk, "selection")
    # The calendar keeps a fractional request exact (it showed 4,800), written
    # as the person writes numbers.
    fmt = NUMBER_FORMAT_BY_NAME[case.locale.replace("-", "_")]
    expect(case.page.get_by_test_id("calendar-summary")).to_contain_text(
        format_number(Decimal("4800.5"), fmt)
    )
    with translation.override(case.language):
        evaluation = Evaluation.of(science, Reference.fresh())
        (message,) = [
            f.message for f in evaluation.assessment.findings if f.code == "ELIG-5"
        ]
    finding = case.page.locator("li.finding").filter(
        has=case.page.locator("span.badge", has_text="ELIG-5")
    )
    expect(finding.get_by_role("link")).to_have_text(message)
