"""A queue that says what is owed today (issue 23): endings out of the default view,
a deleted proposal shown as withdrawn with no mail that leads to a 404, the
"waiting for us / for the applicant / late" filters, several statuses at once, a
marker for activity since the handler last opened it, and an invalid filter value
that is reported while the other filters still apply."""

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from proposals import services
from proposals.models import OutgoingMail, Proposal, ReviewState, StatusChange
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db
S = Proposal.Status
READY_ANYWAY = "The open findings are known limits, fine for this call."


def titles(page: str, proposals) -> set[str]:
    return {p.title for p in proposals if p.title in page}


def queue(client, **params) -> str:
    response = client.get(reverse("proposals:review_queue"), params)
    assert response.status_code == 200
    return response.text


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def test_staff_close_with_a_reason_and_endings_leave_the_default_view(
    staff_client, staff_user, submitted
):
    url = reverse("proposals:staff_set_status", args=[submitted.pk])
    refused = staff_client.post(url, {"to_status": S.CLOSED, "note": " "}, follow=True)
    assert "Give the reason for closing the proposal." in refused.text
    submitted.refresh_from_db()
    assert submitted.status == S.SUBMITTED
    assert submitted.title in queue(staff_client)

    staff_client.post(url, {"to_status": S.CLOSED, "note": "Duplicate of #12."})
    submitted.refresh_from_db()
    assert submitted.status == S.CLOSED
    change = StatusChange.objects.filter(proposal=submitted).last()
    assert (change.to_status, change.note, change.by) == (
        S.CLOSED,
        "Duplicate of #12.",
        staff_user,
    )
    assert submitted.title not in queue(staff_client)
    assert submitted.title in queue(staff_client, show="ended")
    assert submitted.title in queue(staff_client, status=S.CLOSED)
    page = staff_client.get(reverse("proposals:staff_review", args=[submitted.pk]))
    assert 'data-testid="ended"' in page.text and "Duplicate of #12." in page.text
    # The applicant reads that the review is over, and why.
    staff_client.force_login(submitted.owner)
    status = staff_client.get(reverse("proposals:review_status", args=[submitted.pk]))
    assert "closed the review" in status.text and "Duplicate of #12." in status.text


def test_a_ready_proposal_is_recorded_as_submitted_to_the_portal(
    staff_client, submitted, staff_user
):
    services.review_set_status(
        proposal=submitted, user=staff_user, to_status=S.READY, note=READY_ANYWAY
    )
    staff_client.post(
        reverse("proposals:staff_set_status", args=[submitted.pk]),
        {"to_status": S.SUBMITTED_TO_PORTAL},
    )
    submitted.refresh_from_db()
    assert submitted.status == S.SUBMITTED_TO_PORTAL
    assert submitted.title in queue(staff_client, show="ended")
    assert submitted.title not in queue(staff_client, show="open")


def test_a_proposal_deleted_after_review_is_withdrawn_and_never_mailed_about(
    client, user, staff_user, submitted, django_capture_on_commit_callbacks
):
    client.force_login(user)
    OutgoingMail.objects.all().delete()  # the submission's
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("proposals:delete", args=[submitted.pk]))
    told = OutgoingMail.objects.get()  # the staff, with a link that answers
    assert (told.to, told.subject) == (
        staff_user.email,
        f"{submitted.title}: withdrawn by the applicant",
    )
    assert f"/staff/review/{submitted.pk}/" in told.body
    submitted.refresh_from_db()
    assert submitted.deleted_at is not None
    assert submitted.status == S.WITHDRAWN
    change = StatusChange.objects.filter(proposal=submitted).last()
    assert (change.from_status, change.by) == (S.SUBMITTED, user)

    client.force_login(staff_user)
    queue(client)  # shows, and so clears, the applicant's "deleted" message
    assert submitted.title not in queue(client)  # not "longest waiting" any more
    ended = queue(client, show="ended")
    assert submitted.title in ended
    assert (
        "Withdrawn by the applicant" in ended and 'data-testid="queue-deleted"' in ended
    )

    # A staff comment on it, or a status change, mails nobody a link that 404s.
    OutgoingMail.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("proposals:staff_comment", args=[submitted.pk]),
            {"section": "general", "body": "Noted, thanks."},
        )
    assert not OutgoingMail.objects.exists()
    assert mail.outbox == []
    client.force_login(user)
    status_page = client.get(reverse("proposals:review_status", args=[submitted.pk]))
    assert status_page.status_code == 404  # which is why nothing links there


