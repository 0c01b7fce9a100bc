"""Operators see the queue's stuck and failed tasks (issue 33) where they already see
the workers: ``manage.py task_workers`` and the admin's **Task workers**."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from aifactory.models import TaskWorker
from proposals.services.exports import render_pdf_export
from proposals.services.mail import deliver_mail

pytestmark = pytest.mark.django_db

STUCK_AFTER = timedelta(minutes=5)


@pytest.fixture(autouse=True)
def stuck_after(settings):
    settings.TASK_STUCK_AFTER = STUCK_AFTER
    settings.TASK_WORKER_LOST_AFTER = timedelta(minutes=2)


def _queued(task, waited: timedelta, *args, **changes) -> str:
    pk = task.enqueue(*args).id
    DBTaskResult.objects.filter(pk=pk).update(
        enqueued_at=timezone.now() - waited, **changes
    )
    return str(pk)


@pytest.fixture
def queue():
    """A deadline: two PDFs waiting too long, one just queued, a failed mail."""
    now = timezone.now()
    return {
        "stuck": [
            _queued(render_pdf_export, timedelta(minutes=12), 1),
            _queued(render_pdf_export, timedelta(minutes=6), 2),
        ],
        "fresh": _queued(render_pdf_export, timedelta(seconds=30), 3),
        "failed": _queued(
            deliver_mail,
            timedelta(hours=1),
            4,
            status="FAILED",
            finished_at=now - timedelta(minutes=50),
            exception_class_path="smtplib.SMTPAuthenticationError",
        ),
    }


def _alive_worker():
    now = timezone.now()
    TaskWorker.objects.create(
        worker_id="w1", hostname="h", pid=1, started_at=now, seen_at=now
    )


def test_task_workers_shows_the_queue_its_stuck_and_failed_tasks(queue):
    _alive_worker()  # slow, not stopped: no failure to report
    out = StringIO()
    call_command("task_workers", stdout=out)
    lines = out.getvalue().splitlines()
    [waiting] = [line for line in lines if line.startswith("Waiting tasks:")]
    assert waiting.startswith("Waiting tasks: 3 (oldest waited 72")
    [pdfs] = [line for line in lines if line.startswith("  render_pdf_export")]
    assert "waiting 3 (oldest 72" in pdfs and "failed 0" in pdfs
    assert "Stuck tasks (waiting over 300 s): 2" in lines
    stuck = [
        line
        for line in lines
        if line.startswith(tuple(f"  {pk}" for pk in queue["stuck"]))
    ]
    assert [line.split()[0] for line in stuck] == queue["stuck"]  # longest first
    assert not any(queue["fresh"] in line for line in lines)
    assert "Failed tasks: 1" in lines
    [failed] = [line for line in lines if line.startswith(f"  {queue['failed']}")]
    assert "deliver_mail" in failed and failed.endswith("SMTPAuthenticationError")


def test_task_workers_exits_1_while_tasks_are_stuck_and_no_worker_lives(queue):
    with pytest.raises(CommandError, match="2 task.* waiting longer than 300 s and no"):
        call_command("task_workers", stdout=StringIO())
    _alive_worker()
    call_command("task_workers", stdout=StringIO())


def test_the_admin_shows_the_queue_its_stuck_and_failed_tasks(client, queue):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    page = client.get(reverse("admin:aifactory_taskworker_changelist")).content.decode()
    assert '<table id="task-queue">' in page
    assert "<td>render_pdf_export</td>" in page and "<td>deliver_mail</td>" in page
    assert "2 tasks waiting longer than 5\xa0minutes for a worker" in page
    for pk in queue["stuck"]:
        link = reverse("admin:django_tasks_database_dbtaskresult_change", args=[pk])
        assert f'<a href="{link}">render_pdf_export</a>' in page
    assert "waiting for 12\xa0minutes" in page
    fresh = reverse(
        "admin:django_tasks_database_dbtaskresult_change", args=[queue["fresh"]]
    )
    assert fresh not in page
    assert "1 failed task" in page
    link = reverse(
        "admin:django_tasks_database_dbtaskresult_change", args=[queue["failed"]]
    )
    assert f'<a href="{link}">deliver_mail</a>' in page
    assert "SMTPAuthenticationError" in page
