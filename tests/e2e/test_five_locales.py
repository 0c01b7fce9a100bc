"""Issue 25 in Chromium: people with de-DE, fr-FR, de-CH, it-IT and en-GB browsers sign
up, type the same proposal with the keyboard in their own convention, and read every
figure in it on every step, on the staff page (a colleague with the same browser) and
in the staff's e-mail, while the text for the portal is identical for all five.

Elements are found by id, name and data attributes only: the interface may be German
or French, and the number format does not depend on the interface language.
"""

import re
from dataclasses import dataclass

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from proposals import services
from proposals.models import Cluster, OutgoingMail, Preferences, Proposal
from proposals.wizard.steps import STEPS
from tests.e2e.test_input_trust import retype, settled
from tests.factories import PASSWORD, StaffUserFactory

NNBSP = "\u202f"  # CLDR's French group mark, a narrow no-break space


@dataclass(frozen=True)
class Person:
    format: str  # the CLDR locale the browser's language gives at sign-up
    typed: dict  # the figures as the person types them
    shown: dict  # the figures as the person must read them


def _typed(hours, tb, walltime, throughput):
    return {"hours": hours, "tb": tb, "walltime": walltime, "throughput": throughput}


def _shown(hours, tb, speedup, throughput, walltime):
    return {
        "hours": hours,
        "tb": tb,
        "speedup": speedup,
        "throughput": throughput,
        "walltime": walltime,
    }


# 18,176 GPU-hours, 0.75 TB out, a job plan of 32 GPUs x 56.8 h x 10 jobs (18,176
# GPU-hours), and throughputs 1,200.5 / 2,280 / 4,225 (speedup 1.90 at 8 GPUs).
PEOPLE = {
    "de-DE": Person(
        "de_DE",
        _typed("18.176", "0,75", "56,8", "1.200,5"),
        _shown("18.176", "0,75", "1,90x", "1.200,5", "56,8"),
    ),
    "fr-FR": Person(
        "fr_FR",
        _typed("18 176", "0,75", "56,8", "1 200,5"),
        _shown(f"18{NNBSP}176", "0,75", "1,90x", f"1{NNBSP}200,5", "56,8"),
    ),
    "de-CH": Person(
        "de_CH",
        _typed("18\u2019176", "0.75", "56.8", "1\u2019200.5"),
        _shown("18'176", "0.75", "1.90x", "1'200.5", "56.8"),
    ),
    "it-IT": Person(
        "it_IT",
        _typed("18.176", "0,75", "56,8", "1.200,5"),
        _shown("18.176", "0,75", "1,90x", "1.200,5", "56,8"),
    ),
    "en-GB": Person(
        "en_GB",
        _typed("18,176", "0.75", "56.8", "1,200.5"),
        _shown("18,176", "0.75", "1.90x", "1,200.5", "56.8"),
    ),
}
# The chart's throughput axis (ticks every 2,000 samples/s) as each person reads it;
# kept apart from the figures above, which must not appear on a page in another
# convention (guides' figures such as "1,000 CPU-hours" are quoted as written).
TWO_THOUSAND = {
    "de-DE": "2.000",
    "fr-FR": f"2{NNBSP}000",
    "de-CH": "2'000",
    "it-IT": "2.000",
    "en-GB": "2,000",
}
MEASUREMENTS = [("4", "throughput"), ("8", "2280"), ("16", "4225")]
PASSPHRASE = "a-long-unusual-passphrase"
# The portal text each person copied, by locale: identical for all five.
PORTAL_TEXTS: dict[str, list[str]] = {}


def foreign(locale: str) -> set[str]:
    """Our figures as the other conventions print them (never on this person's
    pages, the portal text aside)."""
    own = set(PEOPLE[locale].shown.values())
    return {
        figure
        for person in PEOPLE.values()
        for figure in person.shown.values()
        if figure not in own
    }


def page_figures_text(page: Page) -> str:
    """The main area's text without the portal text (which keeps the portal's form)."""
    return page.evaluate(
        """() => {
            const main = document.querySelector('#main').cloneNode(true);
            main.querySelectorAll('pre, .portal-text, textarea, input, script')
                .forEach(node => node.remove());
            return main.textContent;
        }"""
    )


def type_in(page: Page, selector: str, text: str):
    retype(page, selector, text)
    settled(page)


def add_row(page: Page, kind: str) -> str:
    rows = page.locator(f"tr[id^='{kind}-']")
    before = rows.count()
    page.get_by_test_id(f"add-{kind}").click()
    expect(rows).to_have_count(before + 1)
    return rows.nth(before).get_attribute("id")