def test_waiting_for_us_is_the_default_and_the_applicant_has_its_own_view(
    staff_client, catalogue
):
    proposals = queue_rows(6)  # submitted, changes requested, ready, in turn
    ours = [p for p in proposals if p.status == S.SUBMITTED]
    theirs = [p for p in proposals if p.status != S.SUBMITTED]
    default = queue(staff_client)
    assert titles(default, proposals) == {p.title for p in ours}
    applicant = queue(staff_client, show="applicant")
    assert titles(applicant, proposals) == {p.title for p in theirs}
    everything = queue(staff_client, show="all")
    assert titles(everything, proposals) == {p.title for p in proposals}


def test_several_statuses_at_once(staff_client, catalogue):
    proposals = queue_rows(6)
    page = staff_client.get(
        reverse("proposals:review_queue") + "?status=submitted&status=ready"
    ).text
    assert titles(page, proposals) == {
        p.title for p in proposals if p.status in (S.SUBMITTED, S.READY)
    }


def test_late_only(staff_client, settings, catalogue):
    settings.HOLIDAY_COUNTRY = ""
    proposals = queue_rows(9)  # tiers: playground x3, fast lane x3, large scale x3
    long_ago = timezone.now() - timedelta(days=21)
    for proposal in proposals:
        ReviewState.objects.filter(proposal=proposal).update(submitted_at=long_ago)
    fresh = proposals[0]  # playground, submitted: sent just now
    ReviewState.objects.filter(proposal=fresh).update(submitted_at=timezone.now())
    late = queue(staff_client, late="on", show="all")
    # Rows 0, 3 and 6 wait for us (playground, fast lane, large scale). Row 0 was
    # sent just now; row 3 waited 15 working days against about 4: late. Large
    # Scale has no typical answer time ("none"), so row 6 is never late.
    expected = {
        p.title for p in proposals[1:6] if p.status == S.SUBMITTED and p is not fresh
    }
    assert expected and titles(late, proposals) == expected
    large = [p for p in proposals[6:] if p.status == S.SUBMITTED]
    assert large and not titles(late, large)
    page = queue(staff_client, q=large[0].title)
    assert 'data-testid="queue-typical">none<' in page
    # Every call mode's response time is listed with its source, or "none".
    listed = page.split('data-testid="response-times"', 1)[1].split("</details>")[0]
    assert "Fast Lane</strong>: about 4 working days" in listed
    assert "Large Scale</strong>: none" in listed and "two cut-offs" in listed
    assert "AI for Science" in listed and "Typical call terms" in listed


def test_an_invalid_filter_value_is_reported_and_the_others_kept(
    staff_client, catalogue
):
    proposals = queue_rows(6)
    page = queue(staff_client, show="all", tier="gigantic", q=proposals[4].title)
    assert 'data-testid="queue-filter-problem"' in page
    assert "Requested tier" in page
    assert page.count('data-testid="queue-row"') == 1
    assert f">{proposals[4].title}</a>" in page
    # Proposal 1 waits for the applicant; the invalid status is ignored, so the
    # default view (waiting for us) applies and the search still does.
    assert proposals[1].status == S.CHANGES_REQUESTED
    weird = queue(staff_client, status="archived", q=proposals[1].title)
    assert "Statuses" in weird and 'data-testid="queue-filter-problem"' in weird
    assert weird.count('data-testid="queue-row"') == 0
    kept = queue(staff_client, status="archived", q=proposals[0].title)
    assert kept.count('data-testid="queue-row"') == 1


def test_marker_for_activity_since_the_handler_last_opened_it(
    client, staff_user, user, submitted
):
    services.review_assign(proposal=submitted, user=staff_user, to=staff_user)
    client.force_login(staff_user)
    review = reverse("proposals:staff_review", args=[submitted.pk])
    assert 'data-testid="queue-new-activity"' in queue(client)  # never opened
    client.get(review)
    assert 'data-testid="queue-new-activity"' not in queue(client)
    services.comment_add(
        proposal=submitted, author=user, section="general", body="A question"
    )
    assert 'data-testid="queue-new-activity"' in queue(client)
    client.get(review)
    assert 'data-testid="queue-new-activity"' not in queue(client)


def test_the_migration_marks_proposals_deleted_under_review_as_withdrawn(submitted):
    from django.apps import apps

    migration = __import__(
        "proposals.migrations.0022_review_endings", fromlist=["forwards"]
    )
    # Deleted before this change: still "submitted for review", no activity time.
    Proposal.objects.filter(pk=submitted.pk).update(deleted_at=timezone.now())
    ReviewState.objects.filter(proposal=submitted).update(last_activity_at=None)
    migration.forwards(apps, None)
    submitted.refresh_from_db()
    assert submitted.status == S.WITHDRAWN
    change = StatusChange.objects.filter(proposal=submitted).last()
    assert (change.from_status, change.to_status) == (S.SUBMITTED, S.WITHDRAWN)
    state = ReviewState.objects.get(proposal=submitted)
    assert state.last_activity_at == state.status_changed_at
