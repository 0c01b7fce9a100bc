"""The proposal's revision, advanced by every write of its content (and where an
edit of a proposal under review is recorded), and how stored and typed values are
compared (``canonical``) and kept when refused (``storable``)."""

from decimal import Decimal

from django.db.models import F, Model
from django.utils import timezone

from proposals.domain import workflow
from proposals.models import Proposal

from .review import review_record_edit


class RevisionConflict(Exception):
    """The change (an edit, or an upload checked earlier) was based on an older
    revision than the one stored; ``current`` is the stored one."""

    def __init__(self, current: int):
        super().__init__(f"The proposal is at revision {current}.")
        self.current = current


def _advance(rows, proposal: Proposal, *, edit: bool = True, **values) -> int:
    """Advance the revision of ``rows`` (the proposal, possibly filtered on the
    revision a page was based on) and store ``values``; return how many rows moved.

    Every write of the applicant's content passes here, so this is also where an
    ``edit`` of a proposal under review or ready to submit is recorded (its status
    changes, staff are told). A draft costs one query: the update first matches only
    the statuses an edit leaves alone."""
    bump = {"revision": F("revision") + 1, "updated_at": timezone.now(), **values}
    updated = rows.exclude(status__in=list(workflow.AFTER_EDIT)).update(**bump)
    if not updated:
        updated = rows.update(**bump)
        if updated and edit:
            review_record_edit(proposal=proposal)
    return updated


def revision_bump_expected(*, proposal: Proposal, expected_revision: int) -> int:
    """Advance the revision if it is still ``expected_revision`` (atomic, race-free);
    a proposal changed meanwhile is a :class:`RevisionConflict`."""
    rows = Proposal.objects.filter(pk=proposal.pk, revision=expected_revision)
    if not _advance(rows, proposal):
        current = Proposal.objects.values_list("revision", flat=True).get(
            pk=proposal.pk
        )
        raise RevisionConflict(current)
    proposal.revision = expected_revision + 1
    return proposal.revision


def revision_bump(
    proposal: Proposal,
    *,
    locked_revision: int | None = None,
    edit: bool = True,
    **values,
) -> int:
    """Advance the revision (and store ``values``; see :func:`_advance`). With
    ``locked_revision`` (read under ``select_for_update`` in this transaction) the
    new number is known without reading it back."""
    rows = Proposal.objects.filter(pk=proposal.pk)
    if locked_revision is not None:
        # Read locked in this transaction: its status is the stored one, so the
        # update need not test it (an edit after submission is still recorded).
        bump = {"revision": locked_revision + 1, "updated_at": timezone.now()}
        rows.update(**bump, **values)
        if edit and proposal.status in workflow.AFTER_EDIT:
            review_record_edit(proposal=proposal)
        proposal.revision = locked_revision + 1
        return proposal.revision
    _advance(rows, proposal, edit=edit, **values)
    proposal.revision = Proposal.objects.values_list("revision", flat=True).get(
        pk=proposal.pk
    )
    return proposal.revision


def canonical(value) -> str:
    """A stored or typed value as the text two tabs compare: ``""`` for nothing,
    ``18176`` for ``Decimal("18176.00")``, the primary key of a related object."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, Model):
        return str(value.pk)
    return str(value)


def storable(entry: dict) -> dict:
    """A refused input as ``refused_inputs`` can keep it: PostgreSQL's JSON holds
    no NUL character, so one typed (or quoted in the message) is kept as U+FFFD
    (the input is refused anyway; what is shown back marks where it was)."""
    return {
        key: value.replace("\x00", "\ufffd") if isinstance(value, str) else value
        for key, value in entry.items()
    }
