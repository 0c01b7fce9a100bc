"""Download and upload of a proposal in the ``aifactory-proposal/1`` format.

The engine's ``jsonformat`` parses and writes the format; ``domain_to_models`` writes
a parsed document to the database. This module adds what the web upload needs: a size
limit, decoding errors reported at ``$``, and, for a new revision of an existing
proposal, a revision check under a row lock, all in one transaction so that nothing is
ever half-imported.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from proposals import domain
from proposals.assess import domain_to_models, proposal_to_domain
from proposals.models import Proposal

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
FormatError = domain.FormatError


class StaleRevision(Exception):
    """The proposal changed between the upload and its confirmation."""

    def __init__(self, current: int):
        super().__init__(f"The proposal is now at revision {current}.")
        self.current = current


@dataclass(frozen=True)
class Problem:
    path: str
    message: str


def problems_of(error: FormatError) -> list[Problem]:
    """Every problem of ``error``, with its JSON path, for the template."""
    return [Problem(path, message) for path, message in error.problems]


def export_text(model: Proposal) -> str:
    """The proposal (children prefetched) as ``aifactory-proposal/1`` text."""
    return domain.dumps(proposal_to_domain(model))


def parse_upload(data: bytes | str) -> domain.Proposal:
    """Decode and validate an uploaded document; raise ``FormatError`` with paths."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise FormatError(
            [("$", f"the file is larger than {MAX_UPLOAD_BYTES // 1024 // 1024} MB")]
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise FormatError([("$", f"not UTF-8 text: {exc.reason}")]) from None
    return domain.loads(data)


@transaction.atomic
def import_new(*, owner, document: domain.Proposal) -> Proposal:
    """Create a new proposal for ``owner`` from ``document`` (all or nothing)."""
    return domain_to_models(document, owner=owner)


@transaction.atomic
def import_revision(
    *, proposal: Proposal, document: domain.Proposal, expected_revision: int
) -> Proposal:
    """Replace ``proposal``'s content with ``document`` as its next revision.

    Refused with :class:`StaleRevision` when the proposal is no longer at
    ``expected_revision`` (it was edited after the file was checked), so a
    confirmation never overwrites changes the applicant has not seen."""
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if locked.revision != expected_revision:
        raise StaleRevision(locked.revision)
    updated = domain_to_models(document, owner=locked.owner, instance=locked)
    Proposal.objects.filter(pk=updated.pk).update(
        revision=F("revision") + 1, updated_at=timezone.now()
    )
    updated.refresh_from_db(fields=["revision", "updated_at"])
    return updated
