"""Expiry: delete what outlived its period in ``proposals.retention``
(``manage.py expire_stale``, run daily by a timer)."""

from axes.models import AccessAttempt, AccessLog
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from proposals import retention
from proposals.models import OutgoingMail

from .accounts import account_expire_unconfirmed
from .imports import pending_import_expire


def _expire_failed_logins(*, now) -> int:
    deleted, _ = AccessAttempt.objects.filter(
        attempt_time__lt=now - retention.login_lock()
    ).delete()
    return deleted


def _expire_login_records(*, now) -> int:
    deleted, _ = AccessLog.objects.filter(
        attempt_time__lt=now - retention.LOGIN_RECORDS
    ).delete()
    return deleted


def _expire_mail_log(*, now) -> int:
    # Only mails that are done with: a queued or retrying one is still to be sent.
    done = (OutgoingMail.Status.SENT, OutgoingMail.Status.FAILED)
    deleted, _ = (
        OutgoingMail.objects.filter(status__in=done)
        .filter(created_at__lt=now - retention.MAIL_LOG)
        .delete()
    )
    return deleted


def _expire_task_results(*, now) -> int:
    # Finished only: a task waiting for a worker or running is still to be done.
    deleted, _ = (
        DBTaskResult.objects.finished()
        .filter(finished_at__lt=now - retention.task_results())
        .delete()
    )
    return deleted


def _expire_sessions(*, now) -> int:
    # Django stores each session with its expiry date (SESSION_COOKIE_AGE after
    # its last change), like ``manage.py clearsessions``.
    deleted, _ = Session.objects.filter(expire_date__lt=now).delete()
    return deleted


_EXPIRE = {
    "unconfirmed_signups": account_expire_unconfirmed,
    "pending_imports": pending_import_expire,
    "failed_logins": _expire_failed_logins,
    "login_records": _expire_login_records,
    "mail_log": _expire_mail_log,
    "task_results": _expire_task_results,
    "sessions": _expire_sessions,
}


@transaction.atomic
def stale_data_expire(*, now=None) -> dict[str, int]:
    """Delete every kind of data in ``retention.expiring()`` that is older than its
    period; how many of each, by the period's key."""
    now = now or timezone.now()
    return {period.key: _EXPIRE[period.key](now=now) for period in retention.expiring()}
