"""Training logs and sacct output read by the task worker, with their progress."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .proposal import Proposal


class LogReading(models.Model):
    """One preview of training logs: the files (:class:`LogUpload`) a person sent,
    read by the task worker (``proposals.services.training_logs.read_log_files``),
    never by a web worker: a large or hostile file cannot reach the web server's
    timeout. ``result`` is what the page shows and adds (the rows and their short
    provenance, never the files, which are deleted once read)."""

    # Waiting for a worker this long: say so and offer to read again.
    STALLED_AFTER = timedelta(minutes=5)
    # While reading, the worker stamps ``heartbeat_at`` with each block's progress
    # (at most every PROGRESS_EVERY); silent this long, it has lost its worker.
    PROGRESS_EVERY = timedelta(milliseconds=500)
    READ_STALLED_AFTER = timedelta(seconds=60)
    # Readings kept per proposal and person (the newest): the page needs the last.
    KEEP = 3

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for the worker")
        READING = "reading", _("Reading")
        DONE = "done", _("Read")
        FAILED = "failed", _("Failed")

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="log_readings"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING
    )
    # The page's language when it was sent: the worker writes the refusals and
    # notes in it (and in the person's number format).
    language = models.CharField(max_length=16, blank=True)
    bytes_total = models.BigIntegerField(default=0)
    bytes_read = models.BigIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "training log reading"

    def __str__(self):
        return f"Log reading {self.pk} of proposal {self.proposal_id}: {self.status}"

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def is_failed(self) -> bool:
        return self.status == self.Status.FAILED

    @property
    def is_stalled(self) -> bool:
        """Pending, or reading without a sign of life, so long that no worker is on
        it."""
        now = timezone.now()
        if self.status == self.Status.READING:
            since = self.heartbeat_at or self.started_at or self.created_at
            return now - since > self.READ_STALLED_AFTER
        if self.status == self.Status.PENDING:
            return now - self.created_at > self.STALLED_AFTER
        return False

    @property
    def working(self) -> bool:
        return not (self.is_done or self.is_failed or self.is_stalled)

    @property
    def percent(self) -> int:
        if not self.bytes_total:
            return 0
        return min(100, round(100 * self.bytes_read / self.bytes_total))


class LogUpload(models.Model):
    """One file (or the pasted text) of a reading, until the worker has read it.
    A file above the reader's limit is kept by name and size only."""

    reading = models.ForeignKey(
        LogReading, on_delete=models.CASCADE, related_name="uploads"
    )
    position = models.PositiveSmallIntegerField(default=0)
    name = models.CharField(max_length=255)
    size = models.BigIntegerField(default=0)
    data = models.BinaryField(null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = "training log upload"

    def __str__(self):
        return f"{self.name} ({self.size} bytes)"
