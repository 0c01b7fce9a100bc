"""The help desk's own calendar: the days it is closed besides weekends and public
holidays (the week between Christmas and New Year, a site shutdown)."""

import datetime

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


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
