"""Task workers in the admin: which ``db_worker`` processes live, what each runs, and
which were lost (their tasks go back to the queue; aifactory/worker.py); above them
the queue by task, its stuck tasks and its failed ones (aifactory/task_queue.py), each
linked to django-tasks-db's page of the task (its arguments, its traceback)."""

from django.conf import settings
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_tasks_db.models import DBTaskResult

from aifactory import task_queue
from aifactory.models import TaskWorker
from aifactory.worker import silent_too_long, task_claims

# django-tasks-db's own admin page of one task record (its arguments, its traceback).
_task = DBTaskResult._meta
TASK_PAGE = f"admin:{_task.app_label}_{_task.model_name}_change"


@admin.register(TaskWorker)
class TaskWorkerAdmin(admin.ModelAdmin):
    """Shown, never written here: each worker writes its own row. A lost worker's
    row stays until a running worker releases its tasks, so with every worker down
    the page shows how long ago each was last seen."""

    # The queue, its stuck and its failed tasks above the workers.
    change_list_template = "admin/aifactory/taskworker/change_list.html"
    list_display = [
        "worker_id",
        "hostname",
        "pid",
        "started_at",
        "seen_at",
        "state",
    ]

    def has_add_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        now = timezone.now()
        lines = task_queue.queue_lines(now=now)
        stuck_count, stuck = task_queue.stuck_tasks(now=now)
        failed_count, failed = task_queue.failed_tasks()
        context = {
            "queue_lines": [
                (line, line.oldest_wait and timesince(now - line.oldest_wait, now))
                for line in lines
            ],
            "stuck_after": timesince(now - settings.TASK_STUCK_AFTER, now),
            "stuck_count": stuck_count,
            "stuck_tasks": [
                (
                    t,
                    reverse(TASK_PAGE, args=[t.task_id]),
                    timesince(now - t.waited, now),
                )
                for t in stuck
            ],
            "failed_count": failed_count,
            "failed_tasks": [
                (
                    task_queue.task_name(t.task_path),
                    t,
                    reverse(TASK_PAGE, args=[t.pk]),
                    t.exception_class_path.rsplit(".", 1)[-1],
                )
                for t in failed
            ],
            "tasks_page": reverse(
                f"admin:{_task.app_label}_{_task.model_name}_changelist"
            ),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context=context)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("State"))
    def state(self, worker):
        now = timezone.now()
        if not silent_too_long(worker.seen_at, now=now):
            return _("Alive")
        return _("Lost (not seen for %(time)s): its tasks go back to the queue") % {
            "time": timesince(worker.seen_at, now)
        }

    def get_list_display(self, request):
        # The running tasks are read once per page, not once per worker.
        by_worker = None

        @admin.display(description=gettext_lazy("Running tasks"))
        def tasks(worker):
            nonlocal by_worker
            if by_worker is None:
                by_worker = {}
                for claim in task_claims():
                    by_worker.setdefault(claim.worker_id, []).append(claim)
            claims = by_worker.get(worker.worker_id)
            if not claims:
                return "—"
            return format_html(
                "<ul>{}</ul>",
                format_html_join(
                    "",
                    '<li><a href="{}">{}</a></li>',
                    (
                        (
                            reverse(TASK_PAGE, args=[claim.task_id]),
                            claim.task_name,
                        )
                        for claim in claims
                    ),
                ),
            )

        return [*self.list_display, tasks]
