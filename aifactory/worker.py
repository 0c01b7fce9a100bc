"""The task worker that rides out a database outage.

django-tasks-db's ``Worker`` lets any database error other than "database is locked"
escape its polling loop, so ``manage.py db_worker`` exits when the database goes away
for a moment (a PostgreSQL restart, a failover, a network blip) and never comes back
on its own (upstream: RealOrangeOne/django-tasks-db#49). :class:`ResilientWorker` keeps
the upstream loop and wraps it: on a database error it logs, closes the broken
connections, and probes the database with a doubling delay (1, 2, 4, ... seconds, at
most ``max_retry_delay``) until it answers, logs the recovery and polls again.

A task whose outcome could not be recorded because the database went away while it
ran (its record still says "running", claimed by this worker) is made ready again once
the database is back, so it runs once more: the project's tasks are safe to repeat
(a sent mail is not sent again, a rendered PDF not rendered again).

A worker that dies outright (SIGKILL, the out-of-memory killer, a machine that goes
away) records nothing at all: its task would stay "running", claimed by a worker that
no longer exists, and never run. So every worker stamps its own row
(:class:`aifactory.models.TaskWorker`) from a thread of its own,
``HEARTBEATS_PER_LOST_AFTER`` times within ``settings.TASK_WORKER_LOST_AFTER``, while
any task of any kind runs or none does; and on each stamp, the first one at its start
included, it puts back in the queue the tasks whose worker has not been seen for that
long (:func:`release_lost_claims`). Delivery is therefore at least once: a task runs
again when its worker died after the work was done but before it was recorded (a mail
the relay accepted just before the kill is sent twice). A task whose worker was lost
on its ``MAX_CLAIMS``-th run is marked failed instead: it may be what kills them.
"""

import contextlib
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, connections
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from aifactory.errors import DATABASE_UNAVAILABLE
from aifactory.models import TaskWorker

logger = logging.getLogger("aifactory.worker")

RETRY_DELAY = 1.0  # seconds before the first new attempt; doubled after each failure
MAX_RETRY_DELAY = 30.0

# A worker stamps its row this many times within TASK_WORKER_LOST_AFTER (every 20 s
# for the default two minutes): a few missed stamps (a slow database, a busy
# machine) do not make a live worker look dead.
HEARTBEATS_PER_LOST_AFTER = 6
# A task is run at most this many times by workers that were then lost; after that it
# is marked failed rather than queued again (a PDF that runs every worker out of
# memory would otherwise kill them in turn for ever).
MAX_CLAIMS = 5


def heartbeat_every() -> timedelta:
    """How often a worker stamps its row (and looks for lost workers' tasks)."""
    return settings.TASK_WORKER_LOST_AFTER / HEARTBEATS_PER_LOST_AFTER


def claim_lost(
    *,
    claimed_at: datetime,
    worker_started_at: datetime | None,
    worker_seen_at: datetime | None,
    now: datetime,
) -> bool:
    """Whether the worker that claimed a task at ``claimed_at`` is gone. It is when a
    later process took its worker id (``worker_started_at`` after the claim: the
    claiming one was restarted), or when neither the claim nor its worker's row
    (``None``: no row, the worker stopped or never stamped) is more recent than
    ``settings.TASK_WORKER_LOST_AFTER``."""
    if worker_started_at is not None and worker_started_at > claimed_at:
        return True
    return silent_too_long(max(claimed_at, worker_seen_at or claimed_at), now=now)


def silent_too_long(last_sign: datetime, *, now: datetime) -> bool:
    """Whether a worker whose last sign of life was at ``last_sign`` is lost."""
    return now - last_sign > settings.TASK_WORKER_LOST_AFTER


@dataclass(frozen=True)
class TaskClaim:
    """A running task and the worker that claimed it."""

    task_id: str
    task_path: str
    queue_name: str
    worker_id: str
    # When the worker claimed it (the task record's ``started_at``).
    claimed_at: datetime | None
    # How many workers have claimed it so far, this one included.
    claims: int
    worker: TaskWorker | None
    lost: bool

    @property
    def task_name(self) -> str:
        return self.task_path.rsplit(".", 1)[-1]

    @property
    def last_seen(self) -> datetime | None:
        """The worker's last sign of life: its last stamp, or the claim itself."""
        seen = self.worker.seen_at if self.worker is not None else None
        return max(filter(None, (seen, self.claimed_at)), default=None)


