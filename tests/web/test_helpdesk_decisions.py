"""Decisions with guards (issue 23): no decision on one's own proposal, "Ready"
with open errors and "Changes requested" need a note, "Take" of a colleague's
proposal asks first and tells them, and a stale status change says who changed
what."""

import pytest
from django.core import mail
from django.urls import reverse

from proposals import services
from proposals.models import (
    OutgoingMail,
    Proposal,
    ReviewState,
    StatusChange,
    TechnicalAssessment,
)
from tests.factories import CodeEntryFactory, ProposalFactory, StaffUserFactory
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db
S = Proposal.Status


def set_status(client, proposal, **data):
    return client.post(
        reverse("proposals:staff_set_status", args=[proposal.pk]), data, follow=True
    )


@pytest.fixture
def own_proposal(staff_user, second_staff, django_capture_on_commit_callbacks):
    """A proposal that a staff member wrote and sent for review themselves."""
    proposal = ProposalFactory(owner=staff_user, title="My own GPU request")
    CodeEntryFactory(proposal=proposal, position=0)
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=proposal, user=staff_user)
    proposal.refresh_from_db()
    return proposal


def test_no_decision_on_ones_own_proposal(
    client, staff_user, second_staff, own_proposal
):
    assert own_proposal.review_state.latest_revision.error_count > 0
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[own_proposal.pk]))
    # Issue 31: the review page itself is closed to them, saying why.
    assert page.status_code == 403 and "conflict of interest" in page.text
    assert 'name="to_status"' not in page.text and "Record assessment" not in page.text

    answer = set_status(client, own_proposal, to_status=S.READY, note="All good")
    assert "conflict of interest" in answer.text
    own_proposal.refresh_from_db()
    assert own_proposal.status == S.SUBMITTED
    with pytest.raises(services.ReviewError, match="conflict of interest"):
        services.review_assess(
            proposal=own_proposal,
            user=staff_user,
            revision=own_proposal.review_state.latest_revision,
            outcome="feasible",
            items=[],
        )
    assert not TechnicalAssessment.objects.exists()
    with pytest.raises(services.ReviewError, match="conflict of interest"):
        services.review_assign(proposal=own_proposal, user=staff_user, to=staff_user)
    with pytest.raises(services.ReviewError, match="conflict of interest"):
        services.review_assign(proposal=own_proposal, user=second_staff, to=staff_user)

    # A colleague decides.
    client.force_login(second_staff)
    set_status(client, own_proposal, to_status=S.READY, note="Known limits, fine.")
    own_proposal.refresh_from_db()
    assert own_proposal.status == S.READY


def test_ready_with_open_errors_needs_a_reason(client, staff_user, submitted):
    errors = submitted.review_state.latest_revision.error_count
    assert errors > 0
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    assert f"“ready to submit” (revision 1 has {errors} error finding" in page
    refused = set_status(client, submitted, to_status=S.READY, note="")
    assert f"has {errors} open error finding" in refused.text
    submitted.refresh_from_db()
    assert submitted.status == S.SUBMITTED
    set_status(client, submitted, to_status=S.READY, note="Waived: known limits.")
    submitted.refresh_from_db()
    assert submitted.status == S.READY
    change = StatusChange.objects.filter(proposal=submitted).last()
    assert change.note == "Waived: known limits."


def test_ready_without_errors_needs_no_note(staff_user, catalogue):
    clean = queue_rows(1)[0]
    assert ReviewState.objects.get(proposal=clean).latest_revision.error_count == 0
    services.review_set_status(proposal=clean, user=staff_user, to_status=S.READY)
    clean.refresh_from_db()
    assert clean.status == S.READY


def test_changes_requested_needs_a_note(client, staff_user, submitted):
    client.force_login(staff_user)
    refused = set_status(client, submitted, to_status=S.CHANGES_REQUESTED, note="  ")
    assert "Say what should change" in refused.text
    submitted.refresh_from_db()
    assert submitted.status == S.SUBMITTED
    set_status(client, submitted, to_status=S.CHANGES_REQUESTED, note="Add a plan.")
    submitted.refresh_from_db()
    assert submitted.status == S.CHANGES_REQUESTED


