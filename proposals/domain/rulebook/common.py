"""What more than one rule family uses: message numbers and keyword patterns."""

from __future__ import annotations

import re

from ..numbers import num  # noqa: F401 (the rule families' printer, imported from here)


def words(*patterns: str) -> re.Pattern:
    """A case-insensitive pattern matching any of ``patterns`` at a word start."""
    return re.compile(r"(?<![\w])(?:" + "|".join(patterns) + ")", re.IGNORECASE)


DIGIT = re.compile(r"\d")


def exploratory(mode) -> bool:
    """Whether a mode (``ModeTerms``; ``None``: not known) asks for a description of
    tests but for neither a job plan nor scaling data: Playground, which the guides
    call a place for first-time users to port, test and measure."""
    return (
        mode is not None
        and mode.tests_description_required
        and not (mode.job_plan_required or mode.scaling_data_required)
    )
