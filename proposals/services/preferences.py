"""Writes of a person's own settings."""

from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME
from proposals.models import Preferences


def preferences_set(*, user, number_format: str) -> Preferences:
    """Store how ``user`` writes numbers (one of the named formats)."""
    if number_format not in NUMBER_FORMAT_BY_NAME:
        raise ValueError(f"Unknown number format {number_format!r}.")
    preferences, _ = Preferences.objects.update_or_create(
        user=user, defaults={"number_format": number_format}
    )
    return preferences
