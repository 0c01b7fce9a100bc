"""Held-out check of issue 25 in Chromium: five people (de-DE, fr-FR, de-CH, it-IT,
en-GB browsers, the same choice in Settings) type into fields the builders' test does
not use (the usage schedule, a pasted scaling table, the ambiguous ``1.234`` and
``0,5``, a negative figure) with the spaces and apostrophes their keyboards and
spreadsheets really give (no-break and narrow no-break spaces, both apostrophes),
and read every figure back: the schedule's total, the scaling table, the sidebar's
totals, the compare-systems table.

Elements are found by id, name and data attributes only (the interface may be German
or French).
"""

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from proposals import services
from proposals.domain import numbers
from proposals.models import Cluster, OutgoingMail
from tests.e2e.test_input_trust import retype, settled
from tests.factories import (
    PASSWORD,
    CodeEntryFactory,
    ProposalFactory,
    StaffUserFactory,
    UserFactory,
)

NBSP, NNBSP = "\u00a0", "\u202f"


@dataclass(frozen=True)
class Person:
    fmt: str
    hours: str  # 18176 as typed
    hours_shown: str
    period: str  # 1234.5 GPU-hours of one schedule period, as typed
    period_shown: str
    throughput: str  # 2280.5 samples/s as their spreadsheet copies it
    throughput_shown: str
    ambiguous: str  # text the other convention reads differently
    ambiguous_value: Decimal
    ambiguous_note: str  # the figure the field says it read
    group: str  # the group mark they type between thousands


PEOPLE = {
    # A German types the point as group mark; "12.5" TB is read as 12.5, said so.
    "de-DE": Person(
        "de_DE",
        "18.176",
        "18.176",
        "1.234,5",
        "1.234,5",
        "2.280,5",
        "2.280,5",
        "12.5",
        Decimal("12.5"),
        "12,5",
        ".",
    ),
    # A French keyboard or word processor gives a no-break or narrow no-break space.
    "fr-FR": Person(
        "fr_FR",
        f"18{NBSP}176",
        f"18{NNBSP}176",
        f"1{NNBSP}234,5",
        f"1{NNBSP}234,5",
        f"2{NNBSP}280,5",
        f"2{NNBSP}280,5",
        "12.5",
        Decimal("12.5"),
        "12,5",
        NNBSP,
    ),
    # The Swiss write both apostrophes; "1.234" TB is one point two three four to
    # them, not 1234 (at most two decimals: the field says how it was read).
    "de-CH": Person(
        "de_CH",
        "18'176",
        "18'176",
        "1\u2019234.5",
        "1'234.5",
        "2\u2019280.5",
        "2'280.5",
        "0,5",
        Decimal("0.5"),
        "0.5",
        "\u2019",
    ),
    "it-IT": Person(
        "it_IT",
        "18.176",
        "18.176",
        "1.234,5",
        "1.234,5",
        "2.280,5",
        "2.280,5",
        "12.5",
        Decimal("12.5"),
        "12,5",
        ".",
    ),
    # In en-GB, "0,5" is a decimal comma typed by mistake: read as 0.5, and said so.
    "en-GB": Person(
        "en_GB",
        "18,176",
        "18,176",
        "1,234.5",
        "1,234.5",
        "2,280.5",
        "2,280.5",
        "0,5",
        Decimal("0.5"),
        "0.5",
        ",",
    ),
}


