"""Every number a person reads is printed in their format (the totals, the
findings, the pages); the exports keep the portal's form; times are shown in the
person's zone with its name, in their locale's form."""

import csv
import html
import io
import json
import re
import zipfile
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from proposals import localization, services
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME
from proposals.models import OutgoingMail
from tests.factories import StaffUserFactory
from tests.web.test_wizard import HX, selection_data, step_url

pytestmark = pytest.mark.django_db


def _section(page: str, start: str) -> str:
    return page.split(start, 1)[1].split("</section>", 1)[0]


def _typed(client, proposal, text):
    return client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, total_gpu_hours=text),
        headers=HX,
    ).content.decode()


def test_a_german_person_sees_5001_as_5_001_in_totals_and_findings(
    user, user_client, proposal
):
    services.preferences_set(user=user, number_format="de_DE")
    answer = _typed(user_client, proposal, "5,001")  # read as five thousand one
    assert "Read as 5.001 GPU-hours" in answer
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    totals = _section(page, 'id="live-totals"')
    assert "5.001" in totals and "5,001" not in totals
    # The help quoting the tier bounds, and every other figure on the page.
    assert "5.001 to 50.000 GPU-hours is Fast Lane" in page
    assert "5,001" not in page and "50,000" not in page


def test_an_english_person_sees_the_same_figures_with_commas(
    user, user_client, proposal
):
    services.preferences_set(user=user, number_format="en_GB")
    _typed(user_client, proposal, "5,001")
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    assert "5,001" in _section(page, 'id="live-totals"')
    assert "5,001 to 50,000 GPU-hours is Fast Lane" in page


def test_a_swiss_person_types_and_reads_apostrophes(user, user_client, proposal):
    services.preferences_set(user=user, number_format="de_CH")
    answer = _typed(user_client, proposal, "18\u2019176")
    assert "Not saved" not in answer
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 18176
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    totals = _section(page, 'id="live-totals"')
    assert "18'176" not in totals  # escaped (&#39;: the sidebar is Jinja2's)
    assert "18'176" in html.unescape(totals)


def test_exports_keep_the_portal_form_whoever_reads_them(user, user_client, proposal):
    services.preferences_set(user=user, number_format="de_DE")
    _typed(user_client, proposal, "18.176")
    portal = user_client.get(
        reverse("proposals:export_portal", args=[proposal.pk])
    ).content.decode()
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    for text in (portal, markdown):
        assert "18,176" in text or "18176" in text
        assert "18.176" not in text


def test_times_are_shown_in_the_persons_zone_with_its_name(user):
    services.preferences_set(
        user=user, number_format="de_DE", time_zone="Europe/Helsinki"
    )
    winter = datetime(2026, 12, 3, 13, 5, tzinfo=UTC)
    summer = datetime(2026, 7, 3, 13, 5, tzinfo=UTC)
    with localization.for_recipient(user):
        assert localization.when(winter) == "03.12.2026, 15:05 EET"
        assert localization.when(summer) == "03.07.2026, 16:05 EEST"
    services.preferences_set(user=user, number_format="en_GB", time_zone="")
    with localization.for_recipient(user):
        # The zone kept (an empty choice changes only the number format).
        assert localization.when(winter) == "3 Dec 2026, 15:05 EET"
    # The portal's English (the default format, "en") writes British dates.
    assert localization.when(winter) == "3 Dec 2026, 14:05 CET"


def test_unknown_preferences_are_refused(user):
    with pytest.raises(ValueError):
        services.preferences_set(user=user, number_format="xx_YY")
    with pytest.raises(ValueError):
        services.preferences_set(user=user, number_format="de", time_zone="Mars/X")
    assert "de_CH" in NUMBER_FORMAT_BY_NAME and "xx_YY" not in NUMBER_FORMAT_BY_NAME


def test_each_mail_recipient_reads_figures_in_their_own_format(
    user, proposal, django_capture_on_commit_callbacks
):
    german = StaffUserFactory(email="helga@example.eu")
    swiss = StaffUserFactory(email="urs@example.eu")
    services.preferences_set(user=german, number_format="de_DE")
    services.preferences_set(user=swiss, number_format="de_CH")
    proposal.total_gpu_hours = 18176
    proposal.save()
    services.review_submit(proposal=proposal, user=user)
    bodies = {
        mail.to: mail.body
        for mail in OutgoingMail.objects.filter(subject__startswith="Review needed")
    }
    assert "18.176 GPU-hours" in bodies["helga@example.eu"]
    assert "18'176 GPU-hours" in bodies["urs@example.eu"]


@pytest.mark.parametrize(
    ("name", "delimiter", "hours"),
    [("de_DE", ";", "4000,5"), ("fr_FR", ";", "4000,5"), ("en_GB", ",", "4000.5")],
)
def test_queue_csv_follows_the_readers_spreadsheet_convention(
    client, staff_user, user, applicant_proposal, name, delimiter, hours
):
    services.preferences_set(user=staff_user, number_format=name)
    applicant_proposal.total_gpu_hours = Decimal("4000.5")
    applicant_proposal.save()
    services.review_submit(proposal=applicant_proposal, user=user)
    client.force_login(staff_user)
    text = client.get(reverse("proposals:review_queue_csv")).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    assert rows[0][7] == "GPU-hours" and rows[1][7] == hours


def test_staff_review_page_in_the_staff_format_with_the_portal_text_plain(
    client, staff_user, user, applicant_proposal
):
    services.preferences_set(user=staff_user, number_format="de_DE")
    applicant_proposal.total_gpu_hours = Decimal("18176")
    applicant_proposal.save()
    services.review_submit(proposal=applicant_proposal, user=user)
    client.force_login(staff_user)
    page = client.get(
        reverse("proposals:staff_review", args=[applicant_proposal.pk])
    ).content.decode()
    sidebar = page.split('data-testid="requested-hours">', 1)[1].split("<", 1)[0]
    assert sidebar == "18.176"
    portal = "".join(
        re.findall(r'<pre class="portal-text[^>]*>(.*?)</pre>', page, re.S)
    )
    assert "18,176" in portal and "18.176" not in portal


def test_the_data_export_holds_both_preferences(user, user_client):
    services.preferences_set(
        user=user, number_format="de_CH", time_zone="Europe/Zurich"
    )
    archive = zipfile.ZipFile(
        io.BytesIO(user_client.get(reverse("account_data")).content)
    )
    account = json.loads(archive.read("account.json"))["account"]
    assert (account["number_format"], account["time_zone"]) == (
        "de_CH",
        "Europe/Zurich",
    )
