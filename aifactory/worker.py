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
"""

import contextlib
import logging
import time

from django.db import connections
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from aifactory.errors import DATABASE_UNAVAILABLE

logger = logging.getLogger("aifactory.worker")

RETRY_DELAY = 1.0  # seconds before the first new attempt; doubled after each failure
MAX_RETRY_DELAY = 30.0


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

    def run(self) -> None:
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
        for connection in connections.all(initialized_only=True):
            with contextlib.suppress(DATABASE_UNAVAILABLE):
                connection.close()
