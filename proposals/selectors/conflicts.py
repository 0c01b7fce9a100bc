"""Conflicts of interest: the one place that says which staff member may not
review which proposal, and why.

A staff member is conflicted on a proposal when they are on its team (its owner,
an editor or a viewer) or declared a conflict of interest with the organisation
that sent it (``StaffConflict``, matched by ``domain.team.organisation_matches``
on the proposal's organisation name and VAT number). A conflicted staff member
reads nothing internal about the proposal and does nothing on it as staff: every
staff page of it refuses them, the services refuse them whatever the page did,
the admin hides its internal notes and staff mail about it, and the staff mail
about it leaves them out. The queue still lists it, marked.
"""

from dataclasses import dataclass

from django.db.models import Q
from django.utils.translation import gettext as _

from proposals.domain.team import Role, organisation_matches
from proposals.models import ROLE_LABELS, Membership, Proposal, StaffConflict

from .compiled import CompiledQuery
from .proposals import team_role
from .queue import STAFF_GROUP, staff_members


@dataclass(frozen=True)
class Conflict:
    """Why a staff member may not review a proposal: their ``role`` on its team,
    or (blank role) the ``organisation`` they declared a conflict with."""

    role: str = ""
    organisation: str = ""

    @property
    def message(self) -> str:
        """What the staff member reads when a page or an action is refused."""
        if self.role == Role.OWNER:
            return _(
                "This is your own proposal: a colleague must review and decide on it "
                "(conflict of interest)."
            )
        if self.role:
            return _(
                "You are on this proposal's team (%(role)s): a colleague must review "
                "and decide on it (conflict of interest)."
            ) % {"role": ROLE_LABELS[Role(self.role)]}
        return _(
            "You declared a conflict of interest with %(organisation)s, which sent "
            "this proposal: a colleague must review and decide on it."
        ) % {"organisation": self.organisation}

    @property
    def label(self) -> str:
        """The short mark on the queue's row."""
        if self.role:
            return _("you are on this team")
        return _("conflict: organisation %(organisation)s") % {
            "organisation": self.organisation
        }

    def colleague_message(self, name: str) -> str:
        """Why the proposal cannot be handed to colleague ``name``."""
        if self.role:
            return _(
                "%(name)s is on this proposal's team and cannot handle its review "
                "(conflict of interest): hand it to another colleague."
            ) % {"name": name}
        return _(
            "%(name)s declared a conflict of interest with %(organisation)s and "
            "cannot handle this proposal's review: hand it to another colleague."
        ) % {"name": name, "organisation": self.organisation}


def declared_organisations(*, user) -> list[tuple[str, str]]:
    """The organisations ``user`` declared a conflict with, as ``(key, name as
    typed)``, by name (one query)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return [
        (conflict.key, conflict.organisation) for conflict in _DECLARED.all(user.pk)
    ]


def _declared(user_id: int):
    return StaffConflict.objects.filter(user_id=user_id).only("key", "organisation")


def _declared_by_staff():
    return StaffConflict.objects.filter(user__groups__name=STAFF_GROUP).only(
        "user", "key"
    )


# Compiled once (read on every staff review page: compiling each cost more than
# reading it).
_DECLARED = CompiledQuery(_declared, arity=1, many=True)
_DECLARED_BY_STAFF = CompiledQuery(_declared_by_staff, many=True)


def staff_conflicts_list(*, user):
    """``user``'s declared conflicts, for their settings page."""
    return StaffConflict.objects.filter(user=user).order_by("organisation", "id")


def conflict_between(*, proposal: Proposal, role, declared) -> Conflict | None:
    """The conflict of a staff member whose ``role`` on ``proposal``'s team is
    known (``None``: not on it) and who ``declared`` these organisations
    (``declared_organisations``); no query."""
    if role:
        return Conflict(role=str(role))
    for key, organisation in declared:
        if organisation_matches(
            [key], name=proposal.organisation_name, vat_number=proposal.vat_number
        ):
            return Conflict(organisation=organisation)
    return None


def conflict_of(*, user, proposal: Proposal) -> Conflict | None:
    """Why ``user`` may not review ``proposal``, or ``None`` (two queries)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return conflict_between(
        proposal=proposal,
        role=team_role(user=user, proposal=proposal),
        declared=declared_organisations(user=user),
    )


def review_conflict(*, user, proposal: Proposal) -> str:
    """Why ``user`` may not review, decide on or handle ``proposal`` (they are
    on its team, or declared a conflict with its organisation), in a sentence;
    blank when nothing stands in the way."""
    conflict = conflict_of(user=user, proposal=proposal)
    return conflict.message if conflict is not None else ""


def conflicted_proposals(*, user) -> Q:
    """The proposals ``user`` is conflicted on, as a filter of ``Proposal``: on
    its team, or (among the proposals sent for review, the only ones the staff
    see) from an organisation they declared. One query when they declared one."""
    on_team = Q(owner_id=user.pk) | Q(
        pk__in=Membership.objects.filter(user_id=user.pk).values("proposal_id")
    )
    declared = declared_organisations(user=user)
    if not declared:
        return on_team
    keys = [key for key, _organisation in declared]
    sent = Proposal.objects.filter(review_state__isnull=False).values_list(
        "pk", "organisation_name", "vat_number"
    )
    matched = [
        pk
        for pk, name, vat_number in sent
        if organisation_matches(keys, name=name, vat_number=vat_number)
    ]
    return on_team | Q(pk__in=matched)


def staff_conflicted_on(*, proposal: Proposal, team=None) -> set[int]:
    """The ids of the people conflicted on ``proposal``: its team (``team``, as
    ``review_team`` read it, or read here), and the staff members who declared a
    conflict with its organisation (two queries; one with ``team``)."""
    people = {proposal.owner_id}
    if team is None:
        people.update(
            Membership.objects.filter(proposal_id=proposal.pk).values_list(
                "user_id", flat=True
            )
        )
    else:
        people.update(person["user"].pk for person in team if person["user"])
    for conflict in _DECLARED_BY_STAFF.all():
        if organisation_matches(
            [conflict.key],
            name=proposal.organisation_name,
            vat_number=proposal.vat_number,
        ):
            people.add(conflict.user_id)
    people.discard(None)
    return people


def staff_members_free(*, proposal: Proposal, team=None):
    """The active support staff who may handle ``proposal`` (not conflicted on
    it), by user name (only their names read: a list to choose from); ``team``: its
    team as ``review_team`` read it."""
    conflicted = staff_conflicted_on(proposal=proposal, team=team)
    return [person for person in _STAFF.all() if person.pk not in conflicted]


def _staff():
    return staff_members().only("username")


# Compiled once (on the staff review page, compiling it cost more than reading it).
_STAFF = CompiledQuery(_staff, many=True)


def queue_mark_conflicts(states, *, user):
    """Give each review state of the queue (read by ``review_queue`` for
    ``user``, so with ``reader_role``) its ``conflict`` for ``user`` (``None``
    when there is none), and yield it; one query whatever their number."""
    declared = declared_organisations(user=user)
    for state in states:
        state.conflict = conflict_between(
            proposal=state.proposal,
            role=getattr(state, "reader_role", None),
            declared=declared,
        )
        yield state
