"""Reads of writing together: who else has a proposal open (``Presence``), who
saved each field last (``FieldStamp``), and how a person is named in them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext as _

from proposals.domain.documents import diff_documents, flatten
from proposals.domain.fields import FIELD_BY_KEY, PROPOSAL_FIELDS
from proposals.domain.sections import TABLE_BY_KIND, TABLE_KINDS
from proposals.domain.together import BEFORE_TEAM, PRESENCE_WINDOW_SECONDS
from proposals.models import FieldStamp, Presence
from proposals.models.team import member_name
from proposals.table_rows import rows_of


def person_name(user) -> str:
    """How the team's pages name a person; "former member" for a deleted account
    (``None``)."""
    return member_name(user)


@dataclass(frozen=True)
class Seen:
    """One person who has the proposal open: who, on which step, since when."""

    user_id: int
    name: str
    step: str
    at: datetime


def presence_of(*, proposal) -> dict[int, Seen]:
    """Everybody noted on ``proposal`` (one query), by user id, however long ago:
    :func:`present_others` keeps those seen recently."""
    return {
        row.user_id: Seen(row.user_id, person_name(row.user), row.step, row.seen_at)
        for row in Presence.objects.filter(proposal=proposal).select_related("user")
    }


def present_others(seen: dict[int, Seen], *, user, now=None) -> tuple[Seen, ...]:
    """The people of ``seen`` but ``user`` noted within the presence window, by
    name."""
    now = now or timezone.now()
    since = now - timedelta(seconds=PRESENCE_WINDOW_SECONDS)
    return tuple(
        sorted(
            (s for s in seen.values() if s.user_id != user.pk and s.at >= since),
            key=lambda s: (s.name.casefold(), s.user_id),
        )
    )


@dataclass(frozen=True)
class Stamp:
    """Who saved a field last (``name``; "former member" for a deleted account)
    and when."""

    key: str
    user_id: int | None
    name: str
    at: datetime


def field_stamps(*, proposal) -> dict[str, Stamp]:
    """Every field stamp of ``proposal`` by key (one query)."""
    return {
        row.key: Stamp(row.key, row.user_id, person_name(row.user), row.at)
        for row in FieldStamp.objects.filter(proposal=proposal).select_related("user")
    }


# --- Who changed what, by document path (revisions and their diffs) -------------


def _document_path(key: str, positions: dict) -> str | None:
    """The document path (``aifactory-proposal/1``) of stamp ``key``, the rows at
    ``positions`` (kind -> row id -> index); ``None`` for a field the document
    does not hold or a row no longer there."""
    if key == BEFORE_TEAM:
        return key
    kind, _sep, rest = key.partition(":")
    if not rest:
        spec = PROPOSAL_FIELDS.get(key)
        return spec.path if spec else None
    pk, _sep, name = rest.partition(":")
    spec = FIELD_BY_KEY.get(f"{kind}.{name}")
    index = positions.get(kind, {}).get(int(pk)) if pk.isdigit() else None
    if spec is None or index is None:
        return None
    return f"{TABLE_BY_KIND[kind].path}[{index}].{spec.path}"


def stamps_by_path(*, proposal) -> dict:
    """Who changed each field of ``proposal`` last, by document path, as a revision
    keeps it (``ProposalRevision.stamps``): ``{"id", "name", "at"}`` each, and
    ``BEFORE_TEAM`` for the fields nobody stamped (its owner's, if it never had a
    team). One query (the rows are ``proposal``'s, read with it)."""
    positions = {
        kind: {row.pk: index for index, row in enumerate(rows_of(proposal, kind))}
        for kind in TABLE_KINDS
    }
    kept = {}
    for stamp in FieldStamp.objects.filter(proposal=proposal).select_related("user"):
        path = _document_path(stamp.key, positions)
        if path is not None:
            kept[path] = {
                "id": stamp.user_id,
                "name": person_name(stamp.user) if stamp.user else "",
                "at": stamp.at.isoformat(),
            }
    if BEFORE_TEAM not in kept:
        owner = proposal.owner
        kept[BEFORE_TEAM] = {
            "id": getattr(owner, "pk", None),
            "name": person_name(owner) if owner else "",
            "at": None,
        }
    return kept


def row_ids_of(*, proposal) -> dict[str, list[int]]:
    """Each table's row ids in the document's order (``ProposalRevision.row_ids``);
    no query for a proposal read with its rows."""
    return {kind: [row.pk for row in rows_of(proposal, kind)] for kind in TABLE_KINDS}


def _author_entry(change, stamps: dict, present) -> dict | None:
    """The stamp that says who made ``change``: its field's, or for a row added
    whole the latest of its fields'; none for a row removed or moved (nothing on
    the later side records who moved it)."""
    if getattr(change, "row", False):
        if change.kind != "added":
            return None
        start = change.path + "."
        found = [entry for path, entry in stamps.items() if path.startswith(start)]
        if found:
            return max(found, key=lambda entry: entry.get("at") or "")
        return stamps.get(BEFORE_TEAM)
    if change.path in present:
        return stamps.get(change.path) or stamps.get(BEFORE_TEAM)
    return None


def change_authors(changes, stamps: dict, present) -> dict[str, str]:
    """Who made each of ``changes`` (``documents.FieldChange``; their path) as the
    later side's ``stamps`` say (``stamps_by_path``), by path: the last to change
    that field, or who wrote it before the team; "former member" for an account
    deleted since; nobody for a field the later side no longer has (a removed
    row). ``present``: the later side's paths. One query (who still exists)."""
    entries = {}
    for change in changes:
        entry = _author_entry(change, stamps, present)
        if entry is not None:
            entries[change.path] = entry
    ids = {entry["id"] for entry in entries.values() if entry.get("id")}
    alive = set(
        get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True)
        if ids
        else ()
    )
    return {
        path: entry["name"] if entry.get("id") in alive else _("former member")
        for path, entry in entries.items()
    }


