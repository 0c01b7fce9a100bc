"""Checked proposal files waiting for their owner's confirmation."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from proposals import retention

from .proposal import Proposal


class PendingImport(models.Model):
    """A revision file that passed the check and waits for its owner to confirm it.

    The checked document stays on the server, bound to the user and the proposal,
    instead of travelling back through the page; it expires after ``LIFETIME``
    (``retention.PENDING_IMPORT``), and expired ones are deleted whenever a new file
    is checked and by ``manage.py expire_stale``."""

    LIFETIME = retention.PENDING_IMPORT

    token = models.CharField(max_length=64, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="+")
    document = models.JSONField(help_text="The checked file, parsed and re-dumped.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self):
        return f"Pending import into proposal {self.proposal_id}"

    @property
    def expired(self) -> bool:
        return self.created_at < timezone.now() - self.LIFETIME