def sign_up(page: Page, base: str, username: str):
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.eu")
    page.fill("#id_password1", PASSPHRASE)
    page.fill("#id_password2", PASSPHRASE)
    page.locator("#main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/sent/$"))
    sent = [m for m in mail.outbox if m.to == [f"{username}@example.eu"]]
    link = re.search(r"https?://\S+", sent[-1].body).group(0)
    page.goto(link)
    page.locator("#main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/start/$"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", list(PEOPLE))
def test_five_people_type_and_read_their_own_figures_and_paste_the_same(
    browser, live_server, e2e_catalogue, locale
):
    person, base = PEOPLE[locale], live_server.url
    shown, typed, others = person.shown, person.typed, foreign(locale)
    headers = {"Accept-Language": f"{locale},{locale.split('-')[0]};q=0.9"}
    context = browser.new_context(locale=locale, extra_http_headers=headers)
    page = context.new_page()
    username = f"person-{locale.lower()}"
    sign_up(page, base, username)
    # The browser's convention became the person's (shown and kept in Settings).
    assert Preferences.objects.get(user__username=username).number_format == (
        person.format
    )

    page.goto(f"{base}/proposals/new/")
    page.fill("#id_title", "Same figures everywhere")
    page.select_option("#id_system", value=str(Cluster.objects.get(slug="lumi-g").pk))
    page.locator("#main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/proposals/\d+/"))
    proposal = Proposal.objects.get(owner__username=username)
    steps = f"{base}/proposals/{proposal.pk}"

    page.goto(f"{steps}/selection/")
    type_in(page, "#id_total_gpu_hours", typed["hours"])
    type_in(page, "#id_max_gpus_per_job", "32")
    type_in(page, "#id_transfer_out_tb", typed["tb"])
    expect(page.get_by_test_id("requested-hours")).not_to_be_empty()
    assert page.get_by_test_id("requested-hours").inner_text() == shown["hours"]

    page.goto(f"{steps}/scalability/")
    page.wait_for_load_state("load")
    row = add_row(page, "jobs")
    page.fill(f"#{row} input[name$='-title']", "Training")
    type_in(page, f"#{row} input[name$='-gpus']", "32")
    type_in(page, f"#{row} input[name$='-hours']", typed["walltime"])
    type_in(page, f"#{row} input[name$='-count']", "10")
    for gpus, throughput in MEASUREMENTS:
        row = add_row(page, "measurements")
        type_in(page, f"#{row} input[name$='-gpus']", gpus)
        text = typed["throughput"] if throughput == "throughput" else throughput
        type_in(page, f"#{row} input[name$='-throughput']", text)
    expect(page.get_by_test_id("jobs-total")).not_to_be_empty()
    assert page.get_by_test_id("jobs-total").inner_text() == shown["hours"]
    table = page.get_by_test_id("scaling-table")
    expect(table).to_contain_text(shown["speedup"])
    assert shown["throughput"] in table.inner_text()

    # The chart (an image of its own URL) is labelled in the person's format too.
    chart = page.get_by_test_id("scaling-chart").locator("img")
    expect(chart).to_have_attribute("src", re.compile(r"\.svg$"))
    svg = page.request.get(base + chart.get_attribute("src")).text()
    assert TWO_THOUSAND[locale] in svg
    assert not [
        t for t in set(TWO_THOUSAND.values()) - {TWO_THOUSAND[locale]} if t in svg
    ]

    # What was typed is what was stored, whoever typed it.
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 18176
    assert str(proposal.transfer_out_tb) == "0.75"
    job = proposal.jobs.get()
    assert (job.gpus, str(job.hours), job.count) == (32, "56.80", 10)
    assert sorted(float(m.throughput) for m in proposal.measurements.all()) == [
        1200.5,
        2280,
        4225,
    ]

    # Every step: the sidebar's figures in the person's form, and none of the
    # figures in another convention anywhere on the page.
    for step in STEPS:
        page.goto(f"{steps}/{step.slug}/")
        expect(page.get_by_test_id("requested-hours")).not_to_be_empty()
        assert page.get_by_test_id("requested-hours").inner_text() == shown["hours"]
        text = page_figures_text(page)
        wrong = sorted(figure for figure in others if figure in text)
        assert not wrong, f"{locale}, step {step.slug}: {wrong}"
    page.goto(f"{steps}/selection/")
    expect(page.locator("#id_transfer_out_tb")).to_have_value(shown["tb"])
    page.goto(f"{steps}/scalability/")
    expect(page.locator("input[name$='-hours']")).to_have_value(shown["walltime"])

    # The portal text: the portal's form, the same for all five.
    page.goto(f"{steps}/export/")
    portal = page.locator("pre.portal-text").all_inner_texts()
    assert portal and "18,176" in "\n".join(portal)
    for other, text in PORTAL_TEXTS.items():
        assert portal == text, f"{locale}'s portal text differs from {other}'s"
    PORTAL_TEXTS[locale] = portal

    # Sent for review: a help-desk colleague with the same convention reads the
    # figures on the staff page and in the e-mail.
    staff = StaffUserFactory(email=f"staff-{locale.lower()}@example.eu")
    services.preferences_set(user=staff, number_format=person.format)
    page.goto(f"{steps}/submission/send/")
    page.locator("form[action$='/submission/send/'] button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/submission/$"))
    body = OutgoingMail.objects.get(to=staff.email).body
    assert f"{shown['hours']} GPU-hours" in body
    assert not [figure for figure in others if figure in body]

    context.close()
    context = browser.new_context(locale=locale, extra_http_headers=headers)
    staff_page = context.new_page()
    staff_page.goto(f"{base}/accounts/login/")
    staff_page.fill("#id_username", staff.username)
    staff_page.fill("#id_password", PASSWORD)
    staff_page.locator("#main form button[type=submit]").click()
    expect(staff_page).not_to_have_url(re.compile(r"/accounts/login/"))
    staff_page.goto(f"{base}/staff/review/{proposal.pk}/")
    expect(staff_page.get_by_test_id("job-plan-table")).to_contain_text(shown["hours"])
    review_table = staff_page.get_by_test_id("scaling-table-review").first
    expect(review_table).to_contain_text(shown["speedup"])
    assert shown["throughput"] in review_table.inner_text()
    text = page_figures_text(staff_page)
    wrong = sorted(figure for figure in others if figure in text)
    assert not wrong, f"{locale}, staff page: {wrong}"
    context.close()
