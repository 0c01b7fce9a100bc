"""The help desk's own things: its calendar (the days it is closed besides weekends
and public holidays: the week between Christmas and New Year, a site shutdown) and
its canned replies."""

import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from proposals.domain.canned import PLACEHOLDERS, braced, unknown_placeholders


class DeskClosure(models.Model):
    """Days the desk is closed, first to last (inclusive): the working-day counts
    (waiting times, "late", time left) skip them, for every staff member's
    calendar. Edited in the Django admin."""

    start = models.DateField(_("first day"))
    end = models.DateField(_("last day"))
    label = models.CharField(_("label"), max_length=200)

    class Meta:
        ordering = ["start", "end"]
        verbose_name = _("desk closure")
        verbose_name_plural = _("desk closures")
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gte=F("start")), name="deskclosure_end_not_before"
            ),
        ]

    def __str__(self):
        return f"{self.label} ({self.start} – {self.end})"

    def clean(self):
        if self.start and self.end and self.end < self.start:
            raise ValidationError(
                {"end": _("The last day cannot be before the first.")}
            )
        if self.start and self.end and (self.end - self.start).days > 366:
            raise ValidationError({"end": _("A closure lasts at most a year.")})

    def days(self) -> list[datetime.date]:
        """Every day of the closure."""
        count = (self.end - self.start).days + 1
        return [self.start + datetime.timedelta(days=n) for n in range(count)]


def _placeholders_help() -> str:
    return gettext("Placeholders, filled when inserted: %(names)s.") % {
        "names": braced(PLACEHOLDERS)
    }


class CannedReply(models.Model):
    """A reply template the desk keeps, in one language: a staff member writing
    in that language picks it on the review page and its placeholders
    (``domain.canned.PLACEHOLDERS``) are filled with the proposal's figures.
    Edited in the Django admin."""

    title = models.CharField(_("title"), max_length=120)
    language = models.CharField(
        _("language"), max_length=16, choices=settings.LANGUAGES
    )
    body = models.TextField(
        _("text"),
        max_length=5000,
        help_text=lazy(_placeholders_help, str)(),
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["language", "title", "id"]
        verbose_name = _("canned reply")
        verbose_name_plural = _("canned replies")
        constraints = [
            models.UniqueConstraint(
                fields=["language", "title"], name="cannedreply_title_once"
            ),
        ]

    def __str__(self):
        return f"{self.title} ({self.language})"

    def clean(self):
        unknown = unknown_placeholders(self.body or "")
        if unknown:
            raise ValidationError(
                {
                    "body": _("Unknown placeholders: %(names)s.")
                    % {"names": braced(unknown)}
                }
            )


class SavedQueueView(models.Model):
    """A staff member's named set of queue filters (the query string of the
    queue's filter form), shown as a link above their queue; a ``shared`` one
    above every staff member's queue too (only its owner changes or deletes it)."""

    MAX_PER_PERSON = 30

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    name = models.CharField(_("name"), max_length=80)
    query = models.CharField(max_length=1000, blank=True)
    shared = models.BooleanField(_("shared with the desk"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("saved queue view")
        verbose_name_plural = _("saved queue views")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "name"], name="savedqueueview_name_once"
            ),
        ]

    def __str__(self):
        return self.name


class StaffDigest(models.Model):
    """One daily digest of a staff member (``Preferences.staff_mail`` "daily
    digest"): the working day it was for, in their zone, and when it was made,
    so each day gets one and the next lists what came since."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    day = models.DateField()
    sent_at = models.DateTimeField()
    arrived = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-sent_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "day"], name="staffdigest_once"),
        ]

    def __str__(self):
        return f"Digest of {self.user} for {self.day}"
