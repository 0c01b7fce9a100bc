"""A mail server outage never breaks the user's action: e-mails are stored with the
action, sent by the task worker, retried with backoff and shown to staff when they
fail (finding 6 of issue 12)."""

import smtplib
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from proposals import notifications
from proposals.domain.workflow import SUBMITTED
from proposals.models import OutgoingMail, ProposalRevision

LOCMEM = "django.core.mail.backends.locmem.EmailBackend"


class DownBackend(BaseEmailBackend):
    """A mail server that refuses every connection."""

    def send_messages(self, email_messages):
        raise smtplib.SMTPConnectError(421, "mail.example.eu is down")


DOWN = f"{__name__}.DownBackend"


def _time_passes():
    """Make the scheduled retries due, as if their delay had passed."""
    DBTaskResult.objects.filter(status="READY", run_after__gt=timezone.now()).update(
        run_after=timezone.now() - timedelta(seconds=1)
    )


def _send_for_review(client, user, proposal, capture):
    client.force_login(user)
    with capture(execute=True):
        return client.post(
            reverse("proposals:review_send", args=[proposal.pk]), {"note": "Hi"}
        )


def test_send_for_review_succeeds_when_the_mail_server_is_down(
    client,
    settings,
    user,
    staff_user,
    applicant_proposal,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    settings.EMAIL_BACKEND = DOWN
    response = _send_for_review(
        client, user, applicant_proposal, django_capture_on_commit_callbacks
    )
    assert response.status_code == 302
    applicant_proposal.refresh_from_db()
    assert applicant_proposal.status == SUBMITTED
    assert ProposalRevision.objects.filter(proposal=applicant_proposal).count() == 1
    queued = OutgoingMail.objects.get()
    assert (queued.to, queued.status) == (staff_user.email, OutgoingMail.Status.QUEUED)

    # The worker's attempt fails: recorded on the mail and on the task, retry planned.
    assert run_tasks() == 1
    failed_task = DBTaskResult.objects.get(status="FAILED")
    assert failed_task.exception_class_path == "smtplib.SMTPConnectError"
    queued.refresh_from_db()
    assert queued.status == OutgoingMail.Status.RETRYING
    assert queued.attempts == 1
    assert "mail.example.eu is down" in queued.last_error
    assert mail.outbox == []
    retry = DBTaskResult.objects.get(status="READY")
    assert retry.run_after > timezone.now() + timedelta(seconds=50)
    assert run_tasks() == 0  # not due yet

    # The server is back; when the retry is due the worker sends the mail.
    settings.EMAIL_BACKEND = LOCMEM
    _time_passes()
    assert run_tasks() == 1
    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == (OutgoingMail.Status.SENT, 2)
    assert [m.to for m in mail.outbox] == [[staff_user.email]]
    assert "Vision model fine-tuning" in mail.outbox[0].subject
    assert queued.sent_at is not None
    assert run_tasks() == 0  # sent once, nothing left


def test_retries_are_bounded_with_growing_delays(
    settings, user, staff_user, applicant_proposal, run_tasks
):
    from proposals import notifications, services
    from proposals.services import mail as mail_services

    settings.EMAIL_BACKEND = DOWN
    (stored,) = services.mail_queue(
        mails=[notifications.Mail(staff_user.email, "Subject", "Body")]
    )
    mail_services._enqueue_delivery([stored.pk])  # what the commit would do
    delays = []
    for _ in range(OutgoingMail.MAX_ATTEMPTS):
        started = timezone.now()
        assert run_tasks() == 1
        upcoming = DBTaskResult.objects.filter(status="READY").first()
        if upcoming is not None:
            delays.append(round((upcoming.run_after - started).total_seconds() / 60))
        _time_passes()
    stored.refresh_from_db()
    assert (stored.status, stored.attempts) == (
        OutgoingMail.Status.FAILED,
        OutgoingMail.MAX_ATTEMPTS,
    )
    assert delays == [1, 2, 4, 8]
    assert run_tasks() == 0  # gave up: nothing scheduled any more
    assert DBTaskResult.objects.filter(status="FAILED").count() == 5


@pytest.fixture
def demo_staff(db, catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return User.objects.get(username="staff")


def test_staff_see_a_failed_mail_in_the_admin_and_retry_it(
    client,
    settings,
    demo_staff,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    from proposals import services

    settings.EMAIL_BACKEND = DOWN
    (stored,) = services.mail_queue(
        mails=[notifications.Mail("someone@example.eu", "Review due", "B")]
    )
    OutgoingMail.objects.filter(pk=stored.pk).update(
        status=OutgoingMail.Status.FAILED, attempts=5, last_error="SMTPConnectError"
    )
    # django-axes checks every login against the request it came with.
    assert client.login(
        request=RequestFactory().post("/admin/login/"),
        username="staff",
        password="aifactory-staff",
    )
    page = client.get(reverse("admin:proposals_outgoingmail_changelist"))
    assert page.status_code == 200
    assert "Mail delivery" in page.text
    assert "Failed (gave up)" in page.text and "someone@example.eu" in page.text
    # Read-only for them: no edit form, no delete.
    detail = client.get(
        reverse("admin:proposals_outgoingmail_change", args=[stored.pk])
    )
    assert 'name="body"' not in detail.text

    settings.EMAIL_BACKEND = LOCMEM
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:proposals_outgoingmail_changelist"),
            {"action": "retry", "_selected_action": [stored.pk]},
            follow=True,
        )
    assert "1 mail(s) queued again" in response.text
    stored.refresh_from_db()
    assert (stored.status, stored.attempts) == (OutgoingMail.Status.QUEUED, 0)
    assert run_tasks() == 1
    stored.refresh_from_db()
    assert stored.status == OutgoingMail.Status.SENT
    assert [m.subject for m in mail.outbox] == ["Review due"]


def test_demo_staff_is_not_a_superuser(demo_staff, catalogue):
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password("aifactory-admin")
    assert demo_staff.is_staff and not demo_staff.is_superuser
    assert demo_staff.groups.filter(name="Support staff").exists()
    assert demo_staff.has_perm("proposals.view_outgoingmail")
    assert not demo_staff.has_perm("proposals.change_proposal")
    assert not demo_staff.has_perm("proposals.change_cluster")
    # A database from before keeps its users but loses the superuser flag.
    User.objects.filter(pk=demo_staff.pk).update(is_superuser=True)
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    demo_staff.refresh_from_db()
    assert not demo_staff.is_superuser
    assert demo_staff.check_password("aifactory-staff")


@pytest.mark.django_db(transaction=True)
def test_the_db_worker_command_sends_what_a_committed_action_queued(
    client, settings, user, staff_user, applicant_proposal
):
    """End to end with real commits: the view's transaction commits, the mail is
    enqueued on commit, and ``manage.py db_worker --batch`` sends it."""
    import signal

    settings.EMAIL_BACKEND = LOCMEM
    client.force_login(user)
    url = reverse("proposals:review_send", args=[applicant_proposal.pk])
    response = client.post(url, {"note": "Hi"})
    assert response.status_code == 302
    assert OutgoingMail.objects.get().status == OutgoingMail.Status.QUEUED
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        call_command(
            "db_worker",
            "--batch",
            "--no-reload",
            "--no-startup-delay",
            "--interval=0",
            verbosity=0,
        )
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert OutgoingMail.objects.get().status == OutgoingMail.Status.SENT
    assert [m.to for m in mail.outbox] == [[staff_user.email]]
