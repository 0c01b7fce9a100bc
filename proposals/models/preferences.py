"""A person's own settings: how they write numbers and which clock they read."""

from django.conf import settings
from django.db import models

from proposals.domain.numbers import (
    DEFAULT_NUMBER_FORMAT,
    NUMBER_FORMAT_BY_NAME,
    NumberFormat,
)

DEFAULT_TIME_ZONE = "Europe/Brussels"


class Preferences(models.Model):
    """One per user, created at sign-up from the browser's language; changed on the
    account settings page."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    # A CLDR locale (``de_CH``): its separators, grouping, and its form of dates.
    number_format = models.CharField(
        "How you write numbers and dates",
        max_length=32,
        default=DEFAULT_NUMBER_FORMAT,
        help_text="Numbers you type in the wizard are read this way, and every number "
        "and date the wizard shows you (on its pages and in its e-mails) is printed "
        "this way. The portal text, the exports and the JSON file always use the "
        "portal's plain form (18176, 0.2).",
    )
    time_zone = models.CharField(
        "Your time zone",
        max_length=64,
        default=DEFAULT_TIME_ZONE,
        help_text="Cut-offs, waiting times and histories are shown in this zone, "
        "with its name (CET, CEST).",
    )

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self):
        return f"Preferences of {self.user}"

    @property
    def number_format_spec(self) -> NumberFormat:
        return NUMBER_FORMAT_BY_NAME.get(
            self.number_format, NUMBER_FORMAT_BY_NAME[DEFAULT_NUMBER_FORMAT]
        )
