"""Stored PDF exports: rendered by the task worker, reused for identical content."""

from datetime import timedelta

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .proposal import Proposal


class PdfExport(models.Model):
    """One PDF of a proposal (its draft or a review revision), keyed by a hash of the
    content it shows (``exports.pdf.PdfJob.key``). The web request stores the HTML and
    the chart data and hands the rendering to the task worker
    (``proposals.services.exports.render_pdf_export``); the same content later is
    served from ``pdf`` without rendering again."""

    # A render still waiting for a worker after this long: offer a retry (the queue
    # may be long, so this is generous).
    STALLED_AFTER = timedelta(minutes=5)
    # While it renders, the worker stamps ``heartbeat_at`` every HEARTBEAT_EVERY
    # (services/exports.py). A render without a stamp for RENDER_STALLED_AFTER has
    # lost its worker (killed, machine restarted): offer a retry then, not after
    # minutes. Measured on 2 busy cores: the five demo proposals render in 1.0-2.5 s,
    # one at the format's limits (200 measurements, 200 jobs, 20,000-character
    # narratives) in about 13 s; the heartbeat does not depend on that length.
    HEARTBEAT_EVERY = timedelta(seconds=5)
    RENDER_STALLED_AFTER = timedelta(seconds=30)

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for the worker")
        RENDERING = "rendering", _("Rendering")
        DONE = "done", _("Ready")
        FAILED = "failed", _("Failed")

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="pdf_exports"
    )
    # The review revision shown (r1, r2, ...); null for the working draft.
    review_revision = models.PositiveIntegerField(null=True, blank=True)
    # Made for support staff (it shows their assessment): never served to the owner.
    for_staff = models.BooleanField(default=False)
    content_key = models.CharField(max_length=64)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING
    )
    # The renderer's input, kept until the PDF exists (and for a retry).
    html = models.TextField(blank=True)
    chart_placeholder = models.CharField(max_length=64, blank=True)
    chart = models.JSONField(null=True, blank=True)
    pdf = models.BinaryField(null=True, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # The rendering worker's last sign of life (see HEARTBEAT_EVERY).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "PDF export"
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "for_staff", "content_key"],
                name="pdf_export_unique_content",
            )
        ]

    def __str__(self):
        version = f"r{self.review_revision}" if self.review_revision else "draft"
        return f"PDF of proposal {self.proposal_id} ({version}): {self.status}"

    @property
    def is_ready(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def is_failed(self) -> bool:
        return self.status == self.Status.FAILED

    @property
    def silent_for(self) -> timedelta | None:
        """How long since the last sign of life of the render: the worker's last
        heartbeat (or its start) while rendering, the request while pending."""
        if self.status == self.Status.RENDERING:
            since = self.heartbeat_at or self.started_at or self.created_at
        elif self.status == self.Status.PENDING:
            since = self.created_at
        else:
            return None
        return timezone.now() - since if since is not None else None

    @property
    def is_stalled(self) -> bool:
        """Rendering without a heartbeat, or pending, for so long that no worker is
        on it."""
        silent = self.silent_for
        if silent is None:
            return False
        if self.status == self.Status.RENDERING:
            return silent > self.RENDER_STALLED_AFTER
        return silent > self.STALLED_AFTER
