"""The applicant's reads of the proposals they are on the team of. Every read
here answers for one person and one capability (``domain.team``): a proposal
the person may not see is ``None``, one they may see but not act on carries its
role (``member_role``) for the caller to refuse the action."""

import functools

from django.db.models import (
    Case,
    CharField,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)

from proposals import domain, reference_data
from proposals.assess import with_children
from proposals.domain.numbers import (
    NUMBER_FORMAT_BY_NAME,
    NumberFormat,
    format_for_languages,
)
from proposals.domain.team import Capability, Role, allows
from proposals.models import (
    FieldStamp,
    Membership,
    PendingImport,
    Preferences,
    Proposal,
)

from .children import attach_rows
from .compiled import CompiledQuery


def _membership(user_id, path: str = ""):
    return Membership.objects.filter(proposal=OuterRef(path or "pk"), user_id=user_id)


def member_filter(user_id) -> Q:
    """The proposals ``user_id`` owns or is a member of."""
    return Q(owner_id=user_id) | Exists(_membership(user_id))


def member_role(user_id, *, path: str = "") -> Case:
    """The role of ``user_id`` on each proposal (``None`` off its team); with
    ``path``, on the proposal each row points at (``"proposal"``)."""
    owner = f"{path}__owner_id" if path else "owner_id"
    return Case(
        When(**{owner: user_id}, then=Value(Role.OWNER.value)),
        default=Subquery(_membership(user_id, path).values("role")[:1]),
        output_field=CharField(),
    )


def proposals_of_member(user_id) -> QuerySet[Proposal]:
    """Every proposal (not deleted) on whose team ``user_id`` is, each with the
    person's ``member_role``."""
    return Proposal.objects.filter(
        member_filter(user_id), deleted_at__isnull=True
    ).annotate(member_role=member_role(user_id))


def proposal_list_for_member(*, user, archived: bool = False) -> QuerySet[Proposal]:
    """The proposals on whose team ``user`` is, newest change first, with the
    target system and the owner joined (the list marks those shared with them):
    the current ones, or with ``archived`` the archived ones (never deleted ones)."""
    return (
        proposals_of_member(user.pk)
        .filter(archived_at__isnull=not archived)
        .select_related("system", "owner")
    )


def proposal_with_children(queryset: QuerySet[Proposal]) -> QuerySet[Proposal]:
    """Attach the system and every repeatable entry in a fixed number of queries."""
    return with_children(queryset).select_related("owner")


def proposal_get_for_member(*, user, pk: int, children: bool = True) -> Proposal | None:
    """The proposal if ``user`` is on its team (and it is not deleted), with their
    ``member_role``, else ``None`` (views answer 404 for anybody else, never 403).
    What the role allows is the caller's question (``member_may``)."""
    if not getattr(user, "is_authenticated", False):
        return None
    queryset = proposals_of_member(user.pk)
    if children:
        queryset = proposal_with_children(queryset)
    return queryset.filter(pk=pk).first()


def member_may(proposal: Proposal, capability: Capability) -> bool:
    """Whether the person ``proposal`` was read for (by a selector of this module)
    may ``capability`` on it."""
    return allows(getattr(proposal, "member_role", None), capability)


def _editing(user_id: int, pk: int, *, lock: bool) -> QuerySet[Proposal]:
    preferences = Preferences.objects.filter(user_id=user_id)
    queryset = Proposal.objects.filter(
        member_filter(user_id), deleted_at__isnull=True, pk=pk
    ).annotate(
        member_role=member_role(user_id),
        owner_number_format=Subquery(preferences.values("number_format")[:1]),
        owner_time_zone=Subquery(preferences.values("time_zone")[:1]),
        # Whether anybody but the owner is on the team: a proposal written alone
        # neither notes nor shows who else has it open (no query for it).
        has_team=Exists(Membership.objects.filter(proposal=OuterRef("pk"))),
        # Whether who changed what is kept yet (since it first had a team).
        has_stamps=Exists(FieldStamp.objects.filter(proposal=OuterRef("pk"))),
    )
    if lock:
        queryset = queryset.select_for_update(of=("self",))
    return queryset


# Compiled once (compiling the proposal's columns costs more than reading them).
_EDITING = CompiledQuery(functools.partial(_editing, lock=False), arity=2)
_EDITING_LOCKED = CompiledQuery(functools.partial(_editing, lock=True), arity=2)


def proposal_get_for_editing(*, user, pk: int, lock: bool = False) -> Proposal | None:
    """``proposal_get_for_member`` in two queries, for the wizard's every keystroke:
    the proposal (with the reader's role, ``member_role``, whether it has a team
    besides its owner and field stamps, ``has_team`` and ``has_stamps``, and the
    reader's own
    number format and time zone, ``owner_number_format`` and ``owner_time_zone``:
    the person typing is the one whose numbers are read), then every row of its
    four tables at once (``rows.attach_rows``). Its system comes from the
    catalogue kept in process, so it is not read again. With ``lock`` (inside a
    transaction) the proposal's row is locked for update, so what is read is what
    a save in the same transaction compares with."""
    if not getattr(user, "is_authenticated", False):
        return None
    proposal = (_EDITING_LOCKED if lock else _EDITING).first(user.pk, pk)
    if proposal is None:
        return None
    if proposal.owner_id == user.pk:
        proposal.owner = user
    attach_system_and_rows(proposal)
    return proposal


def attach_system_and_rows(proposal: Proposal) -> None:
    """``proposal``'s system from the catalogue kept in process (not read again),
    and every row of its four tables in one query (``children.attach_rows``)."""
    if proposal.system_id is not None:
        system = reference_data.cached_clusters().get(str(proposal.system_id))
        if system is not None:  # else read when first used
            Proposal._meta.get_field("system").set_cached_value(proposal, system)
    attach_rows(proposal)


def team_role(*, user, proposal: Proposal) -> str | None:
    """The role of ``user`` on ``proposal``'s team (``None`` off it): for the
    services, which check it again whatever the view read (one query at most)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    if proposal.owner_id == user.pk:
        return Role.OWNER.value
    if getattr(proposal, "reader_id", None) == user.pk:
        return proposal.reader_role  # read with it (review_get_for_staff)
    return (
        Membership.objects.filter(proposal_id=proposal.pk, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )


def proposal_member_exists(*, user, pk: int) -> bool:
    """Whether ``user`` is on the team of proposal ``pk`` (not deleted): one query."""
    return (
        getattr(user, "is_authenticated", False)
        and Proposal.objects.filter(
            member_filter(user.pk), pk=pk, deleted_at__isnull=True
        ).exists()
    )


def number_format_of(proposal, *, languages=()) -> NumberFormat:
    """How the reader of a proposal read by ``proposal_get_for_editing`` writes
    numbers (no query): their setting, else their browser's ``languages``."""
    name = getattr(proposal, "owner_number_format", None)
    if name in NUMBER_FORMAT_BY_NAME:
        return NUMBER_FORMAT_BY_NAME[name]
    return format_for_languages(languages)


def pending_import_document(
    *, user, proposal: Proposal, token: str
) -> domain.Proposal | None:
    """The checked file kept under ``token`` for ``user`` and ``proposal``, parsed,
    or ``None`` when there is none (expired ones included)."""
    pending = PendingImport.objects.filter(
        token=token, owner=user, proposal=proposal
    ).first()
    if pending is None or pending.expired:
        return None
    return domain.parse(pending.document)
