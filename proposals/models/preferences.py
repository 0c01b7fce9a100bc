"""A person's own settings: how they write numbers."""

from django.conf import settings
from django.db import models

from proposals.domain.numbers import (
    DEFAULT_NUMBER_FORMAT,
    NUMBER_FORMAT_BY_NAME,
    NUMBER_FORMATS,
    NumberFormat,
)


class Preferences(models.Model):
    """One per user, created at sign-up from the browser's language; changed on the
    account settings page."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    number_format = models.CharField(
        "How you write numbers",
        max_length=8,
        choices=[(fmt.name, fmt.label) for fmt in NUMBER_FORMATS],
        default=DEFAULT_NUMBER_FORMAT,
        help_text="Numbers you type in the wizard are read this way, and shown this "
        "way. Exports always use the portal's form (1234.5).",
    )

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self):
        return f"Preferences of {self.user}"

    @property
    def number_format_spec(self) -> NumberFormat:
        return NUMBER_FORMAT_BY_NAME[self.number_format]
