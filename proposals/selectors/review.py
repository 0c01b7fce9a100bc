"""What the staff review page and the review's services read."""

import functools

from django.db.models import F, OuterRef, Subquery
from django.utils.translation import gettext as _

from proposals import localization
from proposals.domain.fields import (
    anchor_name,
    describe_path,
    describe_row_named,
    row_path_at,
)
from proposals.domain.sections import TABLE_BY_KIND
from proposals.domain.team import Capability, Role
from proposals.models import (
    ROLE_LABELS,
    Membership,
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewVisit,
    StatusChange,
    TeamEvent,
    TechnicalAssessment,
)

from .compiled import CompiledQuery
from .conflicts import conflict_of
from .proposals import (
    attach_system_and_rows,
    member_may,
    proposal_get_for_member,
    proposal_with_children,
)
from .queue import user_is_support_staff


def review_stale_status(*, proposal: Proposal, seen_status: str) -> str:
    """When ``proposal`` (its status read under the caller's lock) no longer has
    the status a staff member saw: who changed it from what to what, and when.
    Blank when it has not changed (or nothing was seen)."""
    if not seen_status or proposal.status == seen_status:
        return ""
    last = (
        StatusChange.objects.filter(proposal=proposal)
        .select_related("by")
        .order_by("-at", "-id")
        .first()
    )
    labels = dict(Proposal.Status.choices)
    who, when = _("Somebody"), None
    if last is not None:
        if last.by is not None:
            who = last.by.get_full_name() or last.by.get_username()
        # In the reader's zone, with its name, as the pages print times.
        when = localization.when(last.at)
    values = {
        "who": who,
        "old": labels.get(seen_status, seen_status),
        "new": labels.get(proposal.status),
        "when": when,
    }
    if when is None:
        return (
            _(
                "%(who)s changed the status from “%(old)s” to “%(new)s”, after this "
                "page was shown. Nothing was changed: look at the proposal again, then "
                "decide."
            )
            % values
        )
    return (
        _(
            "%(who)s changed the status from “%(old)s” to “%(new)s” on %(when)s, after "
            "this page was shown. Nothing was changed: look at the proposal again, then "
            "decide."
        )
        % values
    )


def _memberships(proposal_id: int):
    return (
        Membership.objects.filter(proposal_id=proposal_id)
        .select_related("user")
        .order_by("since", "id")
    )


# Compiled once (on the staff review page, compiling it cost more than reading it).
_MEMBERSHIPS = CompiledQuery(_memberships, arity=1, many=True)


def review_team(*, proposal: Proposal) -> list[dict]:
    """The proposal's team for the staff: ``{"user", "name", "role", "since"}``
    for its owner (owner since the proposal was made, or since ownership was
    last handed over) and then each member, longest on the team first. Two
    queries; one for a proposal read by ``review_get_for_staff``."""
    if hasattr(proposal, "owner_since_transfer"):  # read with it: review_get_for_staff
        owner_since = proposal.owner_since_transfer
    else:
        owner_since = last_transfer(proposal.pk).values_list("at", flat=True).first()
    team = [
        {
            "user": proposal.owner,
            "name": _name(proposal.owner) or Proposal.ACCOUNT_DELETED,
            "role": ROLE_LABELS[Role.OWNER],
            "since": max(filter(None, [proposal.created_at, owner_since])),
        }
    ]
    for membership in _MEMBERSHIPS.all(proposal.pk):
        team.append(
            {
                "user": membership.user,
                "name": _name(membership.user),
                "role": ROLE_LABELS[Role(membership.role)],
                "since": membership.since,
            }
        )
    return team


def _name(user) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def _for_staff(user_id: int, pk: int):
    """Proposal ``pk`` if it was sent for review, with its review state (the latest
    revision, the handler) and owner, and what the page asks of it for
    ``user_id``: compiled once (``_FOR_STAFF``)."""
    return (
        Proposal.objects.filter(review_state__isnull=False, pk=pk)
        .select_related(
            "owner", "review_state__latest_revision", "review_state__handled_by"
        )
        .annotate(
            visit_opened_at=Subquery(
                ReviewVisit.objects.filter(
                    proposal=OuterRef("pk"), user_id=user_id
                ).values("opened_at")[:1]
            ),
            reader_role=Subquery(
                Membership.objects.filter(
                    proposal=OuterRef("pk"), user_id=user_id
                ).values("role")[:1]
            ),
            owner_since_transfer=Subquery(
                last_transfer(OuterRef("pk")).values("at")[:1]
            ),
            started_route=F("access_route__route__slug"),
        )
        # One row by its key: no ORDER BY, which Django would build from the
        # model's ordering by comparing it with each of the columns selected.
        .order_by()
    )


