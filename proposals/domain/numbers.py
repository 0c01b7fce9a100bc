"""Number normalisation shared by the JSON format and the assessment output."""

from __future__ import annotations

import math


def json_number(
    value: float | int | None, digits: int | None = 6
) -> float | int | None:
    """Round to ``digits`` decimals (``None``: keep) and return whole values as int.

    Keeps output stable across platforms and makes ``4.0`` and ``4`` print alike.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    rounded = float(value) if digits is None else round(float(value), digits)
    if rounded.is_integer():
        return int(rounded)
    return rounded


# How every page, export and message shows a number that is not there.
MISSING = "—"


def grouped(
    value: float | int | None, decimals: int = 2, missing: str = MISSING
) -> str:
    """A number as people read it: ``18176`` -> ``18,176``, ``0.1`` -> ``0.1``, at
    most ``decimals`` places and no trailing zeros; ``missing`` for none (or for a
    value that is not a finite number)."""
    if value is None or isinstance(value, bool):
        return missing
    try:
        number = float(value)
    except (TypeError, ValueError):
        return missing
    if not math.isfinite(number):
        return missing
    if number.is_integer():
        return f"{int(number):,}"
    text = f"{number:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"
