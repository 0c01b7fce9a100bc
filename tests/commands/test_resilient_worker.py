"""The worker's outage handling in one process (aifactory/worker.py): the doubling,
capped wait and its log lines, and a task whose outcome the outage swallowed runs
again once the database is back. The real outage is in test_worker_outage.py."""

import logging

import pytest
from django.core import mail
from django.db import OperationalError
from django_tasks_db.models import DBTaskResult

from aifactory import worker as worker_module
from aifactory.worker import ResilientWorker
from proposals.models import OutgoingMail
from proposals.notifications import Mail
from proposals.services.mail import mail_queue

LOCMEM = "django.core.mail.backends.locmem.EmailBackend"


def _worker(**kwargs) -> ResilientWorker:
    return ResilientWorker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="outage-test",
        excluded_queue_names=[],
        **kwargs,
    )


def test_the_wait_doubles_up_to_the_cap_and_logs_each_failure_and_the_recovery(
    monkeypatch, caplog
):
    worker = _worker(retry_delay=1, max_retry_delay=5)
    sleeps = []
    monkeypatch.setattr(worker_module.time, "sleep", sleeps.append)
    answers = iter([False, False, False, False, True])

    def probe():
        if not next(answers):
            raise OperationalError("connection refused")

    monkeypatch.setattr(worker, "probe", probe)
    monkeypatch.setattr(worker, "close_connections", lambda: None)
    with caplog.at_level(logging.WARNING, logger="aifactory.worker"):
        worker.wait_for_database(OperationalError("server closed the connection"))
    assert sleeps == [1, 2, 4, 5, 5]
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 6
    assert messages[0].startswith("Database unavailable (attempt 1 failed: ")
    assert "server closed the connection" in messages[0]
    assert "connection refused" in messages[4] and "again in 5 s" in messages[4]
    assert messages[5].startswith("Database reachable again after")
    assert "(5 failed attempts)" in messages[5]


def test_the_worker_goes_on_polling_after_the_database_came_back(monkeypatch, caplog):
    """``run`` survives a database error from the polling loop and polls again."""
    worker = _worker()
    calls = []

    def upstream_run(self):
        calls.append("run")
        if len(calls) == 1:
            raise OperationalError("could not connect to server")

    monkeypatch.setattr(worker_module.Worker, "run", upstream_run)
    monkeypatch.setattr(worker, "wait_for_database", lambda exc: calls.append(exc))
    worker.run()
    assert calls[0] == "run" and isinstance(calls[1], OperationalError)
    assert calls[2] == "run"


@pytest.mark.django_db(transaction=True)
def test_a_task_the_outage_interrupted_runs_again(settings, monkeypatch, catalogue):
    """The database went away while a mail was being sent: neither the mail's
    update nor the task's failure could be stored. Once the database is back the
    task is ready again and the mail goes out."""
    settings.EMAIL_BACKEND = LOCMEM
    [queued] = mail_queue(mails=[Mail("a@example.org", "Hello", "Body")])
    result = DBTaskResult.objects.get()
    result.claim("outage-test")
    worker = _worker()

    def down(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    with monkeypatch.context() as patch:
        patch.setattr(
            "proposals.services.mail.mail_deliver", down
        )  # the task's own query
        patch.setattr(DBTaskResult, "set_failed", down)  # recording the failure
        with pytest.raises(OperationalError):
            worker.run_task(result)
    assert worker.interrupted == [result.pk]
    assert DBTaskResult.objects.get().status == "RUNNING"

    worker.requeue_interrupted()
    assert worker.interrupted == []
    assert DBTaskResult.objects.get().status == "READY"
    worker.run()  # batch mode: runs what is ready, then returns
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"
    queued.refresh_from_db()
    assert queued.status == OutgoingMail.Status.SENT
    assert [m.subject for m in mail.outbox] == ["Hello"]


def test_a_database_that_fails_again_while_requeueing_is_waited_for_again(
    monkeypatch,
):
    worker = _worker()
    calls = []

    def requeue():
        calls.append("requeue")
        if calls.count("requeue") == 1:
            raise OperationalError("the database system is starting up")

    monkeypatch.setattr(worker, "requeue_interrupted", requeue)
    monkeypatch.setattr(worker_module.Worker, "run", lambda self: calls.append("run"))
    monkeypatch.setattr(worker, "wait_for_database", lambda exc: calls.append("wait"))
    worker.run()
    assert calls == ["requeue", "wait", "requeue", "run"]
