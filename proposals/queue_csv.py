"""The review queue as CSV (the standard library's ``csv`` module).

Spreadsheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a
carriage return) as a formula, and titles and organisation names are the applicants'
own text: such cells get a leading apostrophe, which spreadsheets show as text
(OWASP's advice on CSV injection).
"""

import csv

from proposals.domain.numbers import PORTAL, NumberFormat, format_number

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

HEADERS = (
    "Proposal",
    "Organisation",
    "Applicant",
    "Status",
    "Revision",
    "Tier",
    "System",
    "GPU-hours",
    "Errors",
    "Warnings",
    "Sent for review",
    "Working days waited",
    "Typical response (working days)",
    "Late",
    "Handled by",
)


def neutralise(value) -> str:
    """``value`` as CSV text that no spreadsheet runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def delimiter_for(fmt: NumberFormat) -> str:
    """A semicolon where the decimal mark is a comma (as spreadsheets in those
    locales expect), else a comma."""
    return ";" if fmt.decimal == "," else ","


def _row(state, fmt: NumberFormat) -> list:
    proposal, revision, wait = state.proposal, state.latest_revision, state.wait
    hours = revision.total_gpu_hours
    return [
        proposal.title,
        proposal.organisation_name,
        proposal.applicant_name,
        proposal.get_status_display(),
        f"r{revision.number}",
        revision.get_tier_display(),
        revision.system.name if revision.system else "",
        "" if hours is None else format_number(hours, fmt, grouping=False),
        revision.error_count,
        revision.warning_count,
        state.submitted_at.date().isoformat(),
        "" if wait is None else wait.working_days,
        "" if wait is None or wait.typical is None else wait.typical,
        "yes" if wait is not None and wait.overdue else "",
        state.handled_by.get_username() if state.handled_by else "",
    ]


def queue_csv(out, states, *, fmt: NumberFormat = PORTAL) -> None:
    """Write the header and one row per review state (with ``wait`` attached), for
    a spreadsheet in ``fmt``'s locale: its delimiter and decimal mark."""
    writer = csv.writer(out, delimiter=delimiter_for(fmt))
    writer.writerow(HEADERS)
    for state in states:
        writer.writerow([neutralise(value) for value in _row(state, fmt)])
