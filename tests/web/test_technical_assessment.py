"""The technical assessment: outcome, checklist from the open findings, composed
change requests; part of the revision's record, shown to the applicant."""

import pytest
from django.core import mail
from django.urls import reverse

from proposals.domain import technical_review as tr
from proposals.models import Proposal, StatusChange, TechnicalAssessment

pytestmark = pytest.mark.django_db


def assess(client, proposal, **data):
    url = reverse("proposals:staff_assess", args=[proposal.pk])
    return client.post(url, data)


def test_checklist_is_prefilled_from_the_open_findings(client, staff_user, submitted):
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    findings = submitted.review_state.latest_revision.findings
    assert page.count('data-testid="checklist-item"') == len(findings) == 7
    assert "OPT-1" in page and "Optimisation" in page  # where it points, by label
    checklist = page.split('data-testid="checklist"')[1].split("</table>")[0]
    assert "optimisation.narrative" not in checklist


def test_assess_with_conditions_is_recorded_and_shown_to_the_applicant(
    client, staff_user, user, submitted
):
    client.force_login(staff_user)
    response = assess(
        client,
        submitted,
        outcome=tr.FEASIBLE_WITH_CONDITIONS,
        text="Fits the Fast Lane profile.",
        action="record",
        **{
            # The checklist in findings order: SEL-1 storage is item 0; OPT-1, a
            # note in Playground, item 5.
            "decision-5": tr.CONDITION,
            "reason-5": "Describe the optimisation plan at kick-off.",
            "decision-0": tr.WAIVED,
            "reason-0": "No storage needed beyond home.",
        },
    )
    assert response.status_code == 302
    record = TechnicalAssessment.objects.get(proposal=submitted)
    assert record.outcome == tr.FEASIBLE_WITH_CONDITIONS
    assert record.revision.number == 1
    assert [i["code"] for i in record.conditions] == ["OPT-1"]
    assert [i["reason"] for i in record.waived] == ["No storage needed beyond home."]
    assert submitted.status == Proposal.Status.SUBMITTED  # recording moves nothing
    client.force_login(user)
    page = client.get(reverse("proposals:review_status", args=[submitted.pk])).text
    assert "Feasible with conditions" in page
    assert "Describe the optimisation plan at kick-off." in page
    assert "No storage needed beyond home." not in page  # waivers are internal


@pytest.mark.parametrize(
    "data,place",
    [
        ({"action": "record"}, "Choose the outcome"),
        (
            {"outcome": tr.FEASIBLE, "decision-1": tr.WAIVED, "action": "record"},
            "Say why this finding can be waived",
        ),
        (
            {"outcome": tr.FEASIBLE_WITH_CONDITIONS, "action": "record"},
            "Accept a finding as a condition or add a condition of your own",
        ),
        (
            {"outcome": tr.NOT_FEASIBLE, "action": "request_changes"},
            "Choose at least one finding to ask a change for",
        ),
    ],
)
def test_bad_assessments_are_refused_with_a_message(
    client, staff_user, submitted, data, place
):
    client.force_login(staff_user)
    response = assess(client, submitted, **data)
    assert response.status_code == 422
    assert place in response.text
    assert not TechnicalAssessment.objects.exists()
    assert StatusChange.objects.filter(proposal=submitted).count() == 1


def test_request_changes_composes_the_note_from_the_chosen_findings(
    client, staff_user, user, submitted, django_capture_on_commit_callbacks, run_tasks
):
    client.force_login(staff_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = assess(
            client,
            submitted,
            outcome=tr.NOT_FEASIBLE,
            action="request_changes",
            text="Two things to fix.",
            # OPT-1 (item 5) and CODE-6 (item 3).
            **{"decision-5": tr.CHANGE_REQUEST, "decision-3": tr.CHANGE_REQUEST},
        )
    run_tasks()
    assert response.status_code == 302
    submitted.refresh_from_db()
    assert submitted.status == Proposal.Status.CHANGES_REQUESTED
    note = StatusChange.objects.filter(proposal=submitted).last().note
    assert "- OPT-1 (" in note and "- CODE-6 (" in note
    assert "SEL-1" not in note and note.endswith("Two things to fix.")
    assert [m.to for m in mail.outbox] == [[user.email]]
    assert "OPT-1" in mail.outbox[0].body


def test_change_request_note_unit():
    items = tr.with_decisions(
        tr.checklist(
            [{"code": "A-1", "message": "Fix a."}, {"code": "B-2", "message": "b"}],
            {0: "Total GPU-hours"},
        ),
        {0: (tr.CHANGE_REQUEST, ""), 1: (tr.CONDITION, "")},
    )
    note = tr.change_request_note(items, "")
    assert note.splitlines()[1] == "- A-1 (Total GPU-hours): Fix a."
    assert "Accepted as conditions" in note and "- B-2: b" in note


def test_the_outcome_is_in_the_staff_exports_only(
    client, staff_user, user, submitted, run_tasks
):
    client.force_login(staff_user)
    assess(
        client,
        submitted,
        outcome=tr.FEASIBLE_WITH_CONDITIONS,
        action="record",
        **{"decision-5": tr.CONDITION, "reason-5": "Plan due at kick-off"},  # OPT-1
    )
    heading = "Technical assessment (support staff)"
    for query in ("", "?revision=1"):
        url = reverse("proposals:export_markdown", args=[submitted.pk]) + query
        text = client.get(url).content.decode()
        assert heading in text and "Feasible with conditions (revision 1)" in text
        assert "OPT-1" in text.split(heading)[1]
        portal = reverse("proposals:export_portal", args=[submitted.pk]) + query
        assert heading in client.get(portal).text
    from tests.web.test_exports import get_pdf, pdf_text

    pdf_url = reverse("proposals:export_pdf", args=[submitted.pk]) + "?revision=1"
    pdf = get_pdf(client, pdf_url, run_tasks)

    assert any(heading in page for page in pdf_text(pdf.content))
    client.force_login(user)
    url = reverse("proposals:export_markdown", args=[submitted.pk])
    assert heading not in client.get(url).content.decode()
    # The owner's PDF of the same revision is their own, without the assessment;
    # the staff's stored copy is not theirs to fetch.
    owner_pdf = get_pdf(client, pdf_url, run_tasks)
    assert not any(heading in page for page in pdf_text(owner_pdf.content))
    from proposals.models import PdfExport

    staff_copy = PdfExport.objects.get(proposal=submitted, for_staff=True)
    file_url = reverse("proposals:export_pdf_file", args=[submitted.pk, staff_copy.pk])
    assert client.get(file_url).status_code == 404


def test_an_assessment_is_append_only(client, staff_user, submitted):
    from django.db import DatabaseError, transaction

    from proposals.models import ImmutableRecordError

    client.force_login(staff_user)
    assess(client, submitted, outcome=tr.FEASIBLE, action="record")
    record = TechnicalAssessment.objects.get()
    with pytest.raises(ImmutableRecordError):
        record.save()
    with pytest.raises(DatabaseError), transaction.atomic():
        TechnicalAssessment.objects.update(outcome=tr.NOT_FEASIBLE)
    assert TechnicalAssessment.objects.get().outcome == tr.FEASIBLE