# Compiled once: compiling its hundred-odd columns cost more than reading them.
_FOR_STAFF = CompiledQuery(_for_staff, arity=2)


def review_get_for_staff(*, user, pk: int) -> Proposal | None:
    """A proposal for the staff review pages; ``None`` unless ``user`` is support
    staff and the proposal was sent for review at least once. ``visit_opened_at``:
    when ``user`` last opened its review (``None``: never), for
    ``services.review_visit_record``; ``reader_role`` (``user``'s role on its team,
    for ``team_role``), ``owner_since_transfer`` (for ``review_team``) and
    ``started_route`` (for ``route_of_proposal``) read with it, not by queries of
    their own. Its system comes from the catalogue kept in process and its rows
    of the four tables in one query, as the wizard reads them."""
    if not user_is_support_staff(user=user):
        return None
    proposal = _FOR_STAFF.first(user.pk, pk)
    if proposal is not None:
        proposal.reader_id = user.pk  # reader_role is theirs (selectors.team_role)
        attach_system_and_rows(proposal)
    return proposal


def last_transfer(proposal_id):
    """The proposal's ownership transfers, the last first."""
    return TeamEvent.objects.filter(
        proposal_id=proposal_id, kind=TeamEvent.Kind.TRANSFERRED
    ).order_by("-at", "-id")


def proposal_get_for_reader(*, user, pk: int) -> tuple[Proposal | None, bool]:
    """The proposal for read-only pages (the exports): one of the team's (any role
    exports), or for support staff any proposal sent for review at least once
    that they are not conflicted on (a member reads it as the team does).
    Returns ``(proposal, read_as_staff)``; ``(None, False)`` for anybody else."""
    proposal = proposal_get_for_member(user=user, pk=pk)
    if proposal is not None and member_may(proposal, Capability.EXPORT):
        return proposal, False
    if not user_is_support_staff(user=user):
        return None, False
    queryset = proposal_with_children(
        Proposal.objects.filter(review_state__isnull=False)
    )
    proposal = queryset.filter(pk=pk).first()
    if proposal is None or conflict_of(user=user, proposal=proposal) is not None:
        return None, False
    return proposal, True


#: What the lists of revisions show (the rest, the snapshot above all, left unread).
REVISION_LISTED = (
    "proposal",
    "number",
    "tier",
    "error_count",
    "warning_count",
    "created_at",
)


def _revisions(proposal_id: int):
    return (
        ProposalRevision.objects.filter(proposal_id=proposal_id)
        .only(*REVISION_LISTED)
        .order_by("number")
    )


def _status_changes(proposal_id: int):
    return (
        StatusChange.objects.filter(proposal_id=proposal_id)
        .select_related("by", "revision")
        .only(
            "proposal",
            "from_status",
            "to_status",
            "note",
            "at",
            "by__username",
            "revision__number",
        )
    )


def _assessments(proposal_id: int):
    return (
        TechnicalAssessment.objects.filter(proposal_id=proposal_id)
        .select_related("revision", "by")
        .only(
            "proposal",
            "outcome",
            "text",
            "items",
            "at",
            "revision__number",
            "by__username",
        )
        .order_by("at", "id")
    )


def _comments(proposal_id: int, *, staff_only_too: bool):
    comments = ReviewComment.objects.filter(proposal_id=proposal_id)
    if not staff_only_too:
        comments = comments.filter(staff_only=False)
    return comments.select_related("author").order_by("created_at", "id")


# The review page's lists, compiled once (compiling each cost more than reading it).
_REVISIONS = CompiledQuery(_revisions, arity=1, many=True)
_STATUS_CHANGES = CompiledQuery(_status_changes, arity=1, many=True)
_ASSESSMENTS = CompiledQuery(_assessments, arity=1, many=True)
_COMMENTS = {
    staff_only_too: CompiledQuery(
        functools.partial(_comments, staff_only_too=staff_only_too),
        arity=1,
        many=True,
    )
    for staff_only_too in (True, False)
}


def review_revisions(*, proposal: Proposal) -> list[ProposalRevision]:
    """The proposal's revisions, oldest first: what lists of them show."""
    return _REVISIONS.all(proposal.pk)


def review_revision(*, proposal: Proposal, number: int) -> ProposalRevision | None:
    """One revision of the proposal, with its snapshot (``None`` if there is none)."""
    return (
        ProposalRevision.objects.select_related("system")
        .filter(proposal=proposal, number=number)
        .first()
    )


