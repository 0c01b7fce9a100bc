"""Cut-off reminders (issue 38): the team of a draft not yet sent for review is
mailed 14 and 3 days before its route's next cut-off, once each, through the task
worker, in each person's zone; a member who switched the proposal's mail off is not."""

import io
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps
from django.core import mail
from django.core.management import call_command

from proposals import services
from proposals.domain.router import REMINDER_DAYS
from proposals.models import AccessRoute, Cutoff, CutoffReminder, Preferences
from tests.factories import ProposalFactory, UserFactory

_routes = __import__("proposals.migrations.0040_routes", fromlist=["load"])
CUTOFF = datetime(2027, 3, 30, 10, tzinfo=ZoneInfo("Europe/Brussels"))


@pytest.fixture
def science_draft(catalogue, user):
    _routes.load_routes(apps, None)
    route = AccessRoute.objects.get(slug="ai-for-science")
    Cutoff.objects.create(
        route=route,
        date=CUTOFF.date(),
        time=CUTOFF.time(),
        zone="Europe/Brussels",
        source="test",
        checked=date(2026, 12, 5),
    )
    return ProposalFactory(owner=user, call_family="ai_for_science")


def days_before(n, hour=8):
    day = CUTOFF.date() - timedelta(days=n)
    return datetime.combine(day, time(hour), ZoneInfo("Europe/Brussels"))


def run_reminders(now, run_tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        sent = services.cutoff_reminders_send(now=now)
    run_tasks()
    return sent


def test_reminders_go_once_at_each_distance(
    science_draft, user, run_tasks, django_capture_on_commit_callbacks
):
    far, near = max(REMINDER_DAYS), min(REMINDER_DAYS)
    steps = [far + 1, far, far - 1, near, near - 1]
    sent = {}
    for n in steps:
        mail.outbox.clear()
        sent[n] = run_reminders(
            days_before(n), run_tasks, django_capture_on_commit_callbacks
        )
        if sent[n]:
            (message,) = mail.outbox
            assert message.to == [user.email]
            assert f"in {n} days" in message.subject
    assert sent == {far + 1: 0, far: 1, far - 1: 0, near: 1, near - 1: 0}
    assert sorted(
        CutoffReminder.objects.values_list("days_before", flat=True)
    ) == sorted(REMINDER_DAYS)


def test_the_mail_reads_the_cut_off_in_the_recipients_zone(
    science_draft, user, run_tasks, django_capture_on_commit_callbacks
):
    Preferences.objects.update_or_create(
        user=user, defaults={"time_zone": "Europe/Helsinki"}
    )
    run_reminders(
        days_before(min(REMINDER_DAYS)), run_tasks, django_capture_on_commit_callbacks
    )
    (message,) = mail.outbox
    local = CUTOFF.astimezone(ZoneInfo("Europe/Helsinki"))
    assert f"{local:%H:%M} {local.tzname()}" in message.body  # 11:00 EEST


def test_a_muted_member_and_a_sent_draft_get_nothing(
    science_draft, user, run_tasks, django_capture_on_commit_callbacks
):
    services.team_notifications_set(proposal=science_draft, user=user, on=False)
    run_reminders(
        days_before(min(REMINDER_DAYS)), run_tasks, django_capture_on_commit_callbacks
    )
    assert mail.outbox == []

    other = ProposalFactory(owner=UserFactory(), call_family="ai_for_science")
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=other, user=other.owner)
    run_tasks()
    mail.outbox.clear()
    run_reminders(
        days_before(min(REMINDER_DAYS)), run_tasks, django_capture_on_commit_callbacks
    )
    assert not [m for m in mail.outbox if other.owner.email in m.to]


def test_the_command_queues_the_task_for_the_worker(
    science_draft, user, run_tasks, django_capture_on_commit_callbacks, monkeypatch
):
    from proposals.services import routes

    monkeypatch.setattr(routes.timezone, "now", lambda: days_before(max(REMINDER_DAYS)))
    call_command("remind_cutoffs", stdout=io.StringIO())
    assert mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True):
        assert run_tasks() == 1
    run_tasks()
    (message,) = mail.outbox
    assert science_draft.title in message.subject
