"""``manage.py task_workers``: the task workers and the tasks they are running, with
the ones held by a lost worker (aifactory/worker.py). Exits with status 1 while a task
is held by a lost worker, for a monitor to run; ``--release`` puts such tasks back in
the queue at once rather than at a running worker's next heartbeat."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from aifactory.models import TaskWorker
from aifactory.worker import release_lost_claims, silent_too_long, task_claims


def _ago(moment, now) -> str:
    return f"{(now - moment).total_seconds():.0f} s ago" if moment else "never"


class Command(BaseCommand):
    help = (
        "List the task workers and the tasks they run; exit 1 while a task is held "
        "by a worker not seen for DJANGO_TASK_WORKER_LOST_AFTER."
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
        lost = sum(claim.lost for claim in claims)
        if lost:
            raise CommandError(
                f"{lost} task(s) held by a lost worker: a running worker puts them "
                "back in the queue at its next heartbeat; --release does it now."
            )