def log_in(page: Page, base: str, username: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("#main form button[type=submit]").click()
    expect(page).not_to_have_url(re.compile(r"/accounts/login/"))


def type_in(page: Page, selector: str, text: str, state: str = "saved"):
    retype(page, selector, text)
    settled(page, state)


def add_row(page: Page, kind: str) -> str:
    page.wait_for_load_state("load")
    rows = page.locator(f"tr[id^='{kind}-']")
    before = rows.count()
    page.get_by_test_id(f"add-{kind}").click()
    expect(rows).to_have_count(before + 1)
    return rows.nth(before).get_attribute("id")


def figures_text(page: Page, selector: str = "#main") -> str:
    """The text of ``selector`` without what is pasted into the portal or typed."""
    return page.evaluate(
        """(selector) => {
            const node = document.querySelector(selector).cloneNode(true);
            node.querySelectorAll('pre, .portal-text, textarea, input, script')
                .forEach(n => n.remove());
            return node.textContent;
        }""",
        selector,
    )


def others(locale: str, attribute: str) -> set[str]:
    own = getattr(PEOPLE[locale], attribute)
    return {getattr(p, attribute) for p in PEOPLE.values()} - {own}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", list(PEOPLE))
def test_a_person_types_schedule_paste_and_edge_cases_and_reads_them_back(
    browser, live_server, e2e_catalogue, locale
):
    person, base = PEOPLE[locale], live_server.url
    user = UserFactory()
    services.preferences_set(user=user, number_format=person.fmt)
    proposal = ProposalFactory(
        owner=user, system=Cluster.objects.get(slug="lumi-g"), total_gpu_hours=None
    )
    CodeEntryFactory(proposal=proposal, position=0)
    headers = {"Accept-Language": f"{locale},{locale.split('-')[0]};q=0.9"}
    context = browser.new_context(locale=locale, extra_http_headers=headers)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = context.new_page()
    log_in(page, base, user.username)
    steps = f"{base}/proposals/{proposal.pk}"

    # The request typed in their own way; the text the other convention reads
    # differently is read in theirs and the field says so, in their format.
    page.goto(f"{steps}/selection/")
    type_in(page, "#id_total_gpu_hours", person.hours)
    expect(page.get_by_test_id("requested-hours")).to_have_text(person.hours_shown)
    type_in(page, "#id_transfer_out_tb", person.ambiguous)
    note = page.locator("#fb-id_transfer_out_tb").get_by_test_id("field-note")
    expect(note).to_contain_text(person.ambiguous_note)
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 18176
    assert proposal.transfer_out_tb == person.ambiguous_value

    # A negative figure is refused (not read without its sign), the typed text kept.
    type_in(page, "#id_transfer_in_tb", "-2", state="refused")
    expect(page.locator("#id_transfer_in_tb")).to_have_value("-2")
    proposal.refresh_from_db()
    assert proposal.transfer_in_tb is None

    # The usage schedule: one period typed with their group mark and decimal.
    page.goto(f"{steps}/scalability/")
    row = add_row(page, "schedule")
    type_in(page, f"#{row} input[name$='-from_month']", "1")
    type_in(page, f"#{row} input[name$='-to_month']", "3")
    type_in(page, f"#{row} input[name$='-gpu_hours']", person.period)
    expect(page.get_by_test_id("schedule-table-total")).to_have_text(
        person.period_shown
    )
    assert proposal.schedule.get().gpu_hours == Decimal("1234.5")

    # A scaling table pasted from their spreadsheet (tab-separated, their marks).
    table = (
        "GPUs\tThroughput (samples/s)\n"
        f"4\t{person.throughput.replace('2', '1', 1)}\n"
        f"8\t{person.throughput}\n"
    )
    page.get_by_test_id("paste-measurements-toggle").click()
    page.get_by_test_id("paste-measurements-text").click()
    page.evaluate("text => navigator.clipboard.writeText(text)", table)
    page.keyboard.press("Control+V")
    page.get_by_test_id("paste-measurements-preview-button").click()
    preview = page.get_by_test_id("paste-measurements-rows")
    expect(preview).to_contain_text(person.throughput_shown)
    page.get_by_test_id("paste-measurements-add").click()
    measurements = page.get_by_test_id("measurements-table")
    expect(measurements.locator("tbody tr[id]")).to_have_count(2)
    assert sorted(m.throughput for m in proposal.measurements.all()) == [
        Decimal("1280.5"),
        Decimal("2280.5"),
    ]
    scaling = page.get_by_test_id("scaling-table")
    expect(scaling).to_contain_text(person.throughput_shown)

    # Every figure on the step and in the sidebar in their own convention only.
    page.reload()
    text = figures_text(page)
    for attribute in ("hours_shown", "period_shown", "throughput_shown"):
        assert getattr(person, attribute) in text, attribute
        wrong = [t for t in others(locale, attribute) if t in text]
        assert not wrong, f"{locale} reads {wrong} on the scalability step"
    totals = figures_text(page, "#live-totals")
    assert person.hours_shown in totals and person.period_shown in totals

    # The compute estimate's inputs, typed with their group marks: 1.4 billion
    # parameters and 3 trillion tokens; the estimate is printed in their format.
    page.goto(f"{steps}/codes/")
    entry = page.locator("section.code-entry").first
    entry.locator("details.compute-inputs summary").click()
    params = f"1{person.group}400{person.group}000{person.group}000"
    tokens = f"3{person.group}000{person.group}000{person.group}000{person.group}000"
    type_in(page, "input[name$='-model_parameters']", params)
    type_in(page, "input[name$='-training_tokens']", tokens)
    code = proposal.codes.get()
    assert (code.model_parameters, code.training_tokens) == (1_400_000_000, 3e12)
    estimate = page.get_by_test_id("compute-estimate").locator("dd").first
    # The figure leads, the unit follows in the page's language (GPU-hours, heures GPU).
    figure = re.match(r"[\d.,'\u2019\u00a0\u202f]+", estimate.inner_text()).group(0)
    fmt = numbers.NUMBER_FORMAT_BY_NAME[person.fmt]
    value = numbers.parse_number(figure, fmt, places=0).value
    assert value > 1000 and figure == numbers.grouped(value, 0, fmt=fmt), figure

    # Compare systems: the starting request in their format, no other's.
    page.goto(f"{steps}/systems/")
    text = figures_text(page)
    assert person.hours_shown in text
    wrong = [t for t in others(locale, "hours_shown") if t in text]
    assert not wrong, f"{locale} reads {wrong} on compare systems"
    context.close()


def choose_in_settings(page: Page, base: str, fmt: str, zone: str):
    """The person's own choice in Settings (over what the browser suggested)."""
    page.goto(f"{base}/accounts/settings/")
    page.select_option("#id_number_format", value=fmt)
    page.select_option("#id_time_zone", value=zone)
    # Wait for the POST and its redirect: a page already loaded says "load" at once,
    # and the next goto would abort the save still in flight.
    with page.expect_navigation(wait_until="load"):
        page.locator("#id_time_zone").evaluate("el => el.form.requestSubmit()")


def clock(text: str, zone: str) -> tuple[int, int]:
    """The hour and minute of the first time shown with ``zone``'s name."""
    found = re.search(rf"(\d{{1,2}}):(\d\d) {zone}\b", text)
    assert found, f"no time in {zone} in: {text[:400]}"
    return int(found.group(1)), int(found.group(2))


@pytest.mark.django_db(transaction=True)
def test_history_and_queue_times_in_each_persons_zone_and_date_form(
    browser, live_server, e2e_catalogue
):
    """A French applicant living in Helsinki sends for review; a Swiss member of
    staff in Zurich takes it. Each reads the same moment in their own zone, named
    as their language writes it (EET on the French page, MEZ or MESZ on the German
    one: issue 36), in their locale's date form; the staff e-mail in Swiss figures."""
    base = live_server.url
    applicant = UserFactory()
    proposal = ProposalFactory(
        owner=applicant,
        system=Cluster.objects.get(slug="lumi-g"),
        total_gpu_hours=18176,
        title="Détection de défauts",
    )
    staff = StaffUserFactory(email="urs@example.ch")
    contexts = []

    def person(locale: str, timezone_id: str) -> Page:
        context = browser.new_context(
            locale=locale,
            timezone_id=timezone_id,
            extra_http_headers={"Accept-Language": f"{locale},en;q=0.5"},
        )
        contexts.append(context)
        return context.new_page()

    swiss = person("de-CH", "Europe/Zurich")
    log_in(swiss, base, staff.username)
    choose_in_settings(swiss, base, "de_CH", "Europe/Zurich")

    french = person("fr-FR", "Europe/Helsinki")
    log_in(french, base, applicant.username)
    choose_in_settings(french, base, "fr_FR", "Europe/Helsinki")
    french.goto(f"{base}/proposals/{proposal.pk}/submission/send/")
    french.locator("form[action$='/submission/send/'] button[type=submit]").click()
    expect(french).to_have_url(re.compile(r"/submission/$"))
    text = figures_text(french)
    assert "CET" not in text
    helsinki = clock(text, "EET")
    assert re.search(r"\d{1,2} déc\. 20\d\d", text), text[:400]

    swiss.goto(f"{base}/staff/review/")
    sent = swiss.get_by_test_id("queue-wait").locator("time")
    expect(sent).to_have_attribute("title", re.compile(r"\d\d\.\d\d\.20\d\d, "))
    # German names the zone MEZ (MESZ in summer), not CET (localization.zone_name).
    german = "MESZ" if datetime.now(ZoneInfo("Europe/Zurich")).dst() else "MEZ"
    zurich = clock(sent.get_attribute("title"), german)
    assert (zurich[0] + 1) % 24 == helsinki[0] and zurich[1] == helsinki[1]
    swiss.goto(f"{base}/staff/review/{proposal.pk}/")
    text = figures_text(swiss)
    assert "EET" not in text and "CET" not in text
    assert clock(text, german) == zurich
    assert "18'176" in text and "18,176" not in text

    body = OutgoingMail.objects.get(to=staff.email).body
    assert "18'176 GPU-hours" in body and "18.176" not in body
    for context in contexts:
        context.close()
