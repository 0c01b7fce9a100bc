"""Who may do what with a proposal: the three roles of its team and what each
allows. Every view and service asks ``allows`` (through the selectors); nothing
else decides it.

- The owner (exactly one) does everything, and alone deletes or archives the
  proposal, manages the team and hands ownership over.
- An editor edits every step (fields, rows, pastes, log rows, JSON imports),
  duplicates it and sends it for review.
- A viewer reads the wizard (read-only), comments and exports.
"""

from __future__ import annotations

import enum
import re
from typing import TypeGuard


class Role(enum.StrEnum):
    OWNER = "owner"
    EDITOR = "editor"
    VIEWER = "viewer"


# The roles an invitation (or a change of role) can give: ownership is handed
# over, never given by invitation.
INVITABLE_ROLES = (Role.EDITOR, Role.VIEWER)


class Capability(enum.StrEnum):
    READ = "read"  # the wizard read-only, the status and history pages
    COMMENT = "comment"  # the applicant's side of the review threads
    EXPORT = "export"  # portal text, Markdown, PDF, JSON
    EDIT = "edit"  # every step's fields and rows, pastes, log rows, JSON import
    DUPLICATE = "duplicate"  # a copy of one's own (as its owner)
    SEND = "send"  # send for review, withdraw
    MANAGE = "manage"  # invite, revoke, change a role, remove a member, transfer
    ARCHIVE = "archive"
    DELETE = "delete"


_READER = frozenset({Capability.READ, Capability.COMMENT, Capability.EXPORT})
_EDITOR = _READER | {Capability.EDIT, Capability.DUPLICATE, Capability.SEND}

CAPABILITIES: dict[Role, frozenset[Capability]] = {
    Role.VIEWER: _READER,
    Role.EDITOR: _EDITOR,
    Role.OWNER: frozenset(Capability),
}


def allows(role: str | None, capability: Capability) -> TypeGuard[str]:
    """Whether a member with ``role`` (``None``: not a member) may ``capability``."""
    if role is None:
        return False
    try:
        return capability in CAPABILITIES[Role(role)]
    except ValueError:
        return False


# How long an invitation link works.
INVITATION_DAYS = 14

# "@name" in a comment: a user name as Django allows it (letters, digits, @.+-_),
# after a space or at the start, ending before trailing punctuation.
_MENTION = re.compile(r"(?<![\w@.+-])@([\w.+-]{1,150})", re.UNICODE)


def mentioned_names(text: str) -> list[str]:
    """The names ``@name`` in ``text``, in order, each once (casefolded), without
    the full stop or other punctuation that ends a sentence after one."""
    names: list[str] = []
    for match in _MENTION.finditer(text):
        name = match.group(1).rstrip(".+-").casefold()
        if name and name not in names:
            names.append(name)
    return names


# Something that looks like an e-mail address (a name, an "@" and a host, no
# space between), anywhere in a text: the JSON format's team names must not
# carry any (the portal text and the PDF neither).
ADDRESS_PATTERN = r'[^\s@<>()\[\],;:"]+@[^\s@<>()\[\],;:"]+'
_ADDRESS = re.compile(ADDRESS_PATTERN)


def has_address(text: str) -> bool:
    """Whether ``text`` holds something that looks like an e-mail address."""
    return _ADDRESS.search(text) is not None


def team_name(name: str) -> str:
    """A person's name as the JSON format's ``team`` lists it: an address in it
    (a user name may be one) is cut down to the part before the "@"."""
    return " ".join(
        _ADDRESS.sub(lambda match: match.group(0).split("@")[0], name).split()
    )


# Legal forms that do not tell two organisations apart ("Example AI Oy" and
# "Example AI" are the same organisation for a conflict of interest).
_LEGAL_FORMS = frozenset(
    [
        "ab",
        "ag",
        "as",
        "asa",
        "bv",
        "gmbh",
        "inc",
        "llc",
        "ltd",
        "nv",
        "oy",
        "oyj",
        "plc",
        "sa",
        "sarl",
        "sas",
        "spa",
        "sl",
        "srl",
        "sp",
        "zoo",
        "kft",
        "ou",
        "sro",
        "doo",
        "ehf",
    ]
)
_WORD = re.compile(r"\w+", re.UNICODE)


def organisation_key(text: str) -> str:
    """How an organisation's name (or its VAT number) is compared: its words,
    casefolded, without punctuation and without a trailing legal form."""
    words = [word.casefold() for word in _WORD.findall(text.replace(".", ""))]
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words.pop()
    return " ".join(words)


def organisation_matches(keys, *, name: str, vat_number: str) -> bool:
    """Whether a proposal from ``name`` (with ``vat_number``) is one of the
    organisations whose ``organisation_key`` is in ``keys``."""
    own = {organisation_key(name), organisation_key(vat_number).replace(" ", "")}
    own.discard("")
    return any(key in own or key.replace(" ", "") in own for key in keys if key)
