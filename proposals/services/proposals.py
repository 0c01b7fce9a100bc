"""The applicant's proposals: create one, note the steps visited, and the filing
(delete, archive, duplicate). Saving a step is :mod:`.saving`, the rows' operations
:mod:`.rows`, the revision every write advances :mod:`.revisions`."""

from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from proposals.domain import limits, workflow
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ReviewState,
    ScalingMeasurement,
    UsageMonth,
)

from .review import review_withdraw
from .row_operations import ROW_MODELS, copy_refused


@transaction.atomic
def proposal_create(
    *, owner, title: str, call_family: str = "", system=None
) -> Proposal:
    """Create a draft with one code entry ready for the main training loop."""
    proposal = Proposal.objects.create(
        owner=owner,
        title=title,
        # CallFamily is made at run time from the domain's labels (models/proposal.py).
        call_family=call_family or Proposal.CallFamily.INDUSTRIAL_INNOVATION,  # type: ignore[attr-defined]
        system=system,
    )
    CodeEntry.objects.create(proposal=proposal, role=CodeEntry.Role.MAIN, position=0)
    return proposal


def proposal_mark_visited(*, proposal: Proposal, step: str) -> None:
    """Remember that the applicant opened ``step`` (once; not a change of content,
    so the revision stays)."""
    if step in (proposal.visited_steps or []):
        return
    proposal.visited_steps = [*(proposal.visited_steps or []), step]
    Proposal.objects.filter(pk=proposal.pk).update(visited_steps=proposal.visited_steps)


# --------------------------------------------------------------------------------------
# The applicant's filing: delete, archive, duplicate.

# --------------------------------------------------------------------------------------


def proposal_was_sent_for_review(*, proposal: Proposal) -> bool:
    """Whether ``proposal`` was ever sent for review (staff then keep it)."""
    return Proposal.objects.filter(pk=proposal.pk, review_state__isnull=False).exists()


@transaction.atomic
def proposal_delete(*, proposal: Proposal) -> bool:
    """Delete ``proposal`` for its owner (see ``proposals_delete``). Returns whether
    it was kept."""
    _, kept = proposals_delete(proposals=Proposal.objects.filter(pk=proposal.pk))
    return kept == 1


@transaction.atomic
def proposals_delete(*, proposals: QuerySet[Proposal]) -> tuple[int, int]:
    """Delete ``proposals`` for their owner. One that was ever sent for review is
    only marked deleted (its owner no longer sees it; staff keep its revisions and
    comments, and see it as withdrawn if it was under review; one deleted before
    keeps its date); any other is removed with its rows. In statements that do not
    grow with the number of proposals, except one withdrawal for each proposal under
    review. Returns how many were removed and how many kept."""
    locked = dict(proposals.select_for_update().values_list("pk", "deleted_at"))
    sent = set(
        ReviewState.objects.filter(proposal__in=list(locked)).values_list(
            "proposal", flat=True
        )
    )
    kept = {pk for pk, deleted_at in locked.items() if pk in sent or deleted_at}
    newly = [pk for pk in kept if locked[pk] is None]
    if newly:
        Proposal.objects.filter(pk__in=newly).update(deleted_at=timezone.now())
        under_review = Proposal.objects.filter(
            pk__in=newly, status__in=workflow.UNDER_REVIEW
        ).select_related("owner")
        for proposal in under_review:
            review_withdraw(proposal=proposal, note="Deleted by the applicant.")
    removed = [pk for pk in locked if pk not in kept]
    if removed:
        Proposal.objects.filter(pk__in=removed).delete()
    return len(removed), len(kept)


@transaction.atomic
def proposal_set_archived(*, proposal: Proposal, archived: bool) -> None:
    """Move ``proposal`` out of (or back into) its owner's default list. Filing is
    not an edit: the revision and "last change" stay as they were."""
    proposal.archived_at = timezone.now() if archived else None
    Proposal.objects.filter(pk=proposal.pk).update(archived_at=proposal.archived_at)


# Fields of a proposal that belong to this copy, not to the content.

_NOT_COPIED = {"id", "owner", "title", "status", "revision", "created_at", "updated_at"}

_NOT_COPIED |= {"archived_at", "deleted_at"}


def _content_values(instance, *, skip: set[str]) -> dict:
    """``instance``'s concrete field values (foreign keys as ids), except ``skip``."""
    return {
        field.attname: getattr(instance, field.attname)
        for field in type(instance)._meta.concrete_fields
        if field.name not in skip and field.attname not in skip
    }


@transaction.atomic
def proposal_duplicate(*, proposal: Proposal, owner, title: str) -> Proposal:
    """A new draft for ``owner`` called ``title`` with every value and every row of
    ``proposal`` (measurements keep pointing at the copies of their code entries);
    it starts at revision 1, with no review history. A table holding more rows
    than the format allows (a draft stored before every way in checked) is not
    copied: :class:`~.rows.TableFull`, and nothing is written."""
    for kind, model in ROW_MODELS.items():
        room = limits.TableRoom(kind, model.objects.filter(proposal=proposal).count())
        if room.over:
            raise copy_refused(room)
    copy = Proposal.objects.create(
        owner=owner,
        title=title,
        **_content_values(proposal, skip=_NOT_COPIED),
    )
    code_copies = {}
    for code in CodeEntry.objects.filter(proposal=proposal).order_by("position", "id"):
        new = CodeEntry.objects.create(
            proposal=copy, **_content_values(code, skip={"id", "proposal"})
        )
        code_copies[code.pk] = new.pk
    for model in (ScalingMeasurement, JobType, UsageMonth):
        rows: list[Any] = []  # of this model (a union of the three to mypy)
        for row in model.objects.filter(proposal=proposal).order_by("position", "id"):
            values = _content_values(row, skip={"id", "proposal"})
            if "code_id" in values:
                values["code_id"] = code_copies.get(values["code_id"])
            rows.append(model(proposal=copy, **values))
        model.objects.bulk_create(rows)
    return copy
