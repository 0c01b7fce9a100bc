"""Writes of the review's comments: the staff's and the applicant's, and replies."""

from django.db import transaction

from proposals import notifications, selectors
from proposals.domain.fields import anchor_name, row_names
from proposals.domain.sections import TABLE_BY_KIND
from proposals.domain.team import Capability, allows
from proposals.models import (
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewState,
)

from .mail import mail_queue
from .review import ReviewError
from .row_operations import ROW_MODELS


def _row_anchor(
    proposal: Proposal, field: str, snapshot: dict | None = None
) -> tuple[int | None, str]:
    """The row a field path points at in the draft (its id) and the row's name
    now ("fine-tuning"; its label is made in each reader's language from the
    path and this name); ``(None, "")`` for a path that is not in a
    row, or a row that is not there. With ``snapshot`` (the revision the page
    showed), the path counts in that revision's rows: the name is that row's,
    and the draft row is the one with the same name (none if the name is not
    unique, or gone)."""
    _, kind, index, _ = anchor_name(field)
    if not kind or index is None:
        return None, ""
    name_field = TABLE_BY_KIND[kind].name_field
    model = ROW_MODELS[kind]
    rows = list(
        model.objects.filter(proposal=proposal)
        .order_by("position", "id")
        .values_list("pk", name_field or "pk")
    )
    names = {kind: [str(name) if name_field else "" for _, name in rows]}
    if snapshot is not None:
        shown = row_names(snapshot).get(kind, [])
        if index >= len(shown):
            return None, ""
        wanted = shown[index] if name_field else ""
        same = [
            pk
            for (pk, _), name in zip(rows, names[kind], strict=True)
            if wanted and name == wanted
        ]
        row_id = same[0] if len(same) == 1 else None
        return row_id, wanted.strip()[:200]
    if index >= len(rows):
        return None, ""
    return rows[index][0], names[kind][index].strip()[:200]


def _writes_as_staff(proposal: Proposal, author, staff_only: bool, parent) -> bool:
    """Whether ``author`` comments as staff (``False``: as a member of the team);
    a ReviewError when they may not comment at all, or not this way."""
    is_member = allows(
        selectors.team_role(user=author, proposal=proposal), Capability.COMMENT
    )
    is_staff = selectors.user_is_support_staff(user=author)
    if is_staff:
        # A staff member conflicted on the proposal writes only as its team does.
        conflict = selectors.review_conflict(user=author, proposal=proposal)
        wants_staff = staff_only or (parent is not None and parent.staff_only)
        if conflict and (wants_staff or not is_member):
            raise ReviewError(conflict)
        is_staff = not conflict
    if not (is_staff or is_member):
        raise ReviewError("You cannot comment on this proposal.")
    return is_staff


def _comment_row(proposal: Proposal, field: str, parent, shown_revision):
    """The row a comment on ``field`` is about, as (row id, row name): a reply's
    thread's row, else the row a path names in the revision the page showed."""
    if parent is not None:
        return parent.row_id, parent.row_name
    # A row path counts in the rows of the revision the page showed, if any.
    shown = (
        ProposalRevision.objects.filter(proposal=proposal, number=shown_revision)
        .values_list("snapshot", flat=True)
        .first()
        if shown_revision
        else None
    )
    return _row_anchor(proposal, field, shown)


@transaction.atomic
def comment_add(
    *,
    proposal: Proposal,
    author,
    section: str,
    body: str,
    field: str = "",
    parent=None,
    staff_only: bool = False,
    shown_revision: int | None = None,
):
    """Add a comment (or a reply) on one section of a proposal.

    Staff may comment on any proposal sent for review and may keep a note internal
    (``staff_only``); a reply to an internal note stays internal. A staff member
    conflicted on the proposal (``selectors.review_conflict``) comments only as a
    member of its team, never as staff nor on an internal note. The applicant's
    team (any role) may comment on their proposal and reply to what they can see; their comments are
    never internal. The other side is told by e-mail, and so is the rest of the
    team for an applicant's comment, and each member it mentions as ``@username``
    (``notifications.comment_mails``). ``shown_revision``: the
    revision whose rows the staff page showed (a row in ``field`` counts there)."""

    is_staff = _writes_as_staff(proposal, author, staff_only, parent)
    body = body.strip()
    if not body:
        raise ReviewError("Write something first.")
    if section not in ReviewComment.Section.values:
        raise ReviewError("Unknown section.")
    if parent is not None:
        if parent.proposal_id != proposal.pk:
            raise ReviewError("That comment belongs to another proposal.")
        if parent.parent_id:
            parent = parent.parent  # one level of replies: answer the thread
        if parent.staff_only and not is_staff:
            raise ReviewError("You cannot reply to that comment.")
        section, field = parent.section, parent.field
    staff_only = is_staff and (staff_only or (parent is not None and parent.staff_only))
    state = ReviewState.objects.filter(proposal=proposal).first()
    field = field.strip()
    row_id, row_text = _comment_row(proposal, field, parent, shown_revision)
    comment = ReviewComment.objects.create(
        proposal=proposal,
        author=author,
        section=section,
        field=field,
        row_id=row_id,
        row_name=row_text,
        body=body,
        parent=parent,
        staff_only=staff_only,
        by_staff=is_staff,
        revision=state.latest_revision if state else None,
    )
    ReviewState.objects.filter(proposal=proposal).update(
        last_activity_at=comment.created_at
    )
    mail_queue(
        mails=notifications.comment_mails(comment=comment, state=state),
        proposal=proposal,
    )
    return comment
