"""``manage.py task_workers``: the task workers and the tasks they are running, with
the ones held by a lost worker (aifactory/worker.py); the queue by task (waiting, the
oldest wait, scheduled, running, failed), the stuck tasks (waiting longer than
``DJANGO_TASK_STUCK_AFTER`` for a worker) and the failed ones still stored
(aifactory/task_queue.py). Exits with status 1 while a task is held by a lost worker,
or while a task is stuck and no worker is alive, for a monitor to run; ``--release``
puts lost workers' tasks back in the queue at once rather than at a running worker's
next heartbeat."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from aifactory import task_queue
from aifactory.models import TaskWorker
from aifactory.worker import release_lost_claims, silent_too_long, task_claims


def _ago(moment, now) -> str:
    return f"{(now - moment).total_seconds():.0f} s ago" if moment else "never"


class Command(BaseCommand):
    help = (
        "List the task workers and the tasks they run, the queue, its stuck and "
        "failed tasks; exit 1 while a task is held by a worker not seen for "
        "DJANGO_TASK_WORKER_LOST_AFTER, or is stuck with no worker alive."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--release",
            action="store_true",
            help="Put the tasks of lost workers back in the queue now.",
        )

    def handle(self, *, release: bool, **options):
        if release:
            for claim in release_lost_claims():
                self.stdout.write(
                    f"Released task {claim.task_id} ({claim.task_name}) "
                    f"of lost worker {claim.worker_id}"
                )
        now = timezone.now()
        limit = settings.TASK_WORKER_LOST_AFTER.total_seconds()
        workers = list(TaskWorker.objects.all())
        self.stdout.write(
            f"Task workers: {len(workers)} (lost after {limit:.0f} s unseen)"
        )
        for worker in workers:
            state = "LOST" if silent_too_long(worker.seen_at, now=now) else "alive"
            self.stdout.write(
                f"  {worker.worker_id}  {worker.hostname} pid {worker.pid}  "
                f"started {worker.started_at:%Y-%m-%d %H:%M:%S}  "
                f"seen {_ago(worker.seen_at, now)}  {state}"
            )
        claims = task_claims(now=now)
        self.stdout.write(f"Running tasks: {len(claims)}")
        for claim in claims:
            state = "WORKER LOST" if claim.lost else "running"
            self.stdout.write(
                f"  {claim.task_id}  {claim.task_name}  queue {claim.queue_name}  "
                f"worker {claim.worker_id or '?'} (seen {_ago(claim.last_seen, now)})"
                f"  run {claim.claims} time(s)  {state}"
            )
        alive = sum(not silent_too_long(worker.seen_at, now=now) for worker in workers)
        stuck = self.show_queue(now)
        lost = sum(claim.lost for claim in claims)
        if lost:
            raise CommandError(
                f"{lost} task(s) held by a lost worker: a running worker puts them "
                "back in the queue at its next heartbeat; --release does it now."
            )
        if stuck and not alive:
            raise CommandError(
                f"{stuck} task(s) waiting longer than "
                f"{settings.TASK_STUCK_AFTER.total_seconds():.0f} s and no task "
                "worker alive: start the workers (systemctl start "
                "'aifactory-worker@*')."
            )

    def show_queue(self, now) -> int:
        """Write the queue, its stuck and its failed tasks; how many are stuck."""
        lines = task_queue.queue_lines(now=now)
        totals = task_queue.totals(lines)
        oldest = task_queue.oldest_wait(lines)
        self.stdout.write(
            f"Waiting tasks: {totals.get('waiting', 0)}"
            + (f" (oldest waited {oldest.total_seconds():.0f} s)" if oldest else "")
            + f", scheduled for later: {totals.get('scheduled', 0)}"
        )
        for line in lines:
            wait = (
                f"{line.oldest_wait.total_seconds():.0f} s" if line.oldest_wait else "-"
            )
            self.stdout.write(
                f"  {line.task_name}  queue {line.queue_name}  "
                f"waiting {line.waiting} (oldest {wait})  scheduled {line.scheduled}  "
                f"running {line.running}  failed {line.failed}  "
                f"successful {line.successful}"
            )
        limit = settings.TASK_STUCK_AFTER.total_seconds()
        stuck, shown = task_queue.stuck_tasks(now=now)
        self.stdout.write(f"Stuck tasks (waiting over {limit:.0f} s): {stuck}")
        for task in shown:
            self.stdout.write(
                f"  {task.task_id}  {task.task_name}  queue {task.queue_name}  "
                f"waited {task.waited.total_seconds():.0f} s"
            )
        failed, latest = task_queue.failed_tasks()
        self.stdout.write(f"Failed tasks: {failed}")
        for task in latest:
            finished = (
                f"{task.finished_at:%Y-%m-%d %H:%M:%S}" if task.finished_at else "?"
            )
            self.stdout.write(
                f"  {task.pk}  {task_queue.task_name(task.task_path)}  "
                f"queue {task.queue_name}  failed {finished}  "
                f"{task.exception_class_path.rsplit('.', 1)[-1] or '?'}"
            )
        return stuck
