"""Sum lines in a pasted job plan: a line that starts with a total word, in the
languages applicants write drafts in, or one that repeats the column sums of the
rows above it, whatever it is called. Neither is a job."""

from __future__ import annotations

import re
from decimal import Decimal

from .i18n import gettext
from .numbers import NumberError, NumberFormat, parse_number
from .paste_columns import COMPUTED, GCDS, NODES

#: The job-plan columns a spreadsheet's sum line adds up (months and names are not).
SUMMED = frozenset({"gpus", "hours", "count", GCDS, NODES, COMPUTED})

#: The words a sum line starts with, in the languages applicants write drafts in
#: (English, German, French, Italian, Spanish): such a line is the table's total,
#: not a row, whatever its first cell goes on to say.
TOTAL_WORDS = (
    # English
    "total",
    "totals",
    "grand total",
    "subtotal",
    "sum",
    # German
    "summe",
    "gesamt",
    "gesamtsumme",
    "insgesamt",
    "zwischensumme",
    # French
    "totaux",
    "total général",
    "sous-total",
    "somme",
    # Italian
    "totale",
    "totali",
    "totale generale",
    "subtotale",
    "somma",
    # Spanish
    "totales",
    "total general",
    "suma",
)
_TOTAL = re.compile(
    "^(?:"
    + "|".join(re.escape(word) for word in sorted(TOTAL_WORDS, key=len, reverse=True))
    + r")(?!\w)",
    re.IGNORECASE,
)


def is_total(first_cell: str) -> bool:
    """Whether a line whose first cell is ``first_cell`` is a sum line by its name."""
    return bool(_TOTAL.match(first_cell))


def _number(text: str, fmt: NumberFormat) -> Decimal | None:
    try:
        return parse_number(text.replace("*", "").strip(), fmt, places=2).value
    except NumberError:
        return None


def _repeats_column_sums(cells, above: list, columns, fmt: NumberFormat) -> bool:
    """Whether each number ``cells`` holds in a summed column equals the sum of that
    column over the lines ``above`` (the spreadsheet's SUM under every column), with
    at least one such number and nothing else in those columns."""
    summed = False
    for column in columns:
        text = cells[column.index] if column.index < len(cells) else ""
        if column.target not in SUMMED or not text.strip():
            continue
        own = _number(text, fmt)
        values = [
            _number(line[column.index], fmt)
            for line in above
            if column.index < len(line) and line[column.index].strip()
        ]
        given = [value for value in values if value is not None]
        if own is None or len(given) < len(values) or own != sum(given):
            return False
        summed = True
    return summed


def repeats_the_sums(row, paste, fmt: NumberFormat) -> bool:
    """Whether a job-plan line is the sum of the rows above it (``paste.rows``, at
    least two), whatever its first cell says: every number it holds equals its
    column's sum, or it has no GPUs and no hours (a job has both) and its jobs and
    GPU-hours equal the plan's totals."""
    if len(paste.rows) < 2:
        return False
    above = [r.cells for r in paste.rows]
    if _repeats_column_sums(row.cells, above, paste.columns, fmt):
        return True
    values = row.values
    if (
        row.problems
        or values.get("gpus") is not None
        or values.get("hours") is not None
    ):
        return False
    jobs = [r.values for r in paste.rows if not r.problems]
    if len(jobs) < 2:
        return False
    checks = []
    if values.get("count") is not None:
        checks.append(values["count"] == sum(job.get("count") or 0 for job in jobs))
    computed = values.get("_computed")
    if computed:
        pasted = _number(computed, fmt)
        if pasted is None:
            return False
        parts = [
            Decimal(job["gpus"]) * Decimal(job["hours"]) * Decimal(job["count"])
            for job in jobs
            if None not in (job.get("gpus"), job.get("hours"), job.get("count"))
        ]
        checks.append(len(parts) == len(jobs) and pasted == sum(parts))
    return bool(checks) and all(checks)


def sum_line_note(number: int, *, by_name: bool) -> str:
    """What the preview says of sum line ``number``, left out."""
    if by_name:
        return gettext(
            "Line {number} is a total line: not added (the wizard adds up the rows "
            "itself)."
        ).format(number=number)
    return gettext(
        "Line {number} repeats the sums of the rows above: a total line, not added "
        "(the wizard adds up the rows itself)."
    ).format(number=number)
