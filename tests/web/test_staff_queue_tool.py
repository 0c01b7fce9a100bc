"""The queue as a tool: working days waited and lateness, who handles what (take,
hand over, release, "mine"), mails to the handler, and the CSV export."""

import csv
import io
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from proposals import services
from proposals.models import ReviewState
from proposals.queue_csv import neutralise
from tests.factories import StaffUserFactory

pytestmark = pytest.mark.django_db


def queue(client, **params):
    return client.get(reverse("proposals:review_queue"), params).text


def test_queue_shows_working_days_and_highlights_late(
    client, settings, staff_user, submitted
):
    settings.HOLIDAY_COUNTRY = ""  # weekends only, whatever the date of the run
    assert submitted.review_state.latest_revision.tier == "playground"
    client.force_login(staff_user)
    page = queue(client)
    assert "0 days</time>" in page and 'data-testid="queue-typical">about 2<' in page
    assert 'data-testid="overdue"' not in page
    ReviewState.objects.filter(proposal=submitted).update(
        submitted_at=timezone.now() - timedelta(days=14)
    )
    page = queue(client)
    assert "10 days</time>" in page
    assert 'data-testid="overdue"' in page and 'data-overdue="true"' in page


def test_take_hand_over_release_and_mine(
    client, staff_user, second_staff, submitted, django_capture_on_commit_callbacks
):
    client.force_login(staff_user)
    assign = reverse("proposals:staff_assign", args=[submitted.pk])
    client.post(assign, {"action": "take"})
    assert ReviewState.objects.get(proposal=submitted).handled_by == staff_user
    assert submitted.title in queue(client, handler="mine")
    assert submitted.title not in queue(client, handler="nobody")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(assign, {"action": "hand_over", "to": second_staff.pk})
    assert ReviewState.objects.get(proposal=submitted).handled_by == second_staff
    assert submitted.title not in queue(client, handler="mine")
    client.post(assign, {"action": "release"})
    assert ReviewState.objects.get(proposal=submitted).handled_by is None
    assert submitted.title in queue(client, handler="nobody")


def test_hand_over_only_to_staff(client, staff_user, other_user, submitted):
    client.force_login(staff_user)
    assign = reverse("proposals:staff_assign", args=[submitted.pk])
    client.post(assign, {"action": "hand_over", "to": other_user.pk})
    assert ReviewState.objects.get(proposal=submitted).handled_by is None
    with pytest.raises(services.ReviewError):
        services.review_assign(proposal=submitted, user=staff_user, to=other_user)


def test_mails_go_to_the_handler(
    staff_user,
    second_staff,
    user,
    submitted,
    run_tasks,
    django_capture_on_commit_callbacks,
):
    StaffUserFactory()  # a third staff member who must not be mailed
    with django_capture_on_commit_callbacks(execute=True):
        services.review_assign(proposal=submitted, user=staff_user, to=second_staff)
    run_tasks()
    assert [m.to for m in mail.outbox] == [[second_staff.email]]
    assert "handed over to you" in mail.outbox[0].subject
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.comment_add(
            proposal=submitted, author=user, section="general", body="A question"
        )
        services.review_set_status(
            proposal=submitted,
            user=staff_user,
            to_status="changes_requested",
            note="Please add a job plan.",
        )
        services.review_submit(proposal=submitted, user=user, unchanged_ok=True)
    run_tasks()
    to_staff = [m.to for m in mail.outbox if m.to != [user.email]]
    assert to_staff == [[second_staff.email], [second_staff.email]]


def test_csv_export_follows_the_filters_and_neutralises_formulas(
    client, settings, staff_user, submitted
):
    type(submitted).objects.filter(pk=submitted.pk).update(
        title='=HYPERLINK("http://x")', organisation_name="@SUM(A1)"
    )
    client.force_login(staff_user)
    response = client.get(reverse("proposals:review_queue_csv"))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    # A byte-order mark first, so that Excel reads the file as UTF-8.
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][0] == "Proposal" and "Working days waited" in rows[0]
    link = f"{settings.SITE_URL}/staff/review/{submitted.pk}/"
    assert rows[0][-1] == "Link" and rows[1][-1] == link
    assert rows[1][0] == '\'=HYPERLINK("http://x")'
    assert rows[1][1] == "'@SUM(A1)"
    assert rows[1][4] == "r1" and rows[1][7] == "4000"
    empty = client.get(reverse("proposals:review_queue_csv"), {"status": "ready"})
    assert len(list(csv.reader(io.StringIO(empty.content.decode("utf-8-sig"))))) == 1


@pytest.mark.parametrize(
    "value,expected",
    [("=1+2", "'=1+2"), ("+1", "'+1"), ("-1", "'-1"), ("@x", "'@x"), ("ok", "ok")],
)
def test_neutralise(value, expected):
    assert neutralise(value) == expected
