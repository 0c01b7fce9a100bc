"""Who hears of a technical assessment (issue 34): the applicant's team when it
asks or limits anything of them (what and where), the desk when it is internal."""

import pytest
from django.core import mail
from django.urls import reverse

from proposals.domain import technical_review as tr

pytestmark = pytest.mark.django_db


def record(client, proposal, capture, run_tasks, **data):
    url = reverse("proposals:staff_assess", args=[proposal.pk])
    with capture(execute=True):
        response = client.post(url, {"action": "record", **data})
    run_tasks()
    assert response.status_code == 302
    return response


def test_an_assessment_with_a_condition_mails_the_applicant_what_and_where(
    client,
    user,
    staff_user,
    second_staff,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    client.force_login(staff_user)
    record(
        client,
        submitted,
        django_capture_on_commit_callbacks,
        run_tasks,
        outcome=tr.FEASIBLE_WITH_CONDITIONS,
        text="Fits the Fast Lane profile.",
        **{
            "decision-5": tr.CONDITION,
            "reason-5": "Describe the optimisation plan at kick-off.",
            "decision-0": tr.WAIVED,
            "reason-0": "No storage needed beyond home.",
        },
    )
    assert [m.to for m in mail.outbox] == [[user.email]]
    body = mail.outbox[0].body
    assert "Feasible with conditions" in mail.outbox[0].subject
    assert "OPT-1 (Optimisation" in body  # what, and where it points
    assert "Describe the optimisation plan at kick-off." in body
    assert "No storage needed beyond home." not in body  # waivers are internal
    assert reverse("proposals:review_status", args=[submitted.pk]) in body


def test_an_internal_assessment_mails_the_desk_not_the_applicant(
    client,
    user,
    staff_user,
    second_staff,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    client.force_login(staff_user)
    record(
        client,
        submitted,
        django_capture_on_commit_callbacks,
        run_tasks,
        outcome=tr.FEASIBLE,
        **{"decision-0": tr.WAIVED, "reason-0": "No storage needed beyond home."},
    )
    # The colleague hears of it; the applicant and the assessor do not.
    assert [m.to for m in mail.outbox] == [[second_staff.email]]
    assert "(internal)" in mail.outbox[0].subject
    assert staff_user.get_username() in mail.outbox[0].body
    assert reverse("proposals:staff_review", args=[submitted.pk]) in (
        mail.outbox[0].body
    )


def test_which_assessments_concern_the_applicant():
    waived = [{"decision": tr.WAIVED}]
    assert not tr.concerns_applicant(tr.FEASIBLE, waived)
    assert not tr.concerns_applicant(tr.FEASIBLE, [])
    assert tr.concerns_applicant(tr.NOT_FEASIBLE, waived)
    assert tr.concerns_applicant(tr.FEASIBLE, [{"decision": tr.CONDITION}])
    assert tr.concerns_applicant(tr.FEASIBLE, [{"decision": tr.CHANGE_REQUEST}])
