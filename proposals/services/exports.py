"""Stored PDF exports: requested by a page, rendered by the task worker, reused.

WeasyPrint takes about a second for a demo proposal (several at ten times the rows)
and its native memory grows with every document, so no web worker renders a PDF: the
request stores what to render (``exports.pdf.PdfJob``) and enqueues
:func:`render_pdf_export`, which ``manage.py db_worker`` runs. The same content (the
same key) is served from the stored file without rendering again.
"""

import logging
import threading
from contextlib import contextmanager

from django.db import (
    DatabaseError,
    IntegrityError,
    connection,
    connections,
    transaction,
)
from django.utils import timezone
from django_tasks import task

from proposals.exports import pdf
from proposals.models import PdfExport

logger = logging.getLogger(__name__)

# Stored PDFs kept per proposal (the newest); older ones are deleted after a render.
KEEP_PER_PROPOSAL = 6


@task()
def render_pdf_export(export_id: int) -> str:
    """The worker's task: render one stored PDF export."""
    return pdf_export_render(export_id=export_id)


def _enqueue(export: PdfExport) -> None:
    # The task record is written in the caller's transaction (database backend): the
    # worker sees it together with the export row, or neither.
    render_pdf_export.enqueue(export.pk)


def pdf_export_request(
    *, proposal, job: pdf.PdfJob, review_revision: int | None, for_staff: bool
) -> PdfExport:
    """The stored export for ``job``'s content: the existing one (ready, on its way,
    or failed: the page offers a retry), or a new one handed to the worker. A render
    that lost its worker is queued again."""
    lookup = {"proposal": proposal, "for_staff": for_staff, "content_key": job.key}
    existing = PdfExport.objects.filter(**lookup).defer("html", "pdf").first()
    if existing is not None:
        if existing.is_stalled:
            return pdf_export_retry(export=existing)
        return existing
    try:
        with transaction.atomic():
            export = PdfExport.objects.create(
                **lookup,
                review_revision=review_revision,
                html=job.html,
                chart_placeholder=job.placeholder,
                chart=job.chart,
            )
            _enqueue(export)
    except IntegrityError:  # the same content requested at the same moment
        return PdfExport.objects.filter(**lookup).defer("html", "pdf").get()
    return export


@transaction.atomic
def pdf_export_retry(*, export: PdfExport) -> PdfExport:
    """Queue a failed (or stalled) export again; a ready one stays as it is."""
    export = (
        PdfExport.objects.select_for_update().defer("html", "pdf").get(pk=export.pk)
    )
    if export.is_ready or not (export.is_failed or export.is_stalled):
        return export
    export.status = PdfExport.Status.PENDING
    export.error = ""
    export.started_at = None
    export.finished_at = None
    export.created_at = timezone.now()
    export.save(
        update_fields=["status", "error", "started_at", "finished_at", "created_at"]
    )
    _enqueue(export)
    return export


def pdf_export_render(*, export_id: int) -> str:
    """Render export ``export_id`` (the worker's step). A failure is stored on the
    export, for the page to show with a retry, and raised again so the task's own
    record shows it too."""
    with transaction.atomic():
        export = PdfExport.objects.select_for_update().filter(pk=export_id).first()
        if export is None or export.is_ready:
            return "nothing to render"
        export.status = PdfExport.Status.RENDERING
        export.started_at = export.heartbeat_at = timezone.now()
        export.attempts += 1
        export.save(update_fields=["status", "started_at", "heartbeat_at", "attempts"])
    try:
        with _heartbeat(export.pk):
            data = pdf.render_job(export.html, export.chart_placeholder, export.chart)
    except Exception as exc:  # WeasyPrint, fontconfig, matplotlib: anything
        message = f"{type(exc).__name__}: {exc}"[:2000]
        PdfExport.objects.filter(pk=export.pk).update(
            status=PdfExport.Status.FAILED, error=message, finished_at=timezone.now()
        )
        logger.warning("PDF export %s failed: %s", export.pk, message)
        raise
    PdfExport.objects.filter(pk=export.pk).update(
        status=PdfExport.Status.DONE,
        pdf=data,
        html="",
        chart=None,
        error="",
        finished_at=timezone.now(),
    )
    _prune(export.proposal_id)
    return "rendered"


@contextmanager
def _heartbeat(export_id: int):
    """Stamp the export's ``heartbeat_at`` every ``PdfExport.HEARTBEAT_EVERY`` from a
    thread of its own while the block runs, so a page can tell a long render from a
    dead worker. Inside a caller's transaction (the tests' in-process worker) no
    other connection could see the stamp, so there is none."""
    if connection.in_atomic_block:
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(PdfExport.HEARTBEAT_EVERY.total_seconds()):
                try:
                    PdfExport.objects.filter(
                        pk=export_id, status=PdfExport.Status.RENDERING
                    ).update(heartbeat_at=timezone.now())
                except DatabaseError as exc:  # an outage: the render goes on
                    logger.warning("PDF export %s: no heartbeat: %s", export_id, exc)
        finally:
            connections.close_all()  # this thread's own connections

    thread = threading.Thread(target=beat, name=f"pdf-{export_id}-heartbeat")
    thread.daemon = True
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _prune(proposal_id: int) -> None:
    """Keep the newest ``KEEP_PER_PROPOSAL`` finished exports of a proposal."""
    finished = (
        PdfExport.objects.filter(proposal_id=proposal_id)
        .exclude(status__in=[PdfExport.Status.PENDING, PdfExport.Status.RENDERING])
        .order_by("-finished_at", "-id")
        .values_list("pk", flat=True)
    )
    old = list(finished[KEEP_PER_PROPOSAL:])
    if old:
        PdfExport.objects.filter(pk__in=old).delete()
