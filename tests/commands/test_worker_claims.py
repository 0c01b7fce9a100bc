"""Lost workers' tasks go back to the queue (aifactory/worker.py, issue 30): the rule
that says a claim's worker is gone, the release of every kind of task, and the
worker's own heartbeat row. The real killed worker is in test_mail_worker_killed.py."""

import time
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from aifactory import worker as worker_module
from aifactory.models import TaskWorker
from aifactory.worker import (
    MAX_CLAIMS,
    ResilientWorker,
    claim_lost,
    release_lost_claims,
    task_claims,
)
from proposals.services.exports import render_pdf_export
from proposals.services.mail import deliver_mail

NOW = datetime(2026, 3, 14, 10, 0, tzinfo=UTC)
LOST_AFTER = timedelta(minutes=2)
SECOND = timedelta(seconds=1)


@pytest.fixture(autouse=True)
def lost_after(settings):
    settings.TASK_WORKER_LOST_AFTER = LOST_AFTER


def _worker(worker_id="w-new") -> ResilientWorker:
    return ResilientWorker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=worker_id,
        excluded_queue_names=[],
    )


@pytest.mark.parametrize(
    "claimed, started, seen, lost",
    [
        # A worker that stamps its row holds its task, however long the task runs.
        (NOW - timedelta(hours=1), NOW - timedelta(hours=2), NOW - 10 * SECOND, False),
        (NOW - timedelta(hours=1), NOW - timedelta(hours=2), NOW - LOST_AFTER, False),
        (
            NOW - timedelta(hours=1),
            NOW - timedelta(hours=2),
            NOW - LOST_AFTER - SECOND,
            True,
        ),
        # No row (stopped, forgotten, or a claim made before the heartbeat existed):
        # the claim itself is the last sign of life.
        (NOW - 10 * SECOND, None, None, False),
        (NOW - LOST_AFTER - SECOND, None, None, True),
        # A stale stamp, but the claim is newer: alive.
        (NOW - 10 * SECOND, NOW - timedelta(hours=1), NOW - LOST_AFTER * 3, False),
        # The worker id was taken by a process started after the claim: the
        # claiming process is gone, however fresh the row.
        (NOW - 10 * SECOND, NOW - 5 * SECOND, NOW, True),
    ],
)
def test_a_claim_is_lost_when_its_worker_has_not_been_seen_for_long(
    claimed, started, seen, lost
):
    assert (
        claim_lost(
            claimed_at=claimed,
            worker_started_at=started,
            worker_seen_at=seen,
            now=NOW,
        )
        is lost
    )


def _running(task, worker_id: str, claimed_at: datetime, *args, earlier=()):
    """A task claimed by ``worker_id`` at ``claimed_at`` (after ``earlier`` claims)."""
    result = DBTaskResult.objects.get(pk=task.enqueue(*args).id)
    DBTaskResult.objects.filter(pk=result.pk).update(
        status="RUNNING", started_at=claimed_at, worker_ids=[*earlier, worker_id]
    )
    return result.pk


def _row(worker_id: str, seen_at: datetime) -> TaskWorker:
    return TaskWorker.objects.create(
        worker_id=worker_id,
        hostname="h",
        pid=1,
        started_at=seen_at - timedelta(hours=1),
        seen_at=seen_at,
    )


def _status(pk) -> str:
    return DBTaskResult.objects.get(pk=pk).status


@pytest.mark.django_db
def test_the_tasks_of_lost_workers_go_back_to_the_queue_whatever_the_task():
    _row("alive", NOW - 10 * SECOND)
    _row("dead", NOW - LOST_AFTER - SECOND)
    claimed = NOW - timedelta(minutes=10)
    alive = _running(deliver_mail, "alive", claimed, 1)
    dead_mail = _running(deliver_mail, "dead", claimed, 2)
    dead_pdf = _running(render_pdf_export, "dead", claimed, 3)
    no_row = _running(render_pdf_export, "gone", claimed, 4)

    released = release_lost_claims(now=NOW)

    assert sorted(claim.task_name for claim in released) == [
        "deliver_mail",
        "render_pdf_export",
        "render_pdf_export",
    ]
    assert _status(alive) == "RUNNING"
    assert [_status(pk) for pk in (dead_mail, dead_pdf, no_row)] == ["READY"] * 3
    # Ready at once, for any worker; the claim history stays.
    ready = DBTaskResult.objects.ready().values_list("pk", flat=True)
    assert {dead_mail, dead_pdf, no_row} <= set(ready)
    assert DBTaskResult.objects.get(pk=dead_pdf).worker_ids == ["dead"]
    # The lost worker's row is forgotten; the live one's kept.
    assert list(TaskWorker.objects.values_list("worker_id", flat=True)) == ["alive"]
    assert release_lost_claims(now=NOW) == []


@pytest.mark.django_db
def test_a_task_claimed_again_meanwhile_is_left_to_its_new_worker(monkeypatch):
    claimed = NOW - timedelta(minutes=10)
    pk = _running(deliver_mail, "dead", claimed, 1)
    seen = task_claims(now=NOW)
    assert [claim.lost for claim in seen] == [True]
    # Another worker released and claimed it between the look and the release.
    _row("new", NOW)
    DBTaskResult.objects.filter(pk=pk).update(
        started_at=NOW, worker_ids=["dead", "new"]
    )
    monkeypatch.setattr(worker_module, "task_claims", lambda now: seen)
    assert release_lost_claims(now=NOW) == []
    assert _status(pk) == "RUNNING"


