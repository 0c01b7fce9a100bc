"""Who saved each field last, and when (``FieldStamp``), written by the saves that
set values, and who has a proposal open on which step (``Presence``).

A stamp's key names the field: ``title`` for a field of the proposal,
``jobs:17:gpus_per_job`` for one of a row (:func:`stamp_key`). Every write of a
stamp is one upsert, whatever the number of fields.

Stamps are kept from the first save of a proposal with a team on (then always,
team or not): a proposal written alone costs no query for them, and what nobody
stamped was written by its owner before the team (the ``BEFORE_TEAM`` stamp, noted
with the first stamps, says who that was)."""

from datetime import timedelta

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Q
from django.utils import timezone

from proposals.domain.together import BEFORE_TEAM, PRESENCE_REFRESH_SECONDS
from proposals.models import FieldStamp, Presence


def _kind_of(model) -> str | None:
    """The table kind of a row model: the name its proposal calls its rows by
    (``proposal.jobs``); ``None`` for the proposal itself."""
    try:
        field = model._meta.get_field("proposal")
    except FieldDoesNotExist:  # the proposal itself
        return None
    return field.remote_field.related_name


def row_stamp_key(kind: str, pk, name: str) -> str:
    """``jobs:17:gpus_per_job``: the stamp key of field ``name`` of row ``pk``."""
    return f"{kind}:{pk}:{name}"


def stamp_key(instance, name: str) -> str:
    """The stamp key of field ``name`` of ``instance`` (the proposal or a row)."""
    kind = _kind_of(type(instance))
    return name if kind is None else row_stamp_key(kind, instance.pk, name)


def _flag(proposal, name: str, read) -> bool:
    """``proposal``'s annotation ``name`` (``selectors.proposal_get_for_editing``),
    or ``read()`` when it was read otherwise."""
    value = getattr(proposal, name, None)
    if value is None:
        value = read()
        setattr(proposal, name, value)
    return bool(value)


def stamps_kept(proposal) -> bool:
    """Whether saves of ``proposal`` note who changed what: once it has (or had) a
    team. (No query for a proposal read for editing.)"""
    return _flag(proposal, "has_team", proposal.memberships.exists) or _flag(
        proposal, "has_stamps", proposal.field_stamps.exists
    )


def fields_stamp(*, proposal, keys, by, at=None) -> None:
    """Note that ``by`` saved the fields ``keys`` of ``proposal`` now (one upsert);
    nothing without a person or a key, or for a proposal that never had a team
    (:func:`stamps_kept`)."""
    keys = sorted(set(keys))
    if by is None or not keys or not stamps_kept(proposal):
        return
    at = at or timezone.now()
    stamps = [FieldStamp(proposal=proposal, key=key, user=by, at=at) for key in keys]
    if not proposal.has_stamps:  # the first: who wrote everything before
        stamps.append(
            FieldStamp(
                proposal=proposal, key=BEFORE_TEAM, user_id=proposal.owner_id, at=at
            )
        )
    FieldStamp.objects.bulk_create(
        stamps,
        update_conflicts=True,
        unique_fields=["proposal", "key"],
        update_fields=["user", "at"],
    )
    proposal.has_stamps = True


def saved_stamp(*, proposal, saved, by, at=None) -> None:
    """:func:`fields_stamp` for a save's ``saved`` list ((instance, names), as
    ``SaveOutcome.saved`` holds it)."""
    fields_stamp(
        proposal=proposal,
        keys=[stamp_key(instance, name) for instance, names in saved for name in names],
        by=by,
        at=at,
    )


def row_stamps_forget(*, proposal, kind: str, pks) -> None:
    """Drop the stamps of rows ``pks`` of ``kind`` (removed with them)."""
    pks = list(pks)
    if not pks or not _flag(proposal, "has_stamps", proposal.field_stamps.exists):
        return
    match = Q()
    for pk in pks:
        match |= Q(key__startswith=row_stamp_key(kind, pk, ""))
    FieldStamp.objects.filter(match, proposal=proposal).delete()


def conflict_stamps(*, proposal, keys) -> dict:
    """The stamps of ``keys`` (key -> ``FieldStamp`` with its user), one query."""
    if not keys:
        return {}
    return {
        stamp.key: stamp
        for stamp in FieldStamp.objects.filter(
            proposal=proposal, key__in=list(keys)
        ).select_related("user")
    }


def presence_note(*, proposal, user, step: str, seen: dict | None = None) -> None:
    """Note that ``user`` has ``proposal`` open on ``step`` now. ``seen`` (user id
    -> ``selectors.Seen``, as :func:`selectors.presence_of` read it this request): a
    presence on the same step noted less than ``PRESENCE_REFRESH_SECONDS`` ago is
    left as it is (no write)."""
    now = timezone.now()
    mine = (seen or {}).get(user.pk)
    fresh = timedelta(seconds=PRESENCE_REFRESH_SECONDS)
    if mine is not None and mine.step == step and now - mine.at < fresh:
        return
    Presence.objects.bulk_create(
        [Presence(proposal=proposal, user=user, step=step, seen_at=now)],
        update_conflicts=True,
        unique_fields=["proposal", "user"],
        update_fields=["step", "seen_at"],
    )
