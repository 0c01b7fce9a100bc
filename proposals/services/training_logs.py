"""Writes of rows read from training logs and sacct output: through the paste's
service (:mod:`.paste`), so they get its row limits, its one-step revision and its
undo, and whatever checks it gains."""

from django.db import transaction

from proposals.models import Proposal

from .paste import PastedRowsChanged, proposal_paste_rows, proposal_undo_paste


@transaction.atomic
def proposal_add_log_rows(
    *, proposal: Proposal, measurements: list[dict], jobs: list[dict]
) -> dict[str, list]:
    """Append the measurements and job-plan rows read from logs (values as
    ``domain.training_logs.measurement_row`` / ``job_row`` give them, provenance
    included), all or nothing. Returns the new rows' keys per table kind."""
    added = {}
    for kind, rows in (("measurements", measurements), ("jobs", jobs)):
        if rows:
            added[kind] = proposal_paste_rows(proposal=proposal, kind=kind, rows=rows)
    return added


@transaction.atomic
def proposal_undo_log_rows(
    *, proposal: Proposal, added: dict[str, list], shown: dict | None = None
) -> int:
    """Remove the rows of one reading (those still there); returns how many. With
    ``shown`` (table kind -> row id -> what the page showed of it), rows changed
    since then elsewhere are named (:class:`PastedRowsChanged`, of every table) and
    nothing is removed, as for a paste's undo."""
    removed, changed = 0, []
    for kind, pks in added.items():
        if not pks:
            continue
        try:
            removed += proposal_undo_paste(
                proposal=proposal,
                kind=kind,
                pks=pks,
                shown=None if shown is None else shown.get(kind, {}),
            )
        except PastedRowsChanged as error:
            changed.extend(error.changed)
    if changed:
        # Leaving the transaction by this exception puts back any table's rows
        # already removed: all or nothing.
        raise PastedRowsChanged(changed)
    return removed