@pytest.mark.django_db
def test_a_task_that_lost_its_worker_too_often_is_marked_failed():
    earlier = [f"w{i}" for i in range(MAX_CLAIMS - 1)]
    pk = _running(
        render_pdf_export, "last", NOW - timedelta(minutes=10), 1, earlier=earlier
    )
    [claim] = release_lost_claims(now=NOW)
    assert claim.claims == MAX_CLAIMS
    result = DBTaskResult.objects.get(pk=pk)
    assert result.status == "FAILED"
    assert result.exception_class_path == "aifactory.worker.WorkerLost"
    assert result.finished_at == NOW


@pytest.mark.django_db
def test_a_worker_restarted_under_the_same_id_releases_its_predecessors_task():
    """systemd restarts a killed worker at once; with a fixed --worker-id its claim
    would otherwise look alive for as long as the new process stamps the row."""
    pk = _running(deliver_mail, "aifactory-worker-1", timezone.now() - SECOND, 1)
    worker = _worker("aifactory-worker-1")
    worker.beat()  # the first beat, at its start
    assert _status(pk) == "READY"
    row = TaskWorker.objects.get()
    assert (row.worker_id, row.started_at) == ("aifactory-worker-1", worker.started_at)


@pytest.mark.django_db
def test_a_worker_leaves_the_claims_of_live_workers_alone():
    now = timezone.now()
    _row("other", now)
    pk = _running(deliver_mail, "other", now - timedelta(minutes=30), 1)
    _worker().beat()
    assert _status(pk) == "RUNNING"
    assert TaskWorker.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_stamps_from_its_thread_and_signs_off(settings):
    settings.TASK_WORKER_LOST_AFTER = timedelta(seconds=0.6)  # a stamp every 0.1 s
    worker = _worker()
    stamps = set()
    with worker.heartbeat():
        deadline = time.monotonic() + 30
        while len(stamps) < 3 and time.monotonic() < deadline:
            try:
                row = TaskWorker.objects.filter(worker_id="w-new").first()
            except OperationalError:
                # SQLite's shared in-memory test database locks the table while
                # the heartbeat's thread writes it ("database table is locked",
                # not retried by its busy timeout): read again at the next turn.
                row = None
            if row is not None:
                stamps.add(row.seen_at)
            time.sleep(0.05)
        assert len(stamps) >= 3, "the row was not stamped again and again"
    assert not TaskWorker.objects.exists()


@pytest.mark.django_db
def test_task_workers_lists_a_lost_workers_task_exits_1_and_releases_it():
    now = timezone.now()
    _row("alive-one", now)
    _row("dead-one", now - LOST_AFTER * 3)
    held = _running(deliver_mail, "alive-one", now - SECOND, 1)
    stuck = _running(deliver_mail, "dead-one", now - LOST_AFTER * 4, 2)
    out = StringIO()
    with pytest.raises(CommandError, match="1 task.* held by a lost worker"):
        call_command("task_workers", stdout=out)
    lines = out.getvalue().splitlines()
    assert "Task workers: 2 (lost after 120 s unseen)" in lines
    [alive] = [line for line in lines if line.startswith("  alive-one")]
    [dead] = [line for line in lines if line.startswith("  dead-one")]
    assert alive.endswith("alive") and dead.endswith("LOST")
    [lost] = [line for line in lines if str(stuck) in line]
    assert "deliver_mail" in lost and lost.endswith("WORKER LOST")
    assert _status(stuck) == "RUNNING"

    out = StringIO()
    call_command("task_workers", "--release", stdout=out)
    assert f"Released task {stuck} (deliver_mail) of lost worker dead-one" in (
        out.getvalue()
    )
    assert (_status(stuck), _status(held)) == ("READY", "RUNNING")
    assert "Running tasks: 1" in out.getvalue()


@pytest.mark.django_db
def test_the_admin_shows_each_worker_its_tasks_and_the_lost_ones(client):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    now = timezone.now()
    _row("alive-one", now)
    _row("dead-one", now - timedelta(minutes=7))
    stuck = _running(deliver_mail, "dead-one", now - timedelta(minutes=8), 1)
    url = reverse("admin:aifactory_taskworker_changelist")
    page = client.get(url).content.decode()
    assert "Alive" in page
    assert "Lost (not seen for 7\xa0minutes): its tasks go back to the queue" in page
    link = reverse("admin:django_tasks_database_dbtaskresult_change", args=[stuck])
    assert f'<a href="{link}">deliver_mail</a>' in page
    # One read of the running tasks for the page, however many workers.
    with CaptureQueriesContext(connection) as before:
        client.get(url)
    for i in range(3):
        _row(f"more-{i}", now)
        _running(render_pdf_export, f"more-{i}", now, i)
    with CaptureQueriesContext(connection) as after:
        client.get(url)
    assert len(after) == len(before)


@pytest.mark.django_db
def test_in_a_transaction_the_worker_stamps_once_and_signs_off():
    worker = _worker()
    with worker.heartbeat():
        assert TaskWorker.objects.get().worker_id == "w-new"
    assert not TaskWorker.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_running_worker_releases_a_claim_that_is_lost_after_its_start(settings):
    """Not only at the start: a worker that dies while another runs is noticed by
    the other's later heartbeats."""
    settings.TASK_WORKER_LOST_AFTER = timedelta(seconds=2)
    pk = _running(deliver_mail, "dies-now", timezone.now(), 1)
    with _worker().heartbeat():
        assert _status(pk) == "RUNNING"  # the first beat: not lost yet
        deadline = time.monotonic() + 30
        while _status(pk) == "RUNNING" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _status(pk) == "READY"
