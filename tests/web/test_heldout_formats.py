"""Held-out check of issue 25 (figures and dates as each person reads them): cases the
builders' tests do not cover, each written from the point of view of a person from
one locale reading what another person typed or sent."""

import html
import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from proposals import services
from proposals.domain import technical_review
from proposals.models import OutgoingMail, StatusChange
from tests.factories import StaffUserFactory

pytestmark = pytest.mark.django_db
NNBSP = "\u202f"


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