def task_claims(*, now: datetime | None = None) -> list[TaskClaim]:
    """Every running task (of any task function, queue or database backend) with the
    worker that claimed it, and whether that worker is lost (:func:`claim_lost`)."""
    now = now or timezone.now()
    running = list(
        DBTaskResult.objects.running()
        .order_by("started_at")
        .values_list(
            "pk", "task_path", "queue_name", "worker_ids", "started_at", "enqueued_at"
        )
    )
    if not running:
        return []
    workers = TaskWorker.objects.in_bulk(
        {ids[-1] for _, _, _, ids, _, _ in running if ids}, field_name="worker_id"
    )
    claims = []
    for pk, task_path, queue_name, ids, started_at, enqueued_at in running:
        worker_id = ids[-1] if ids else ""
        worker = workers.get(worker_id)
        claims.append(
            TaskClaim(
                task_id=str(pk),
                task_path=task_path,
                queue_name=queue_name,
                worker_id=worker_id,
                claimed_at=started_at,
                claims=len(ids),
                worker=worker,
                lost=claim_lost(
                    claimed_at=started_at or enqueued_at,
                    worker_started_at=worker.started_at if worker else None,
                    worker_seen_at=worker.seen_at if worker else None,
                    now=now,
                ),
            )
        )
    return claims


def release_lost_claims(*, now: datetime | None = None) -> list[TaskClaim]:
    """Put back in the queue every running task whose worker is lost (or mark it
    failed after ``MAX_CLAIMS`` runs), and forget the rows of lost workers. Each
    task changes only if it is still in the claim that was judged lost, so a task
    another worker released and claimed meanwhile is left alone. Returns the claims
    released."""
    now = now or timezone.now()
    released = []
    for claim in task_claims(now=now):
        if not claim.lost:
            continue
        same_claim = DBTaskResult.objects.filter(
            pk=claim.task_id,
            status=TaskResultStatus.RUNNING,
            started_at=claim.claimed_at,
        )
        silent = (now - claim.last_seen) if claim.last_seen else None
        if claim.claims >= MAX_CLAIMS:
            message = (
                f"WorkerLost: the worker running this task ({claim.worker_id}) was "
                f"lost, for the {claim.claims}th time; not run again."
            )
            changed = same_claim.update(
                status=TaskResultStatus.FAILED,
                finished_at=now,
                return_value=None,
                exception_class_path="aifactory.worker.WorkerLost",
                traceback=message,
            )
            if changed:
                logger.error(
                    "Task %s (%s) lost its worker %s for the %dth time: marked failed",
                    claim.task_id,
                    claim.task_name,
                    claim.worker_id,
                    claim.claims,
                )
        else:
            changed = same_claim.update(status=TaskResultStatus.READY)
            if changed:
                logger.warning(
                    "Task %s (%s) was running on worker %s, not seen for %s: "
                    "back in the queue",
                    claim.task_id,
                    claim.task_name,
                    claim.worker_id or "?",
                    f"{silent.total_seconds():.0f} s" if silent else "long",
                )
        if changed:
            released.append(claim)
    TaskWorker.objects.filter(
        seen_at__lt=now - settings.TASK_WORKER_LOST_AFTER
    ).delete()
    return released


