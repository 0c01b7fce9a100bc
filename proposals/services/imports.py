"""Writes of a JSON import: a new proposal, or a new revision of one, in bulk."""

import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from proposals import assess, domain, retention
from proposals.domain import jsonformat, limits
from proposals.domain.sections import TABLE_BY_KIND
from proposals.models import (
    CodeEntry,
    JobType,
    PendingImport,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

from .revisions import canonical, revision_bump_expected
from .stamps import fields_stamp, stamp_key

# An imported file fills every section: none of its steps is "not started".
_IMPORTED_STEPS = [section.slug for section in domain.sections.SECTIONS]

# --------------------------------------------------------------------------------------
# Import of a file in the JSON format: a new proposal, or a new revision of one.
# --------------------------------------------------------------------------------------


def _checked_rows(document: domain.Proposal) -> assess.ImportRows:
    """The document's values and rows, validated (``assess.document_rows``), and
    no table beyond the format's row limit, whoever built the document (the file
    reader refuses such a file already): ``domain.FormatError`` with its path."""
    rows = assess.document_rows(document, systems=assess.system_ids())
    problems = []
    for kind, items in (
        ("codes", rows.codes),
        ("measurements", rows.measurements),
        ("jobs", rows.jobs),
        ("schedule", rows.schedule),
    ):
        room = limits.TableRoom(kind, len(items))
        if room.over:
            problems.append(
                (
                    TABLE_BY_KIND[kind].path,
                    _("has {rows} rows; at most {most} are allowed").format(
                        rows=room.rows, most=room.most
                    ),
                )
            )
    if problems:
        raise domain.FormatError(problems)
    return rows


def _write_children(*, proposal: Proposal, rows: assess.ImportRows) -> None:
    """Insert every row with one ``bulk_create`` per table (codes first, so that the
    measurements can point at them)."""
    for model, items in rows.children():
        for item in items:
            item.proposal = proposal
        if model is ScalingMeasurement:
            for item, index in zip(items, rows.measurement_codes, strict=True):
                item.code = None if index is None else rows.codes[index]
        model.objects.bulk_create(items)


@transaction.atomic
def proposal_import(*, owner, document: domain.Proposal) -> Proposal:
    """Create a proposal for ``owner`` from a parsed document, all or nothing.

    Everything is validated in memory first (``domain.FormatError`` with every
    problem's JSON path, and nothing written); then a fixed number of queries
    writes it, however many rows it has."""
    rows = _checked_rows(document)
    proposal = Proposal.objects.create(
        owner=owner, visited_steps=_IMPORTED_STEPS, **rows.values
    )
    _write_children(proposal=proposal, rows=rows)
    return proposal


@transaction.atomic
def proposal_import_revision(
    *,
    proposal: Proposal,
    document: domain.Proposal,
    expected_revision: int,
    by=None,
) -> Proposal:
    """Replace ``proposal``'s content and rows with ``document`` as its next revision.

    Raises ``RevisionConflict`` when the proposal is no longer at
    ``expected_revision`` (edited after the file was checked), so a confirmation
    never overwrites changes the applicant has not seen; ``domain.FormatError`` when
    the document does not fit. Either way nothing is written. ``by`` is noted as
    the last to change each field the file changed, and every field of its rows
    (new rows; the old ones' stamps go with them)."""
    rows = _checked_rows(document)
    before = {name: canonical(getattr(proposal, name)) for name in rows.values}
    revision_bump_expected(proposal=proposal, expected_revision=expected_revision)
    Proposal.objects.filter(pk=proposal.pk).update(
        visited_steps=_IMPORTED_STEPS, **rows.values
    )
    # Measurements first: then deleting the codes has nothing to detach.
    for model in (ScalingMeasurement, CodeEntry, JobType, UsageMonth):
        model.objects.filter(proposal=proposal).delete()
    _write_children(proposal=proposal, rows=rows)
    proposal.refresh_from_db()
    _stamp_import(proposal, rows, before, by)
    return proposal


def _stamp_import(proposal, rows, before: dict, by) -> None:
    """Stamp what an imported revision set: the proposal's fields it changed and
    every field of its (new) rows; the stamps of the rows it replaced go."""
    if by is None:
        return
    proposal.field_stamps.filter(key__contains=":").delete()
    keys = [
        stamp_key(proposal, proposal._meta.get_field(name).name)
        for name, value in before.items()
        if canonical(getattr(proposal, name)) != value
    ]
    for model, items in rows.children():
        names = [
            f.name
            for f in model._meta.concrete_fields
            if f.name not in ("id", "proposal", "position")
        ]
        keys += [stamp_key(item, name) for item in items for name in names]
    fields_stamp(proposal=proposal, keys=keys, by=by)


def pending_import_expire(*, now=None) -> int:
    """Delete the checked files left unconfirmed past ``retention.PENDING_IMPORT``;
    how many."""
    expired = (now or timezone.now()) - retention.PENDING_IMPORT
    deleted, _by_model = PendingImport.objects.filter(created_at__lt=expired).delete()
    return deleted


class PendingImportError(Exception):
    """A checked upload that cannot be confirmed (the message says why)."""


def pending_import_create(
    *, owner, proposal: Proposal, document: domain.Proposal
) -> str:
    """Keep a checked file on the server until ``owner`` confirms it; return the
    random token that names it. Expired ones are deleted on the way."""
    pending_import_expire()
    token = secrets.token_urlsafe(32)
    PendingImport.objects.create(
        token=token, owner=owner, proposal=proposal, document=jsonformat.dump(document)
    )
    return token


@transaction.atomic
def pending_import_confirm(
    *, owner, proposal: Proposal, token: str, expected_revision: int
) -> Proposal:
    """Import the file kept under ``token`` as the next revision of ``proposal``.

    Only its owner can confirm it, only into the proposal it was checked for, and
    only before it expires (``PendingImportError``). On ``RevisionConflict`` the file
    is kept, so the applicant can look again and confirm."""
    pending = (
        PendingImport.objects.select_for_update()
        .filter(token=token, owner=owner, proposal=proposal)
        .first()
    )
    if pending is None:
        raise PendingImportError(
            _(
                "This checked file is not available (it was used or belongs to "
                "another upload). Upload the file again."
            )
        )
    if pending.expired:
        minutes = int(PendingImport.LIFETIME.total_seconds() // 60)
        raise PendingImportError(
            _(
                "This checked file has expired: a file waits %(minutes)s minutes for "
                "confirmation. Upload it again."
            )
            % {"minutes": minutes}
        )
    updated = proposal_import_revision(
        proposal=proposal,
        document=jsonformat.parse(pending.document),
        expected_revision=expected_revision,
        by=owner,
    )
    pending.delete()
    return updated
