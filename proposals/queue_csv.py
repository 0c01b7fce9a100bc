"""The review queue as CSV (the standard library's ``csv`` module).

Spreadsheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a
carriage return) as a formula, and titles and organisation names are the applicants'
own text: such cells get a leading apostrophe, which spreadsheets show as text
(OWASP's advice on CSV injection).

The file starts with a UTF-8 byte-order mark: without it, Excel in most EU locales
reads the file as a legacy code page and garbles every accented name.
"""

import csv

from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from proposals.domain.numbers import PORTAL, NumberFormat, format_number

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BYTE_ORDER_MARK = "\ufeff"

# People read the file: the headers (and the yes/none cells) are in the reader's
# language; the figures follow the reader's number format (``fmt``).
HEADERS = (
    _("Proposal"),
    _("Organisation"),
    _("Applicant"),
    _("Status"),
    _("Revision"),
    _("Tier"),
    _("System"),
    _("GPU-hours"),
    _("Errors"),
    _("Warnings"),
    _("Sent for review"),
    _("Working days waited"),
    _("Typical response (working days)"),
    _("Late"),
    _("Handled by"),
    _("Applicant e-mail"),
    _("Link"),
)


def neutralise(value) -> str:
    """``value`` as CSV text that no spreadsheet runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def delimiter_for(fmt: NumberFormat) -> str:
    """A semicolon where the decimal mark is a comma (as spreadsheets in those
    locales expect), else a comma."""
    return ";" if fmt.decimal == "," else ","


def _row(state, link, fmt: NumberFormat) -> list:
    proposal, revision, wait = state.proposal, state.latest_revision, state.wait
    # A proposal the reader is conflicted on: marked, with no link to its review
    # and nothing of the staff's handling of it.
    conflict = getattr(state, "conflict", None)
    handler = state.handled_by.get_username() if state.handled_by else ""
    if conflict is not None:
        handler = ""
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
        # The day the queue counts working days from (the desk's zone).
        timezone.localdate(state.submitted_at).isoformat(),
        "" if wait is None else wait.working_days,
        "" if wait is None else (wait.response.working_days or gettext("none")),
        gettext("yes") if wait is not None and wait.overdue else "",
        handler,
        proposal.applicant_email,
        link(state) if conflict is None else conflict.label,
    ]


def queue_csv(out, states, *, link, fmt: NumberFormat = PORTAL) -> None:
    """Write the byte-order mark, the header and one row per review state (with
    ``wait`` attached), for a spreadsheet in ``fmt``'s locale (its delimiter and
    decimal mark); ``link(state)`` is the absolute address of its review, which
    a row the reader is conflicted on (``state.conflict``) replaces with its
    mark."""
    out.write(BYTE_ORDER_MARK)
    writer = csv.writer(out, delimiter=delimiter_for(fmt))
    writer.writerow([str(header) for header in HEADERS])
    for state in states:
        writer.writerow([neutralise(value) for value in _row(state, link, fmt)])
