"""``manage.py db_worker``: django-tasks-db's worker command, with a worker that
rides out database outages (:mod:`aifactory.worker`).

This command takes the place of django-tasks-db's own because the ``aifactory`` app
comes before ``django_tasks_db`` in ``INSTALLED_APPS``. Its options are upstream's,
plus ``--retry-delay`` and ``--max-retry-delay``.
"""

import os
from argparse import ArgumentParser

from django.core.management.base import CommandError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker as upstream

from aifactory.worker import MAX_RETRY_DELAY, RETRY_DELAY, ResilientWorker


class Command(upstream.Command):
    help = (
        "Run a database background worker that waits out database outages "
        "(retrying with a doubling delay) instead of exiting."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--retry-delay",
            type=upstream.valid_interval,
            default=RETRY_DELAY,
            help="Seconds before the first new attempt when the database is "
            "unreachable; doubled after each failed one (default: %(default)r)",
        )
        parser.add_argument(
            "--max-retry-delay",
            type=upstream.valid_interval,
            default=MAX_RETRY_DELAY,
            help="The longest wait between two attempts (default: %(default)r)",
        )

    def handle(
        self,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        reload: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        retry_delay: float,
        max_retry_delay: float,
        **options,
    ) -> None:
        # As upstream's ``handle``, with our worker class.
        self.configure_logging(verbosity)
        if reload and batch:
            upstream.logger.warning(
                "Warning: --reload and --batch cannot be specified together. "
                "Disabling autoreload."
            )
            reload = False
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = ResilientWorker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names,
            retry_delay=retry_delay,
            max_retry_delay=max_retry_delay,
        )
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # only the reloader's child
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
