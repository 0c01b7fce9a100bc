"""What the shared task queue holds, read for operators: the metrics endpoint
(aifactory/metrics.py), ``manage.py task_workers`` and the admin's **Task workers**
all read it here, so they cannot disagree about what "waiting", "stuck" or "failed"
means.

The queue is django-tasks-db's table (``DBTaskResult``), shared by every instance and
worker: what it says is the same from any instance. It is not part of readiness
(aifactory/health.py): a backlog at a deadline is no reason to take an instance out
of the load balancer.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Case, Count, F, Min, Q, When
from django.db.models.functions import Greatest
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

ZERO = timedelta(0)
# The states a task record is counted in (QueueLine's fields of the same names).
STATES = ("waiting", "scheduled", "running", "failed", "successful")
# How many stuck or failed tasks the command and the admin list (the counts are all).
SHOWN = 20


def task_name(task_path: str) -> str:
    """The task function's name, as the admin and the command show it."""
    return task_path.rsplit(".", 1)[-1]


def _ready_now(now: datetime) -> Q:
    """Waiting, and runnable now: queued without a time, or its (retry) time came.
    django-tasks-db's ``ready()``, at a given moment."""
    return Q(status=TaskResultStatus.READY) & (
        Q(run_after=get_date_max()) | Q(run_after__lte=now)
    )


def _ready_since():
    """Since when a waiting task could have run: its queueing, or its retry time."""
    return Case(
        When(run_after=get_date_max(), then=F("enqueued_at")),
        default=Greatest("enqueued_at", "run_after"),
    )


@dataclass(frozen=True)
class QueueLine:
    """The tasks of one function in one queue, by state."""

    queue_name: str
    task_path: str
    waiting: int = 0  # could run now, no worker has taken them yet
    oldest_wait: timedelta | None = None  # how long the longest-waiting one waited
    scheduled: int = 0  # waiting for a later time (a mail's retry)
    running: int = 0
    failed: int = 0  # failed results still stored (pruned with the others)
    successful: int = 0

    @property
    def task_name(self) -> str:
        return task_name(self.task_path)


def queue_lines(*, now: datetime | None = None) -> list[QueueLine]:
    """Every (queue, task function) that has a task in the table, with its counts by
    state and its oldest wait; two grouped queries."""
    now = now or timezone.now()
    ready = _ready_now(now)
    counts = (
        DBTaskResult.objects.values("queue_name", "task_path")
        .annotate(
            waiting=Count("pk", filter=ready),
            scheduled=Count("pk", filter=Q(status=TaskResultStatus.READY) & ~ready),
            running=Count("pk", filter=Q(status=TaskResultStatus.RUNNING)),
            failed=Count("pk", filter=Q(status=TaskResultStatus.FAILED)),
            successful=Count("pk", filter=Q(status=TaskResultStatus.SUCCESSFUL)),
        )
        .order_by("queue_name", "task_path")
    )
    oldest = {
        (row["queue_name"], row["task_path"]): row["since"]
        for row in DBTaskResult.objects.filter(ready)
        .values("queue_name", "task_path")
        .annotate(since=Min(_ready_since()))
        .order_by()
    }
    lines = []
    for row in counts:
        since = oldest.get((row["queue_name"], row["task_path"]))
        lines.append(
            QueueLine(
                **row, oldest_wait=None if since is None else max(now - since, ZERO)
            )
        )
    return lines


def oldest_wait(lines: list[QueueLine]) -> timedelta | None:
    """The longest wait of any waiting task in ``lines``; None when none waits."""
    return max((line.oldest_wait for line in lines if line.oldest_wait), default=None)


@dataclass(frozen=True)
class WaitingTask:
    task_id: str
    task_path: str
    queue_name: str
    waited: timedelta

    @property
    def task_name(self) -> str:
        return task_name(self.task_path)


def stuck_tasks(*, now: datetime | None = None) -> tuple[int, list[WaitingTask]]:
    """The tasks that could run but have waited longer than
    ``settings.TASK_STUCK_AFTER`` for a worker: how many, and the ``SHOWN``
    longest-waiting of them."""
    now = now or timezone.now()
    stuck = (
        DBTaskResult.objects.filter(_ready_now(now))
        .annotate(since=_ready_since())
        .filter(since__lt=now - settings.TASK_STUCK_AFTER)
    )
    shown = [
        WaitingTask(str(pk), path, queue, now - since)
        for pk, path, queue, since in stuck.order_by("since").values_list(
            "pk", "task_path", "queue_name", "since"
        )[:SHOWN]
    ]
    return (stuck.count() if len(shown) == SHOWN else len(shown)), shown


def failed_tasks() -> tuple[int, list[DBTaskResult]]:
    """The failed task results still stored: how many, and the ``SHOWN`` latest
    (their traceback is on django-tasks-db's admin page of each)."""
    failed = DBTaskResult.objects.failed()
    shown = list(
        failed.order_by(F("finished_at").desc(nulls_last=True)).only(
            "pk", "task_path", "queue_name", "finished_at", "exception_class_path"
        )[:SHOWN]
    )
    return (failed.count() if len(shown) == SHOWN else len(shown)), shown


def totals(lines: list[QueueLine]) -> dict[str, int]:
    """The counts of ``lines`` added up by state."""
    summed = defaultdict(int)
    for line in lines:
        for state in STATES:
            summed[state] += getattr(line, state)
    return dict(summed)
