"""Outgoing e-mail, stored with the action that caused it."""

from django.db import models

from .proposal import Proposal


class OutgoingMail(models.Model):
    """One e-mail of the review workflow, stored with the action that caused it and
        sent afterwards by the task worker (``proposals.services.deliver_mail``), so a mail
        server outage never breaks the action. Staff see failed mails in the admin, and the
    undeliverable ones: a mail that no confirmed address could receive is stored too (with
    the reason), never dropped."""

    MAX_ATTEMPTS = 5

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RETRYING = "retrying", "Failed, will retry"
        FAILED = "failed", "Failed (gave up)"
        SENT = "sent", "Sent"
        UNDELIVERABLE = "undeliverable", "Not sent: nobody to send it to"

    # Blank for an undeliverable mail meant for several people (``last_error`` names
    # them).
    to = models.EmailField("to", max_length=254, blank=True)
    subject = models.CharField(max_length=300)
    body = models.TextField()
    proposal = models.ForeignKey(
        Proposal,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "outgoing mail"
        verbose_name_plural = "mail delivery"
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self):
        return f"{self.subject} -> {self.to}"
