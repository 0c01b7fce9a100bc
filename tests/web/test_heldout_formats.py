"""Held-out check of issue 25 (figures and dates as each person reads them): cases the
builders' tests do not cover, each written from the point of view of a person from
one locale reading what another person typed or sent."""

import html
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from proposals import services
from tests.factories import StaffUserFactory

pytestmark = pytest.mark.django_db


def _checklist(page: str) -> str:
    table = page.split('data-testid="checklist"', 1)[1].split("</table>", 1)[0]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", table)))


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
