"""``/metrics``: the figures an operator alerts on, in Prometheus' text format
(written by the maintained ``prometheus_client`` library).

Two kinds, and where each count lives:

* **From the database**, read at each scrape (:class:`DatabaseCollector`): the task
  queue (tasks by queue, function and state; how long the oldest waiting one has
  waited; tasks held by a lost worker), the task workers alive and lost
  (``aifactory.TaskWorker``), the mails by status (``OutgoingMail``), the PDF exports
  and the training-log readings by status. These are the same from every instance
  and count what is stored now (the daily expiry deletes old rows).
* **From the processes**: how long each autosave took (``aifactory_autosave_seconds``,
  a histogram by HTTP status, measured around the whole request by
  aifactory/requestlog.py). gunicorn runs several worker processes per instance: under
  ``gunicorn.conf.py`` they share a directory (``PROMETHEUS_MULTIPROC_DIR``,
  prometheus_client's multiprocess mode, one directory per instance, made at start
  and removed at exit), so an instance's scrape counts the autosaves of all its
  workers; each instance counts its own (scrape each instance). A worker recycled
  after ``max_requests`` hands its slot and its counts to its replacement
  (``AIFACTORY_METRICS_SLOT``), so the counts never go backwards and the directory
  holds one file per worker, not one per worker ever started. Without the directory
  (``runserver``, another server) the histogram is this process's alone, and
  ``aifactory_autosave_scope`` says so.

The endpoint is answered near the top of the stack (aifactory/health.py's middleware,
before the host check and the HTTPS redirect) to a scraper that sends
``Authorization: Bearer $DJANGO_METRICS_TOKEN``; without that setting it is off (404).
"""

import hmac
import logging
import os
import threading

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpResponse, HttpResponseNotFound
from django.utils import timezone
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client import values as prometheus_values
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector

logger = logging.getLogger(__name__)

METRICS_PATH = "/metrics"
# prometheus_client's multiprocess directory, and this project's worker slot in it
# (set by gunicorn.conf.py in each worker it forks).
MULTIPROCESS_DIRECTORY = "PROMETHEUS_MULTIPROC_DIR"
SLOT = "AIFACTORY_METRICS_SLOT"