def revision_authors(*, proposal) -> dict[int, list[tuple[str, list[str]]]]:
    """What changed in each revision of ``proposal`` since the one before, by
    whom: revision number -> ``[(person, [field labels])]``, people in the order
    of their first change. Two queries (the revisions, who still exists)."""
    revisions = list(
        proposal.revisions.order_by("number").values_list(
            "number", "snapshot", "stamps", "row_ids"
        )
    )
    changed = {}
    for (_n, old, _s, old_ids), (number, new, stamps, new_ids) in zip(
        revisions, revisions[1:], strict=False
    ):
        sections = diff_documents(old, new, old_ids=old_ids, new_ids=new_ids)
        rows = [row for section in sections for row in section.rows]
        present = {path for path, _value in flatten(new)}
        changed[number] = (rows, stamps or {}, present)
    ids = {
        entry.get("id")
        for _rows, stamps, _present in changed.values()
        for entry in stamps.values()
        if entry.get("id")
    }
    alive = set(
        get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True)
        if ids
        else ()
    )
    authors = {}
    for number, (rows, stamps, present) in changed.items():
        people: dict[str, list[str]] = {}
        for row in rows:
            entry = _author_entry(row, stamps, present)
            if entry is None:
                continue
            name = entry["name"] if entry.get("id") in alive else _("former member")
            people.setdefault(name, []).append(row.label)
        authors[number] = list(people.items())
    return authors


class StampsOnDemand:
    """``field_stamps`` of a proposal, read when a template first asks for one (a
    full page shows them beside the labels; an autosave's answer never asks), and
    not at all for a proposal that never had a team (``has_stamps``)."""

    def __init__(self, proposal):
        self._proposal = proposal
        self._stamps = None

    def get(self, key: str) -> Stamp | None:
        if self._stamps is None:
            kept = getattr(self._proposal, "has_stamps", True)
            self._stamps = field_stamps(proposal=self._proposal) if kept else {}
        return self._stamps.get(key)
