"""Held-out check of issue 25 (figures and dates as each person reads them): cases the
builders' tests do not cover, each written from the point of view of a person from
one locale reading what another person typed or sent."""

import csv
import html
import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from proposals import domain, localization, notifications, services
from proposals.domain import numbers, technical_review
from proposals.models import OutgoingMail, StatusChange
from tests.factories import PASSWORD, StaffUserFactory
from tests.web.conftest import EXAMPLES

pytestmark = pytest.mark.django_db
NNBSP = "\u202f"


def _checklist(page: str) -> str:
    table = page.split('data-testid="checklist"', 1)[1].split("</table>", 1)[0]
    text = re.sub(r"<[^>]+>", " ", table)
    return html.unescape(re.sub(r"[ \t\r\n]+", " ", text))


def test_findings_a_german_applicant_sent_are_read_in_the_staffs_own_format(
    client, user, user_client, applicant_proposal
):
    """The German applicant sends from a German page; an English and a Swiss
    member of staff each read the revision's findings in their own format (not the
    sender's ``18.176``, which reads as eighteen to them)."""
    services.preferences_set(user=user, number_format="de_DE")
    applicant_proposal.total_gpu_hours = Decimal("18176")
    applicant_proposal.save()
    sent = user_client.post(
        reverse("proposals:review_send", args=[applicant_proposal.pk]), {"note": ""}
    )
    assert sent.status_code == 302
    # The record keeps the portal's form, whoever sent it.
    recorded = applicant_proposal.review_state.latest_revision.findings
    assert any(f["message"].startswith("18,176 GPU-hours") for f in recorded)
    for name, expected in (("en_GB", "18,176"), ("de_CH", "18'176")):
        staff = StaffUserFactory()
        services.preferences_set(user=staff, number_format=name)
        client.force_login(staff)
        page = client.get(
            reverse("proposals:staff_review", args=[applicant_proposal.pk])
        ).content.decode()
        checklist = _checklist(page)
        assert f"{expected} GPU-hours is a Fast Lane request" in checklist, checklist
        assert "18.176" not in checklist


def test_a_change_request_reaches_the_applicant_in_the_applicants_format(
    client, user, user_client, applicant_proposal, staff_user
):
    """The note "Request changes" composes from the findings goes to the applicant
    (status history, e-mail): in the applicant's format as it is now (they chose
    German after sending in English), not the sender's or the staff member's."""
    applicant_proposal.total_gpu_hours = Decimal("18176")
    applicant_proposal.save()
    user_client.post(
        reverse("proposals:review_send", args=[applicant_proposal.pk]), {"note": ""}
    )
    services.preferences_set(user=user, number_format="de_DE")
    services.preferences_set(user=staff_user, number_format="fr_FR")
    revision = applicant_proposal.review_state.latest_revision
    tier = next(i for i, f in enumerate(revision.findings) if f["code"] == "TIER-1")
    staff = Client()
    staff.force_login(staff_user)
    answer = staff.post(
        reverse("proposals:staff_assess", args=[applicant_proposal.pk]),
        {
            "outcome": technical_review.NOT_FEASIBLE,
            "action": "request_changes",
            f"decision-{tier}": technical_review.CHANGE_REQUEST,
        },
    )
    assert answer.status_code == 302
    note = StatusChange.objects.filter(proposal=applicant_proposal).last().note
    assert "18.176 GPU-hours is a Fast Lane request" in note, note
    body = OutgoingMail.objects.get(to=user.email).body
    assert "18.176 GPU-hours is a Fast Lane request" in body
    assert "18,176" not in body and f"18{NNBSP}176" not in body