# Seconds. The loadtest's target is a p95 under 150 ms; a cold worker takes seconds.
AUTOSAVE_BUCKETS = (0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
AUTOSAVE = "autosave"


# --------------------------------------------------------------------------------
# Process metrics: the autosave histogram
# --------------------------------------------------------------------------------


def _process_identifier() -> str:
    """Whose file in the multiprocess directory a process writes: its gunicorn
    worker slot (reused by the worker that replaces it), else its process id."""
    return os.environ.get(SLOT) or str(os.getpid())


class ProcessMetrics:
    """The metrics this process measures, made on first use: in a gunicorn worker
    that is after the fork, once gunicorn.conf.py has set the directory and slot."""

    def __init__(self):
        self.directory = os.environ.get(MULTIPROCESS_DIRECTORY) or None
        self.registry = CollectorRegistry()
        scope = "instance" if self.directory else "process"
        # prometheus_client stores values as ``values.ValueClass`` says when a
        # metric or a label's child is made, read at that moment: set here, for this
        # process (nothing else in it uses prometheus_client).
        prometheus_values.ValueClass = (
            prometheus_values.MultiProcessValue(process_identifier=_process_identifier)
            if self.directory
            else prometheus_values.MutexValue
        )
        self.autosave = Histogram(
            "aifactory_autosave_seconds",
            "Autosaves answered by this "
            + ("gunicorn instance (all its workers)" if self.directory else "process")
            + ", by HTTP status: seconds from the request to its answer.",
            labelnames=["code"],
            buckets=AUTOSAVE_BUCKETS,
            registry=None if self.directory else self.registry,
        )
        self.scope = scope

    def collectors(self, registry: CollectorRegistry) -> None:
        """Put this process's figures (or its instance's) into ``registry``."""
        if self.directory:
            MultiProcessCollector(registry, path=self.directory)
        else:
            registry.register(_Forward(self.registry))
        registry.register(_Scope(self.scope))


class _Forward:
    """A registry's metrics, collected as part of another."""

    def __init__(self, registry):
        self.registry = registry

    def collect(self):
        return self.registry.collect()


class _Scope:
    def __init__(self, scope):
        self.scope = scope

    def collect(self):
        family = GaugeMetricFamily(
            "aifactory_autosave_scope",
            "Which processes aifactory_autosave_seconds counts: 'instance' (every "
            "worker of this gunicorn instance) or 'process' (this one only).",
            labels=["scope"],
        )
        family.add_metric([self.scope], 1)
        yield family


_lock = threading.Lock()
_process: ProcessMetrics | None = None


def process_metrics() -> ProcessMetrics:
    global _process
    with _lock:
        if _process is None:
            _process = ProcessMetrics()
        return _process


def forget_process_metrics() -> None:
    """Make the process metrics again at next use (tests change the environment)."""
    global _process
    with _lock:
        _process = None


def time_as_autosave(request) -> None:
    """Count this request's duration in the autosave histogram (the wizard's view
    says which requests are autosaves; aifactory/requestlog.py times them)."""
    request.metrics_timed = AUTOSAVE


def request_done(request, status: int, seconds: float) -> None:
    """Called by aifactory/requestlog.py with every request's duration."""
    if getattr(request, "metrics_timed", None) == AUTOSAVE:
        process_metrics().autosave.labels(code=str(status)).observe(seconds)


# --------------------------------------------------------------------------------
# Database metrics: read at each scrape
# --------------------------------------------------------------------------------


def _gauge(name, documentation, labels=()):
    return GaugeMetricFamily(name, documentation, labels=list(labels))


def _by_status(model, field="status") -> dict[str, int]:
    from django.db.models import Count

    counted = dict(model.objects.values_list(field).annotate(n=Count("pk")).order_by())
    return {value: counted.get(value, 0) for value in model.Status.values}


class DatabaseCollector:
    """The queue, the workers, the mails, the PDFs and the log readings, as the
    database holds them now (the same from every instance)."""

    def collect(self):
        try:
            families = self.families()
        except DatabaseError:
            logger.warning("/metrics: the database did not answer", exc_info=True)
            families = []
        up = _gauge(
            "aifactory_database_up",
            "1 when this scrape could read the database (the figures below need it).",
        )
        up.add_metric([], 1 if families else 0)
        yield up
        yield from families

    def families(self) -> list:
        from aifactory import task_queue
        from aifactory.models import TaskWorker
        from aifactory.worker import silent_too_long, task_claims
        from proposals.models import LogReading, OutgoingMail, PdfExport

        now = timezone.now()
        families = []

        tasks = _gauge(
            "aifactory_tasks",
            "Task records by queue, task function and state: waiting (could run "
            "now: the queue's depth), scheduled (waiting for a later time, a retry), "
            "running, failed and successful (kept until the daily expiry).",
            ["queue", "task", "state"],
        )
        oldest = _gauge(
            "aifactory_task_queue_oldest_age_seconds",
            "How long the longest-waiting task that could run now has waited for a "
            "worker (since its queueing or its retry time); 0 when none waits.",
            ["queue", "task"],
        )
        for line in task_queue.queue_lines(now=now):
            labels = [line.queue_name, line.task_path]
            for state in task_queue.STATES:
                tasks.add_metric([*labels, state], getattr(line, state))
            wait = line.oldest_wait.total_seconds() if line.oldest_wait else 0
            oldest.add_metric(labels, wait)
        families += [tasks, oldest]

        lost_tasks = _gauge(
            "aifactory_tasks_held_by_lost_worker",
            "Running tasks whose worker was not seen for DJANGO_TASK_WORKER_LOST_AFTER "
            "(a live worker puts them back in the queue at its next heartbeat).",
        )
        lost_tasks.add_metric([], sum(claim.lost for claim in task_claims(now=now)))
        workers = _gauge(
            "aifactory_task_workers",
            "Task workers (manage.py db_worker) by state: alive (stamped within "
            "DJANGO_TASK_WORKER_LOST_AFTER) or lost.",
            ["state"],
        )
        seen = list(TaskWorker.objects.values_list("seen_at", flat=True))
        lost = sum(silent_too_long(at, now=now) for at in seen)
        workers.add_metric(["alive"], len(seen) - lost)
        workers.add_metric(["lost"], lost)
        families += [lost_tasks, workers]

        mails = _gauge(
            "aifactory_mails",
            "E-mails of the review workflow by status (queued and retrying wait for "
            "the worker; failed gave up after its attempts).",
            ["status"],
        )
        for status, count in _by_status(OutgoingMail).items():
            mails.add_metric([status], count)
        waiting = OutgoingMail.objects.filter(
            status__in=[OutgoingMail.Status.QUEUED, OutgoingMail.Status.RETRYING]
        ).order_by("created_at")
        first = waiting.values_list("created_at", flat=True).first()
        mail_age = _gauge(
            "aifactory_mail_oldest_waiting_age_seconds",
            "Age of the oldest mail not yet sent (queued or retrying); 0 when none.",
        )
        mail_age.add_metric([], (now - first).total_seconds() if first else 0)
        families += [mails, mail_age]

        for model, name, what in (
            (PdfExport, "aifactory_pdf_exports", "PDF exports"),
            (LogReading, "aifactory_log_readings", "Training-log readings"),
        ):
            family = _gauge(name, f"{what} stored, by status.", ["status"])
            for status, count in _by_status(model).items():
                family.add_metric([status], count)
            families.append(family)
        return families


# --------------------------------------------------------------------------------
# The endpoint
# --------------------------------------------------------------------------------


def exposition(accept: str = "") -> tuple[bytes, str]:
    """Every metric, and its content type: Prometheus' text format, or the one the
    scraper's ``Accept`` asks for (prometheus_client's choice, OpenMetrics)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector())
    process_metrics().collectors(registry)
    encode, content_type = choose_encoder(accept)
    return encode(registry), content_type


def authorized(request) -> bool:
    """The request carries ``Authorization: Bearer <DJANGO_METRICS_TOKEN>``."""
    scheme, _, offered = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        offered.strip().encode(), settings.METRICS_TOKEN.encode()
    )


def metrics(request) -> HttpResponse:
    if not settings.METRICS_TOKEN:
        return HttpResponseNotFound(b"", content_type="text/plain")
    if not authorized(request):
        response = HttpResponse(b"", status=401, content_type="text/plain")
        response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    body, content_type = exposition(request.headers.get("Accept", ""))
    response = HttpResponse(body, content_type=content_type)
    response.headers["Cache-Control"] = "no-store"
    return response