def review_status_changes(*, proposal: Proposal) -> list[StatusChange]:
    """The audit trail of the proposal's status, oldest first (with who made each
    change and the revision's number: only what the history shows is read)."""
    return _STATUS_CHANGES.all(proposal.pk)


def review_comment_threads(
    *, proposal: Proposal, include_staff_only: bool, section: str = ""
) -> list[dict]:
    """Comments of the proposal as threads grouped by section, in the portal's
    order: ``[{"key", "title", "threads": [comment, ...]}]`` where each comment has
    ``thread_replies``. One query. Internal notes (and replies to them) are left out
    unless ``include_staff_only``."""
    comments = _COMMENTS[bool(include_staff_only)].all(proposal.pk)
    if section:
        comments = [comment for comment in comments if comment.section == section]
    threads: dict[int, ReviewComment] = {}
    by_section: dict[str, list] = {key: [] for key in ReviewComment.Section.values}
    replies = []
    for comment in comments:
        if comment.parent_id is None:
            comment.thread_replies = []
            threads[comment.pk] = comment
            by_section[comment.section].append(comment)
        else:
            replies.append(comment)
    for reply in replies:
        if reply.parent_id in threads:
            threads[reply.parent_id].thread_replies.append(reply)
    _resolve_row_anchors(proposal, [*threads.values(), *replies])
    return [
        {"key": key, "title": title, "threads": by_section[key]}
        for key, title in ReviewComment.Section.choices
        if not section or key == section
    ]


def _resolve_row_anchors(proposal: Proposal, comments) -> None:
    """Give each comment on a table row ``anchor_field`` (its path at the row's
    place now) and ``anchor_label`` (the row's place and name now, or its label as
    it was, marked deleted): one query per table commented on."""
    anchored = [c for c in comments if c.row_id]
    kinds = {anchor_name(c.field)[1] for c in anchored} - {""}
    current = {}
    for kind in kinds:
        name_field = TABLE_BY_KIND[kind].name_field
        model = Proposal._meta.get_field(kind).related_model
        rows = list(
            model.objects.filter(proposal=proposal)
            .order_by("position", "id")
            .values_list("pk", name_field or "pk")
        )
        current[kind] = (
            {pk: index for index, (pk, _name) in enumerate(rows)},
            {kind: [str(name) if name_field else "" for _pk, name in rows]},
        )
    for comment in anchored:
        kind = anchor_name(comment.field)[1]
        places, names = current.get(kind, ({}, {}))
        if comment.row_id in places:
            comment.anchor_field = row_path_at(comment.field, places[comment.row_id])
            comment.anchor_label = describe_path(comment.anchor_field, names)
        else:
            comment.anchor_field = ""
            comment.anchor_label = describe_row_named(
                comment.field, comment.row_name, deleted=True
            )


def review_comment_for(*, proposal: Proposal, pk, include_staff_only: bool):
    """A comment of this proposal that the reader may see, or ``None``."""
    if not pk:
        return None
    comments = ReviewComment.objects.filter(proposal=proposal)
    if not include_staff_only:
        comments = comments.filter(staff_only=False)
    return comments.filter(pk=pk).first()


def review_assessments(*, proposal: Proposal) -> dict[int, TechnicalAssessment]:
    """The newest technical assessment of each assessed revision, by revision
    number (one query; of the revision its number, of the author the user name)."""
    latest: dict[int, TechnicalAssessment] = {}
    for assessment in _ASSESSMENTS.all(proposal.pk):
        latest[assessment.revision.number] = assessment
    return latest


def review_open_comments_by_step(*, proposal: Proposal) -> dict[str, int]:
    """Staff comments waiting for the applicant, by wizard step: threads the staff
    started (not internal notes) whose last message is the staff's. The general
    section counts on the wizard's last step ("review"). One query."""
    comments = (
        ReviewComment.objects.filter(proposal=proposal, staff_only=False)
        .order_by("created_at", "id")
        .values_list("pk", "parent_id", "section", "by_staff")
    )
    threads: dict[int, list] = {}
    for pk, parent, section, by_staff in comments:
        if parent is None:
            threads[pk] = [section, by_staff, by_staff]  # section, started, last
        elif parent in threads:
            threads[parent][2] = by_staff
    counts: dict[str, int] = {}
    for section, started_by_staff, last_by_staff in threads.values():
        if started_by_staff and last_by_staff:
            step = "review" if section == ReviewComment.Section.GENERAL else section
            counts[step] = counts.get(step, 0) + 1
    return counts
