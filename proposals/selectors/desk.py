"""The help desk's own tools: canned replies, saved views of the queue, and what a
staff member's daily digest lists."""

from dataclasses import dataclass

from django.db.models import Q
from django.utils.translation import gettext as _

from proposals.domain import workflow
from proposals.models import CannedReply, Proposal, ReviewState, SavedQueueView

from .compiled import CompiledQuery
from .conflicts import (
    conflict_between,
    conflicted_proposals,
    declared_organisations,
    queue_mark_conflicts,
)
from .proposals import member_role
from .queue import staff_members


def _canned_replies(language: str):
    return CannedReply.objects.filter(language=language).only("pk", "title")


# Compiled once (on the staff review page, compiling it cost more than reading it).
_CANNED_REPLIES = CompiledQuery(
    _canned_replies, placeholders=("\x00language",), many=True
)


def canned_replies_for(*, language: str) -> list[CannedReply]:
    """The canned replies in ``language`` (a ``settings.LANGUAGES`` code), by
    title (one query)."""
    return _CANNED_REPLIES.all(language)


def canned_reply_get(*, pk, language: str) -> CannedReply | None:
    """The canned reply ``pk`` if it is in ``language``, else ``None``."""
    if not str(pk).isdigit():
        return None
    return CannedReply.objects.filter(pk=int(pk), language=language).first()


# Bulk actions on the queue ----------------------------------------------------

BULK_ACTIONS = ("take", "hand_over", "release", "status")
# At most this many rows at once (four queue pages).
BULK_LIMIT = 100


def bulk_status_targets() -> list[str]:
    """Every status the staff may move a proposal to from some status, in the
    workflow's order (what the bulk "mark as" offers)."""
    return [
        status
        for status in workflow.STATUSES
        if any(
            target == status and role == workflow.STAFF
            for (_current, target), role in workflow.TRANSITIONS.items()
        )
    ]


@dataclass
class BulkRow:
    """One picked row of the queue: what the bulk action will change on it
    (``change``) or why it is refused (``refused``), with what the staff member
    saw (``handler_id``, ``status``) so a change made since is noticed."""

    state: ReviewState
    change: str = ""
    refused: str = ""

    @property
    def handler_id(self):
        return self.state.handled_by_id

    @property
    def status(self) -> str:
        return self.state.proposal.status


def _name(person) -> str:
    return person.get_full_name() or person.get_username()


def _row_plan(row: BulkRow, *, user, action, to, to_status, note) -> None:
    state = row.state
    proposal = state.proposal
    if state.conflict is not None:
        row.refused = state.conflict.message
    elif action == "take":
        if state.handled_by_id == user.pk:
            row.refused = _("You handle it already.")
        elif state.handled_by_id:
            row.change = _("You take it over from %(name)s.") % {
                "name": _name(state.handled_by)
            }
        else:
            row.change = _("You take it.")
    elif action == "hand_over":
        if state.to_conflict is not None:
            row.refused = state.to_conflict.colleague_message(_name(to))
        elif state.handled_by_id == to.pk:
            row.refused = _("%(name)s handles it already.") % {"name": _name(to)}
        else:
            row.change = _("Handed to %(name)s.") % {"name": _name(to)}
    elif action == "release":
        if not state.handled_by_id:
            row.refused = _("Nobody handles it.")
        else:
            row.change = _("Released by %(name)s: handled by nobody.") % {
                "name": _name(state.handled_by)
            }
    elif to_status not in workflow.allowed_targets(proposal.status, workflow.STAFF):
        row.refused = _("It cannot go from “%(current)s” to “%(target)s”.") % {
            "current": proposal.get_status_display(),
            "target": Proposal.Status(to_status).label,
        }
    elif (
        to_status == workflow.READY
        and state.latest_revision.error_count
        and not note.strip()
    ):
        row.refused = _("Its latest revision has error findings: give a note.")
    else:
        row.change = _("“%(current)s” becomes “%(target)s”.") % {
            "current": proposal.get_status_display(),
            "target": Proposal.Status(to_status).label,
        }


def queue_bulk_plan(
    *, user, pks, action: str, to=None, to_status: str = "", note: str = ""
) -> list[BulkRow]:
    """What ``action`` (``BULK_ACTIONS``) would do to each picked proposal
    (``pks``, at most ``BULK_LIMIT``) for staff member ``user``: handing ``to`` a
    colleague, or moving ``to_status`` with ``note``. A row ``user`` or ``to`` is
    conflicted on (``selectors.conflicts``), or that the action does not fit, is
    refused with the reason. Two queries whatever the number of rows (plus one
    for ``to``'s declared conflicts)."""
    queryset = (
        ReviewState.objects.filter(proposal_id__in=list(pks)[:BULK_LIMIT])
        .select_related("proposal", "handled_by", "latest_revision")
        .defer("latest_revision__snapshot", "latest_revision__findings")
        .annotate(reader_role=member_role(user.pk, path="proposal"))
        .order_by("submitted_at", "pk")
    )
    if to is not None:
        queryset = queryset.annotate(to_role=member_role(to.pk, path="proposal"))
    states = list(queue_mark_conflicts(queryset, user=user))
    declared = declared_organisations(user=to) if to is not None else []
    rows = []
    for state in states:
        state.to_conflict = None
        if to is not None:
            state.to_conflict = conflict_between(
                proposal=state.proposal, role=state.to_role, declared=declared
            )
        row = BulkRow(state)
        _row_plan(row, user=user, action=action, to=to, to_status=to_status, note=note)
        rows.append(row)
    return rows


# Saved views of the queue ---------------------------------------------------------


def saved_views_of(*, user):
    """The saved queue views ``user`` sees: their own and those a colleague
    still on the staff shares with the desk (``mine``: whether ``user`` owns
    it), by name; lazy, one query when read."""
    return (
        SavedQueueView.objects.filter(
            Q(user=user) | Q(shared=True, user__in=staff_members().values("pk"))
        )
        .select_related("user")
        .annotate(mine=Q(user=user))
    )


# The daily digest ------------------------------------------------------------------


def digest_of(*, user, since, until) -> tuple[list, list]:
    """What staff member ``user``'s digest lists: the review states of proposals
    that arrived (sent for review) from ``since`` to ``until``, and of those
    that changed then (a status change, a revision or a comment) without
    arriving; neither the ones ``user`` handles (their mail comes at once) nor
    the ones they are conflicted on. Three queries."""
    states = (
        ReviewState.objects.select_related("proposal", "latest_revision")
        .defer("latest_revision__snapshot", "latest_revision__findings")
        .exclude(handled_by=user)
        .exclude(proposal__in=Proposal.objects.filter(conflicted_proposals(user=user)))
        .filter(proposal__deleted_at__isnull=True)
    )
    arrived = list(
        states.filter(submitted_at__gte=since, submitted_at__lt=until).order_by(
            "submitted_at", "pk"
        )
    )
    changed = list(
        states.exclude(pk__in=[state.pk for state in arrived])
        .filter(
            Q(status_changed_at__gte=since, status_changed_at__lt=until)
            | Q(last_activity_at__gte=since, last_activity_at__lt=until)
        )
        .order_by("proposal__title", "pk")
    )
    return arrived, changed
