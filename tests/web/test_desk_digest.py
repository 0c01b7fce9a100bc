"""The staff's daily digest (issue 34): offered in the desk settings, sent through
the task worker once per working day at the person's hour in their zone, listing
what arrived or changed since their last digest (not theirs, not conflicted)."""

import io
import types
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.urls import reverse

from proposals import services
from proposals.models import OutgoingMail, Preferences, ReviewState, StaffDigest
from tests.factories import CodeEntryFactory, ProposalFactory

pytestmark = pytest.mark.django_db
HELSINKI = ZoneInfo("Europe/Helsinki")


def at(day, hour, minute=0):
    """A moment of March 2027 in Helsinki (1 March is a Monday)."""
    return datetime(2027, 3, day, hour, minute, tzinfo=HELSINKI)


def send(user, title, when, organisation="Example Lab"):
    proposal = ProposalFactory(owner=user, title=title, organisation_name=organisation)
    CodeEntryFactory(proposal=proposal, position=0)
    services.review_submit(proposal=proposal, user=user)
    ReviewState.objects.filter(proposal=proposal).update(
        submitted_at=when, status_changed_at=when, last_activity_at=None
    )
    return proposal


def digests(person):
    return list(
        OutgoingMail.objects.filter(to=person.email, subject__contains="Daily digest")
        .order_by("id")
        .values_list("subject", "body")
    )


@pytest.fixture
def reader(staff_user):
    services.staff_settings_set(
        user=staff_user, holiday_calendar="FI", staff_mail="digest", digest_hour=9
    )
    Preferences.objects.filter(user=staff_user).update(time_zone="Europe/Helsinki")
    return staff_user


def test_the_settings_offer_the_digest_and_its_hour(client, staff_user):
    client.force_login(staff_user)
    url = reverse("proposals:staff_settings")
    assert 'value="digest"' in client.get(url).text
    client.post(url, {"holiday_calendar": "", "staff_mail": "digest", "digest_hour": 7})
    prefs = Preferences.objects.get(user=staff_user)
    assert (prefs.staff_mail, prefs.digest_hour) == ("digest", 7)


def test_once_per_working_day_at_their_hour_with_what_came_since(user, reader):
    send(user, "Old news", at(1, 8) - timedelta(days=3))
    send(user, "Sunday arrival", at(1, 8) - timedelta(hours=12))
    mine = send(user, "Mine already", at(1, 8))
    services.review_assign(proposal=mine, user=reader, to=reader)
    send(user, "Rival's", at(1, 8), organisation="Rival AI Oy")
    services.staff_conflict_declare(user=reader, organisation="Rival AI")

    assert services.staff_digests_send(now=at(1, 8, 59)) == 0  # before 9 in Helsinki
    assert services.staff_digests_send(now=at(1, 9, 5)) == 1
    assert services.staff_digests_send(now=at(1, 17)) == 0  # once a day
    ((subject, body),) = digests(reader)
    assert subject == "Daily digest: 1 new proposal, 0 changed"
    assert "Sunday arrival" in body
    for left_out in ("Old news", "Mine already", "Rival's"):
        assert left_out not in body

    # Tuesday: a new one, and a status change on an older one.
    send(user, "Tuesday arrival", at(2, 7))
    ReviewState.objects.filter(proposal__title="Old news").update(
        status_changed_at=at(1, 15)
    )
    assert services.staff_digests_send(now=at(2, 9)) == 1
    subject, body = digests(reader)[-1]
    assert subject == "Daily digest: 1 new proposal, 1 changed"
    assert "Tuesday arrival" in body and "Old news" in body
    assert "Sunday arrival" not in body  # told on Monday already


def test_no_digest_on_weekends_holidays_nor_when_nothing_happened(user, reader):
    send(user, "Friday arrival", at(5, 12))
    assert services.staff_digests_send(now=at(6, 10)) == 0  # Saturday
    assert not StaffDigest.objects.exists()
    # Monday: it comes with what arrived on Friday... and nothing on Tuesday.
    assert services.staff_digests_send(now=at(8, 10)) == 1
    assert services.staff_digests_send(now=at(9, 10)) == 0
    assert StaffDigest.objects.filter(day=at(9, 10).date(), arrived=0).exists()
    # Good Friday 2027 (26 March) is a Finnish public holiday.
    assert services.staff_digests_send(now=at(26, 10)) == 0


def test_the_command_queues_the_worker_task(user, reader, run_tasks, monkeypatch):
    send(user, "Queued through the worker", at(3, 8))
    clock = types.SimpleNamespace(now=lambda: at(3, 9, 30))
    monkeypatch.setattr("proposals.services.desk.timezone", clock)
    out = io.StringIO()
    call_command("send_digests", stdout=out)
    assert out.getvalue().startswith("queued ")
    run_tasks()
    assert "Queued through the worker" in digests(reader)[0][1]
