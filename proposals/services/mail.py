"""Outgoing mail: stored with the action, sent by the task worker, retried."""

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from proposals import selectors
from proposals.models import (
    OutgoingMail,
)

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------
# Outgoing mail: stored with the action, sent by the task worker, retried with backoff.
# --------------------------------------------------------------------------------------

RETRY_BASE_DELAY = timedelta(minutes=1)  # then 2, 4, 8 minutes between attempts


@task()
def deliver_mail(mail_id: int) -> str:
    """The worker's task (``manage.py db_worker``): send one stored e-mail."""
    return mail_deliver(mail_id=mail_id)


def _enqueue_delivery(mail_ids, *, delay: timedelta | None = None) -> None:
    task = deliver_mail
    if delay is not None:
        task = deliver_mail.using(run_after=timezone.now() + delay)
    for mail_id in mail_ids:
        task.enqueue(mail_id)


def _enqueue_after_commit(mail_ids) -> None:
    """Hand the mails to the worker once the action is committed. ``robust``: if even
    that fails, the action stands and the mails wait, queued, for a retry in the
    admin."""
    if mail_ids:
        transaction.on_commit(lambda: _enqueue_delivery(mail_ids), robust=True)


# Why the mails of the current context are stored but not sent (``mail_withheld``).
_withheld: ContextVar[str] = ContextVar("mail_withheld", default="")


@contextmanager
def mail_withheld(*, reason: str):
    """Within this block, every mail an action causes is stored as not sent, with
    ``reason``, and never handed to the worker (``load_demo``: a demo review must
    not mail anybody, the site's real staff included, through the site's relay)."""
    token = _withheld.set(reason)
    try:
        yield
    finally:
        _withheld.reset(token)


def mail_queue(*, mails, proposal=None) -> list[OutgoingMail]:
    """Store ``mails`` (``notifications.Mail``) in the caller's transaction and send
    them from the worker after the commit; the caller's action never waits for, or
    fails with, the mail server. An undeliverable mail is stored as such, with its
    reason, for staff to see under "Mail delivery"; it is not handed to the worker,
    nor is a mail withheld (``mail_withheld``)."""
    withheld = _withheld.get()
    stored = OutgoingMail.objects.bulk_create(
        OutgoingMail(
            to=mail.to,
            subject=mail.subject,
            body=mail.body,
            proposal=proposal,
            status=(
                OutgoingMail.Status.UNDELIVERABLE
                if mail.undeliverable or withheld
                else OutgoingMail.Status.QUEUED
            ),
            last_error=mail.undeliverable or withheld,
        )
        for mail in mails
    )
    _enqueue_after_commit(
        [mail.pk for mail in stored if mail.status == OutgoingMail.Status.QUEUED]
    )
    return stored


def mail_deliver(*, mail_id: int) -> str:
    """Send one stored mail (the worker's task). A failure is recorded on the mail and
    retried later with a doubling delay, up to ``OutgoingMail.MAX_ATTEMPTS`` attempts
    in all; then the mail is marked failed for staff to see and retry. The exception is
    raised again, so the task's own record shows the failure too.

    At least once: a worker killed while it talks to the relay records nothing (this
    transaction is rolled back, the mail stays queued) and its task goes back to the
    queue for the next worker (aifactory/worker.py), which sends the mail again, even
    when the relay had already accepted it."""
    error = None
    with transaction.atomic():
        mail = OutgoingMail.objects.select_for_update().filter(pk=mail_id).first()
        if mail is None or mail.status in (
            OutgoingMail.Status.SENT,
            OutgoingMail.Status.UNDELIVERABLE,
        ):
            return "nothing to send"
        mail.attempts += 1
        mail.last_attempt_at = timezone.now()
        message = EmailMessage(
            mail.subject, mail.body, settings.DEFAULT_FROM_EMAIL, [mail.to]
        )
        try:
            message.send()
        except Exception as exc:  # any backend error: SMTP, socket, TLS, DNS
            error = exc
            mail.last_error = f"{type(exc).__name__}: {exc}"[:2000]
            if mail.attempts < OutgoingMail.MAX_ATTEMPTS:
                mail.status = OutgoingMail.Status.RETRYING
                delay = RETRY_BASE_DELAY * 2 ** (mail.attempts - 1)
                _enqueue_delivery([mail.pk], delay=delay)
            else:
                mail.status = OutgoingMail.Status.FAILED
        else:
            mail.status = OutgoingMail.Status.SENT
            mail.sent_at = mail.last_attempt_at
        mail.save(
            update_fields=[
                "attempts",
                "last_attempt_at",
                "last_error",
                "status",
                "sent_at",
            ]
        )
    if error is not None:
        logger.warning("Mail %s to %s not sent: %s", mail.pk, mail.to, mail.last_error)
        raise error
    return mail.status


@transaction.atomic
def mail_retry(*, mails) -> int:
    """Staff's "retry": give every unsent mail in ``mails`` a fresh round of
    attempts, starting now. An undeliverable one is queued only once its address
    has been confirmed since. Returns how many were queued again."""
    unsent = list(
        mails.select_for_update()
        .exclude(status=OutgoingMail.Status.SENT)
        .values_list("pk", "status", "to")
    )
    confirmed = selectors.verified_addresses(
        addresses=[
            to
            for _, status, to in unsent
            if status == OutgoingMail.Status.UNDELIVERABLE
        ]
    )
    ids = [
        pk
        for pk, status, to in unsent
        if status != OutgoingMail.Status.UNDELIVERABLE or to in confirmed
    ]
    OutgoingMail.objects.filter(pk__in=ids).update(
        status=OutgoingMail.Status.QUEUED, attempts=0
    )
    _enqueue_after_commit(ids)
    return len(ids)