def test_portal_text_markdown_and_json_are_the_same_whoever_reads_them(
    user, user_client
):
    """The LUMI example (18,176 GPU-hours, throughputs 1,200 to 4,225, 0.5 TB) read
    by five people: every byte meant for the portal or a file is the same."""
    text = (EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8")
    proposal = services.proposal_import(owner=user, document=domain.loads(text))
    seen = {}
    for name in ("de_DE", "fr_FR", "de_CH", "it_IT", "en_GB"):
        services.preferences_set(user=user, number_format=name)
        portal = user_client.get(
            reverse("proposals:export_portal", args=[proposal.pk])
        ).content.decode()
        seen[name] = (
            re.findall(r"<pre class=\"portal-text[^>]*>(.*?)</pre>", portal, re.S),
            user_client.get(
                reverse("proposals:export_markdown", args=[proposal.pk])
            ).content,
            user_client.get(
                reverse("proposals:export_json", args=[proposal.pk])
            ).content,
        )
    first = seen["de_DE"]
    assert first[0] and "18,176" in "".join(first[0])
    assert b"18,176" in first[1] and b"18.176" not in first[1]
    assert b'"total_gpu_hours": 18176' in first[2]
    for name, texts in seen.items():
        assert texts == first, name


@pytest.mark.parametrize(
    ("name", "delimiter", "hours"),
    [("it_IT", ";", "1234,5"), ("de_CH", ",", "1234.5"), ("fr_FR", ";", "1234,5")],
)
def test_staff_csv_opens_as_columns_for_an_italian_a_swiss_and_a_french_desk(
    client, staff_user, user, applicant_proposal, name, delimiter, hours
):
    """A title with the delimiter, a quote and accents in it: still one cell, the
    byte-order mark first, every row as wide as the header."""
    services.preferences_set(user=staff_user, number_format=name)
    applicant_proposal.title = 'Modèles "vision"; ré-entraînés, 2 étapes'
    applicant_proposal.total_gpu_hours = Decimal("1234.5")
    applicant_proposal.save()
    services.review_submit(proposal=applicant_proposal, user=user)
    client.force_login(staff_user)
    raw = client.get(reverse("proposals:review_queue_csv")).content
    assert raw.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=delimiter))
    assert len({len(row) for row in rows}) == 1 and len(rows) == 2
    assert rows[1][0] == applicant_proposal.title
    assert rows[1][rows[0].index("GPU-hours")] == hours


def test_a_stalled_pdf_tells_its_last_sign_of_life_in_the_persons_zone(
    user, user_client
):
    """A Finnish applicant in Helsinki reads when the renderer last beat in their
    own clock, with the zone named (not Brussels' clock, unnamed)."""
    from proposals.localization import when
    from tests.web.test_exports import load_demo
    from tests.web.test_pdf_stall import _rendering

    services.preferences_set(
        user=user, number_format="fi_FI", time_zone="Europe/Helsinki"
    )
    proposal = load_demo("playground", user)
    export = _rendering(
        proposal, started_ago=timedelta(seconds=45), beat_ago=timedelta(seconds=40)
    )
    page = user_client.get(
        reverse("proposals:export_pdf_status", args=[proposal.pk, export.pk])
    ).content.decode()
    beat = export.heartbeat_at
    with localization.activated(
        fmt=numbers.NUMBER_FORMAT_BY_NAME["fi_FI"],
        zone=localization.zone_named("Europe/Helsinki"),
    ):
        shown = when(beat)
    assert shown.endswith(("EET", "EEST")) and shown in html.unescape(page)


def test_findings_sent_from_a_german_page_are_recorded_in_english_and_read_in_each_language(
    client, user, user_client, applicant_proposal
):
    """The applicant reads German and sends; the record keeps the portal's English
    and form; a French member of staff reads the checklist in French, an English one
    in English (each in their own number format)."""
    services.preferences_set(user=user, number_format="de_DE", language="de")
    user_client.force_login(user)  # the session takes the chosen language
    applicant_proposal.total_gpu_hours = Decimal("18176")
    applicant_proposal.save()
    user_client.post(
        reverse("proposals:review_send", args=[applicant_proposal.pk]), {"note": ""}
    )
    recorded = applicant_proposal.review_state.latest_revision.findings
    tier = next(f["message"] for f in recorded if f["code"] == "TIER-1")
    assert tier.startswith("18,176 GPU-hours is a Fast Lane request")
    readers = {
        ("fr_FR", "fr"): f"18{NNBSP}176 heures GPU, c'est une demande",
        ("en_GB", "en-gb"): "18,176 GPU-hours is a Fast Lane request",
    }
    for (fmt, language), expected in readers.items():
        staff = StaffUserFactory()
        services.preferences_set(user=staff, number_format=fmt, language=language)
        reader = Client()
        reader.force_login(staff)
        page = reader.get(
            reverse("proposals:staff_review", args=[applicant_proposal.pk])
        ).content.decode()
        assert expected in _checklist(page), language


@pytest.mark.parametrize(
    ("browser", "english"), [("de-DE,de;q=0.9", False), ("pt-PT,pt;q=0.9", True)]
)
def test_a_person_who_follows_the_browser_gets_mails_in_the_pages_language(
    client, submitted, user, browser, english
):
    """Settings left at "as your browser asks": the pages are German for a German
    browser, and so are the mails (the language of the last sign-in); a Portuguese
    browser reads English pages, and English mails."""
    services.preferences_set(user=user, number_format="de_DE")
    answer = client.post(
        reverse("login"),
        {"username": user.username, "password": PASSWORD},
        HTTP_ACCEPT_LANGUAGE=browser,
    )
    assert answer.status_code == 302
    change = submitted.status_changes.order_by("-pk").first()
    with translation.override("fr"):  # whoever caused the mail
        body = notifications.status_to_applicant(change=change)[0].body
    assert ("See the comments and the history" in body) is english, body
