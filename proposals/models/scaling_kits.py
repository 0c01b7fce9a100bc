"""Scaling kits handed out (issue 37): when, for which GPU counts, by whom."""

from django.conf import settings
from django.db import models

from .proposal import Proposal


class ScalingKit(models.Model):
    """One download of a proposal's scaling kit (the zip): the exports and the
    staff page say when scripts were generated and for which counts, and which of
    those counts have come back as measurements."""

    # Kits kept per proposal (the newest): the pages show the last.
    KEEP = 10

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="scaling_kits"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    system = models.CharField(max_length=50)
    counts = models.JSONField(default=list, help_text="GPU counts, as billed.")
    launcher = models.CharField(max_length=20)
    steps = models.PositiveIntegerField()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.system}: {', '.join(map(str, self.counts))} GPUs"
