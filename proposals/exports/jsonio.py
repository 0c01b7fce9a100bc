"""Download and upload of a proposal in the ``aifactory-proposal/1`` format.

Reads and converts only; ``services.proposal_import`` and
``services.proposal_import_revision`` write. :func:`check_file` is the one check
that every way in runs (the upload page and both commands): the engine's
``jsonformat.read`` (size, encoding, format, limits) and then the database's own
rules, in memory (``assess.document_rows``), so a file that passes can be imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from proposals import domain
from proposals.assess import document_rows, proposal_to_domain, system_ids
from proposals.domain import limits
from proposals.domain.team import team_name
from proposals.models import Proposal
from proposals.services.team import display_name

MAX_UPLOAD_BYTES = limits.MAX_DOCUMENT_BYTES
FormatError = domain.FormatError


@dataclass(frozen=True)
class Problem:
    path: str
    message: str


def problems_of(error: FormatError) -> list[Problem]:
    """Every problem of ``error``, with its JSON path, for the template."""
    return [Problem(path, message) for path, message in error.problems]


def team_names(model: Proposal) -> tuple[str, ...]:
    """The names the format's ``team`` lists for ``model``: its owner, then its
    members from the longest-standing, as the team pages name them (an address
    in a name cut to the part before the "@"), at most ``MAX_TEAM_NAMES``; none
    for a proposal of one person. Its memberships may be prefetched with their
    users (one query otherwise)."""
    cache = getattr(model, "_prefetched_objects_cache", {})
    memberships = cache.get("memberships")
    if memberships is None:
        memberships = model.memberships.select_related("user")
    members = [membership.user for membership in memberships]
    if not members:
        return ()
    people = [model.owner, *members] if model.owner_id else members
    names = (team_name(display_name(person)) for person in people)
    return tuple(name for name in names if name)[: limits.MAX_TEAM_NAMES]


def export_text(model: Proposal) -> str:
    """The proposal (children prefetched) as ``aifactory-proposal/1`` text, with
    the names of its team."""
    return domain.dumps(replace(proposal_to_domain(model), team=team_names(model)))


def check_file(
    data: bytes | str, *, systems: Mapping[str, int | None] | None = None
) -> domain.Proposal:
    """Read a file and check it completely; raise ``FormatError`` with paths.

    ``systems`` maps the known system slugs to cluster ids (by default the
    database's catalogue, one query)."""
    document = domain.read(data)
    document_rows(document, systems=system_ids() if systems is None else systems)
    return document