class ResilientWorker(Worker):
    """django-tasks-db's worker, kept alive through database outages."""

    def __init__(
        self,
        *,
        retry_delay: float = RETRY_DELAY,
        max_retry_delay: float = MAX_RETRY_DELAY,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.retry_delay = retry_delay
        self.max_retry_delay = max(max_retry_delay, retry_delay)
        # Tasks this worker claimed whose outcome the database never recorded.
        self.interrupted: list = []
        # Before any claim: a claim under this worker id older than this is not ours.
        self.started_at = timezone.now()

    def run(self) -> None:
        with self.heartbeat():
            self.poll()

    def poll(self) -> None:
        """Upstream's polling loop, taken up again after each database outage."""
        while True:
            try:
                self.requeue_interrupted()
                return super().run()
            except DATABASE_UNAVAILABLE as exc:
                self.running_task = False
                if not self.running:
                    return None
                self.wait_for_database(exc)
                if not self.running:
                    return None
                # The herd-avoiding start delay was had at the first start.
                self.startup_delay = False

    def run_task(self, db_task_result: DBTaskResult) -> None:
        try:
            super().run_task(db_task_result)
        except DATABASE_UNAVAILABLE:
            # Neither the task's success nor its failure could be stored.
            self.interrupted.append(db_task_result.pk)
            raise

    @contextlib.contextmanager
    def heartbeat(self):
        """Stamp this worker's row, and release lost workers' tasks, at once and then
        every :func:`heartbeat_every` from a thread of its own while the block runs,
        whatever task the worker is running; delete the row when it ends. Inside a
        caller's transaction (the tests' in-process worker) no other connection
        could see the stamps: one stamp and release at the start, no thread."""
        if connection.in_atomic_block:
            self.beat()
            try:
                yield
            finally:
                self.sign_off()
            return
        stop = threading.Event()

        def beat_until_stopped() -> None:
            try:
                while True:
                    self.beat()
                    if stop.wait(heartbeat_every().total_seconds()):
                        break
                self.sign_off()
            finally:
                connections.close_all()  # this thread's own connections

        thread = threading.Thread(
            target=beat_until_stopped, name=f"worker-{self.worker_id}-heartbeat"
        )
        thread.daemon = True  # never keeps a killed or reloaded process alive
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def beat(self) -> None:
        """Stamp this worker's row (made again if a release forgot it meanwhile),
        then put lost workers' tasks back in the queue. A failure (a database
        outage) is logged; the next beat tries again."""
        now = timezone.now()
        row = {
            "hostname": socket.gethostname()[:255],
            "pid": os.getpid(),
            "started_at": self.started_at,
            "seen_at": now,
        }
        try:
            stamped = TaskWorker.objects.filter(worker_id=self.worker_id).update(**row)
            if not stamped:
                with contextlib.suppress(IntegrityError):  # made at the same moment
                    TaskWorker.objects.create(worker_id=self.worker_id, **row)
            release_lost_claims(now=now)
        except Exception as exc:  # the heartbeat must outlive any error
            logger.warning(
                "Worker %s: no heartbeat (%s: %s)",
                self.worker_id,
                type(exc).__name__,
                str(exc).strip().splitlines()[0] if str(exc).strip() else "",
            )

    def sign_off(self) -> None:
        """Delete this worker's row: it stops, and any task it claimed is over."""
        try:
            TaskWorker.objects.filter(
                worker_id=self.worker_id, started_at=self.started_at
            ).delete()
        except Exception as exc:  # a stopped worker's row is forgotten later
            logger.warning("Worker %s: row not deleted (%s)", self.worker_id, exc)

    def wait_for_database(self, error: BaseException) -> None:
        """Log ``error``, then try the database with a doubling delay until it
        answers (or the worker is told to stop); log how long it was away."""
        started = time.monotonic()
        failures = 1
        delay = self.retry_delay
        while self.running:
            logger.warning(
                "Database unavailable (attempt %d failed: %s: %s); worker %s tries "
                "again in %g s",
                failures,
                type(error).__name__,
                str(error).strip().splitlines()[0] if str(error).strip() else "",
                self.worker_id,
                delay,
            )
            self.close_connections()
            time.sleep(delay)
            try:
                self.probe()
            except DATABASE_UNAVAILABLE as exc:
                error = exc
                failures += 1
                delay = min(delay * 2, self.max_retry_delay)
                continue
            logger.warning(
                "Database reachable again after %.1f s (%d failed attempt%s); "
                "worker %s resumes",
                time.monotonic() - started,
                failures,
                "" if failures == 1 else "s",
                self.worker_id,
            )
            return

    def probe(self) -> None:
        """The worker's own query, so a database that answers but lacks the task
        table (not migrated yet) keeps the worker waiting rather than spinning."""
        DBTaskResult.objects.filter(backend_name=self.backend_name).exists()

    def requeue_interrupted(self) -> None:
        """Make ready again the tasks whose outcome the outage swallowed."""
        if not self.interrupted:
            return
        count = DBTaskResult.objects.filter(
            pk__in=self.interrupted, status=TaskResultStatus.RUNNING
        ).update(status=TaskResultStatus.READY)
        logger.warning(
            "%d task(s) interrupted by the outage queued again: %s",
            count,
            ", ".join(str(pk) for pk in self.interrupted),
        )
        self.interrupted = []

    @staticmethod
    def close_connections() -> None:
        """Drop every connection of this thread; the next query opens a fresh one."""
        for open_connection in connections.all(initialized_only=True):
            with contextlib.suppress(DATABASE_UNAVAILABLE):
                open_connection.close()
