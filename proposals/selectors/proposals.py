"""The applicant's reads of their own proposals."""

import functools

from django.db.models import F, QuerySet

from proposals import domain, reference_data
from proposals.assess import with_children
from proposals.domain.numbers import (
    NUMBER_FORMAT_BY_NAME,
    NumberFormat,
    format_for_languages,
)
from proposals.models import (
    PendingImport,
    Proposal,
)

from .compiled import CompiledQuery
from .rows import attach_rows


def proposal_list_for_owner(*, user, archived: bool = False) -> QuerySet[Proposal]:
    """The user's own proposals, newest change first, with the target system joined:
    the current ones, or with ``archived`` the archived ones (never deleted ones)."""
    return Proposal.objects.filter(
        owner=user, deleted_at__isnull=True, archived_at__isnull=not archived
    ).select_related("system")


def proposal_with_children(queryset: QuerySet[Proposal]) -> QuerySet[Proposal]:
    """Attach the system and every repeatable entry in a fixed number of queries."""
    return with_children(queryset).select_related("owner")


def proposal_get_for_owner(*, user, pk: int, children: bool = True) -> Proposal | None:
    """The proposal if ``user`` owns it (and has not deleted it), else ``None``
    (views answer 404 for anybody else, never 403)."""
    queryset = Proposal.objects.filter(owner=user, deleted_at__isnull=True)
    if children:
        queryset = proposal_with_children(queryset)
    return queryset.filter(pk=pk).first()


def _editing(owner_id: int, pk: int, *, lock: bool) -> QuerySet[Proposal]:
    queryset = Proposal.objects.filter(
        owner_id=owner_id, deleted_at__isnull=True, pk=pk
    ).annotate(
        owner_number_format=F("owner__preferences__number_format"),
        owner_time_zone=F("owner__preferences__time_zone"),
    )
    if lock:
        queryset = queryset.select_for_update(of=("self",))
    return queryset


# Compiled once (compiling the proposal's columns costs more than reading them).
_EDITING = CompiledQuery(functools.partial(_editing, lock=False), arity=2)
_EDITING_LOCKED = CompiledQuery(functools.partial(_editing, lock=True), arity=2)


def proposal_get_for_editing(*, user, pk: int, lock: bool = False) -> Proposal | None:
    """``proposal_get_for_owner`` in two queries, for the wizard's every keystroke:
    the proposal (with its owner's number format, ``owner_number_format``), then
    every row of its four tables at once (``rows.attach_rows``). Its owner is
    ``user`` and its system comes from the catalogue kept in process, so neither is
    read again. With ``lock`` (inside a transaction) the proposal's row is locked
    for update, so what is read is what a save in the same transaction compares
    with."""
    proposal = (_EDITING_LOCKED if lock else _EDITING).first(user.pk, pk)
    if proposal is None:
        return None
    proposal.owner = user
    if proposal.system_id is not None:
        system = reference_data.cached_clusters().get(str(proposal.system_id))
        if system is not None:  # else read when first used
            Proposal._meta.get_field("system").set_cached_value(proposal, system)
    attach_rows(proposal)
    return proposal


def proposal_owned_exists(*, user, pk: int) -> bool:
    """Whether ``user`` owns proposal ``pk`` (and has not deleted it): one query."""
    return Proposal.objects.filter(owner=user, pk=pk, deleted_at__isnull=True).exists()


def number_format_of(proposal, *, languages=()) -> NumberFormat:
    """How the owner of a proposal read by ``proposal_get_for_editing`` writes
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
