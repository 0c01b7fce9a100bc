"""Number normalisation shared by the JSON format and the assessment output."""

from __future__ import annotations


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
