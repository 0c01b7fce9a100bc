"""The task workers' signs of life (aifactory/worker.py)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class TaskWorker(models.Model):
    """One running ``manage.py db_worker`` process, stamped while it lives.

    django-tasks-db records which worker claimed a task (``DBTaskResult.worker_ids``,
    the last one is the current claim) but not whether that worker still lives: a
    worker killed mid-task leaves the task "running" for ever. Each worker therefore
    keeps this row fresh from a thread of its own (``seen_at``, several times within
    ``settings.TASK_WORKER_LOST_AFTER``) and deletes it when it stops. A task whose
    worker has not been seen for that long goes back to the queue."""

    # django-tasks-db's worker id: unique in the pool (random unless --worker-id).
    worker_id = models.CharField(_("worker id"), max_length=64, unique=True)
    hostname = models.CharField(_("host"), max_length=255, blank=True)
    pid = models.PositiveIntegerField(_("process id"), null=True, blank=True)
    # When this process started: a task claimed under the same id before then was
    # claimed by an earlier process (a fixed --worker-id reused after a restart).
    started_at = models.DateTimeField(_("started at"))
    seen_at = models.DateTimeField(_("last seen at"))

    class Meta:
        ordering = ["hostname", "started_at"]
        verbose_name = _("task worker")
        verbose_name_plural = _("task workers")

    def __str__(self):
        return f"{self.worker_id} ({self.hostname}, pid {self.pid})"
