"""Writes of rows read from training logs and sacct output: through the paste's
service (:mod:`.paste`), so they get its row limits, its one-step revision and its
undo, and whatever checks it gains."""

from django.db import transaction

from proposals.models import Proposal

from .paste import proposal_paste_rows, proposal_undo_paste


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
def proposal_undo_log_rows(*, proposal: Proposal, added: dict[str, list]) -> int:
    """Remove the rows of one reading (those still there); returns how many."""
    return sum(
        proposal_undo_paste(proposal=proposal, kind=kind, pks=pks)
        for kind, pks in added.items()
        if pks
    )