def test_taking_a_colleagues_proposal_asks_first_and_tells_them(
    client, staff_user, second_staff, submitted, django_capture_on_commit_callbacks
):
    services.review_assign(proposal=submitted, user=second_staff, to=second_staff)
    client.force_login(staff_user)
    review = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    assert f"Take it over from {second_staff.username}" in review
    assign = reverse("proposals:staff_assign", args=[submitted.pk])
    asked = client.post(assign, {"action": "take"})
    assert asked.status_code == 409
    assert f"{second_staff.username} handles this proposal" in asked.text
    assert ReviewState.objects.get(proposal=submitted).handled_by == second_staff

    # Confirmed, naming the colleague seen: taken, and the colleague is told.
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(
            assign, {"action": "take", "expected_handler": second_staff.pk}
        )
    assert done.status_code == 302
    assert ReviewState.objects.get(proposal=submitted).handled_by == staff_user
    told = OutgoingMail.objects.get(
        to=second_staff.email, subject__contains="taken over by"
    )
    assert staff_user.username in told.subject
    assert f"/staff/review/{submitted.pk}/" in told.body


def test_a_confirmation_for_another_handler_asks_again(
    client, staff_user, second_staff, submitted
):
    third = type(staff_user).objects.create(username="third", email="t@example.eu")
    services.review_assign(proposal=submitted, user=second_staff, to=second_staff)
    client.force_login(staff_user)
    asked = client.post(
        reverse("proposals:staff_assign", args=[submitted.pk]),
        {"action": "take", "expected_handler": third.pk},
    )
    assert asked.status_code == 409
    assert ReviewState.objects.get(proposal=submitted).handled_by == second_staff


def test_a_stale_status_change_says_who_changed_what(
    client, staff_user, second_staff, submitted
):
    # staff_user's page shows "Submitted for review"; meanwhile a colleague acts.
    services.review_set_status(
        proposal=submitted,
        user=second_staff,
        to_status=S.CHANGES_REQUESTED,
        note="Add a job plan.",
    )
    client.force_login(staff_user)
    # "Ready" is not offered from "changes requested": the message says why.
    answer = set_status(
        client, submitted, to_status=S.READY, note="ok", from_status=S.SUBMITTED
    )
    expected = (
        f"{second_staff.username} changed the status from \u201cSubmitted for "
        "review\u201d to \u201cChanges requested\u201d"
    )
    assert expected in answer.text
    # A move still allowed from the new status is refused all the same.
    services.review_submit(proposal=submitted, user=submitted.owner, unchanged_ok=True)
    services.review_set_status(
        proposal=submitted, user=second_staff, to_status=S.READY, note="Fine."
    )
    before = StatusChange.objects.filter(proposal=submitted).count()
    answer = set_status(
        client,
        submitted,
        to_status=S.CLOSED,
        note="Duplicate",
        from_status=S.SUBMITTED,
    )
    assert (
        "changed the status from \u201cSubmitted for review\u201d to \u201cReady"
        in (answer.text)
    )
    assert StatusChange.objects.filter(proposal=submitted).count() == before


def test_handing_on_a_colleagues_proposal_tells_them_too(
    staff_user, second_staff, submitted, django_capture_on_commit_callbacks
):
    third = StaffUserFactory()
    services.review_assign(proposal=submitted, user=second_staff, to=second_staff)
    OutgoingMail.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        services.review_assign(proposal=submitted, user=staff_user, to=third)
    subjects = dict(OutgoingMail.objects.values_list("to", "subject"))
    assert subjects == {
        third.email: f"{submitted.title}: handed over to you",
        second_staff.email: f"{submitted.title}: handed to {third.username}",
    }
    OutgoingMail.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        services.review_assign(proposal=submitted, user=staff_user, to=None)
    assert dict(OutgoingMail.objects.values_list("to", "subject")) == {
        third.email: f"{submitted.title}: released"
    }
