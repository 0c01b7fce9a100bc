"""Read-only layouts and revision diffs of ``aifactory-proposal/1`` documents.

Pure Python: the staff review page and the diff page both work on the JSON document
of a proposal, so a live draft and a stored snapshot are shown the same way. A
document is flattened into ``(field path, value)`` pairs using the format's own paths
(``codes[1].version``, the paths the findings point at), grouped by section; each
row carries the label a person reads (:func:`.fields.describe_path`), never the path.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from . import numbers
from .fields import RowNames, describe_path, row_label, row_names
from .i18n import gettext as _
from .sections import SECTIONS, TABLE_BY_KIND, section_of_path

# A measurement's code entry is stored as the entry's index: people read its name.
_CODE_REFERENCE = re.compile(
    re.escape(TABLE_BY_KIND["measurements"].path) + r"\[\d+\]\.code"
)
# ``display(path, text)`` turns a stored value into what people read (choice names).
Display = Callable[[str, str], str]

_TOKENS = re.compile(r"\s+|\d[\d,.]*\d|\w+|[^\w\s]")  # "18,176" is one word


@dataclass(frozen=True)
class Row:
    """One field of a document: its path, a readable label and its text."""

    path: str
    label: str
    value: str


@dataclass
class DocumentSection:
    """A section of a document with its rows (fields or changes)."""

    key: str
    title: str
    rows: list = field(default_factory=list)


@dataclass(frozen=True)
class FieldChange:
    """One changed field: ``kind`` is added, removed or changed; ``segments`` are
    ``(op, text)`` pairs with op in equal / del / ins, word by word."""

    path: str
    label: str
    kind: str
    old: str
    new: str
    segments: tuple[tuple[str, str], ...]


def text_of(value) -> str:
    """How a JSON value reads on the page (blank for null)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int | float):
        # In the reader's format, every digit kept: 18,176 / 18.176 / 0,25.
        return numbers.format_number(Decimal(str(value)), numbers.active_format())
    if isinstance(value, list):
        return "\n".join(text_of(item) for item in value)
    return str(value)


def value_text(
    path: str, value, names: RowNames | None = None, display: Display | None = None
) -> str:
    """How the value at ``path`` reads: a code entry by its name ("Code details 1
    (nordlicht-train)", never index 0), choices by ``display``, numbers with
    separators."""
    if (
        _CODE_REFERENCE.fullmatch(path)
        and isinstance(value, int)
        and not isinstance(value, bool)
    ):
        return row_label("codes", value, names)
    text = text_of(value)
    return display(path, text) if display is not None and text else text


def flatten(document: dict) -> list[tuple[str, object]]:
    """Every leaf of the document as ``(path, value)`` in document order; lists of
    plain values (such as references) stay one leaf."""
    leaves: list[tuple[str, object]] = []

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                walk(child, f"{path}.{key}" if path else key)
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            for index, child in enumerate(value):
                walk(child, f"{path}[{index}]")
        else:
            leaves.append((path, value))

    walk({k: v for k, v in document.items() if k != "format"}, "")
    return leaves


def label_for(path: str, names: RowNames | None = None) -> str:
    """A readable label for a field path: ``codes[1].version`` -> "Code details 2
    (nordlicht-train) › Version" (the name when ``names`` are given)."""
    return describe_path(path, names)


def _empty_sections() -> dict[str, DocumentSection]:
    return {s.slug: DocumentSection(s.slug, s.title) for s in SECTIONS}


def layout(document: dict, display: Display | None = None) -> list[DocumentSection]:
    """The document as read-only sections of rows, in the portal's order."""
    sections = _empty_sections()
    names = row_names(document)
    for path, value in flatten(document):
        sections[section_of_path(path)].rows.append(
            Row(path, label_for(path, names), value_text(path, value, names, display))
        )
    return list(sections.values())


def word_diff(old: str, new: str) -> tuple[tuple[str, str], ...]:
    """``(op, text)`` segments turning ``old`` into ``new`` word by word."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    segments: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            segments.append(("equal", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            segments.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            segments.append(("ins", "".join(b[j1:j2])))
    return tuple(segments)


def diff_documents(
    old: dict, new: dict, display: Display | None = None
) -> list[DocumentSection]:
    """Field-by-field changes between two documents, grouped by section; sections
    without changes are left out."""
    names = row_names(new)
    old_names = row_names(old)
    # Compared as stored (a renamed code entry is one change, not one per
    # measurement that refers to it), shown as people read them.
    old_values = dict(flatten(old))
    new_values = dict(flatten(new))
    order = list(old_values)
    order += [path for path in new_values if path not in old_values]
    sections = _empty_sections()
    for path in order:
        before = text_of(old_values[path]) if path in old_values else None
        after = text_of(new_values[path]) if path in new_values else None
        if before == after:
            continue
        if before is None or (before == "" and after):
            kind = "added"
        elif after is None or (after == "" and before):
            kind = "removed"
        else:
            kind = "changed"
        old_text = (
            value_text(path, old_values[path], old_names, display)
            if path in old_values
            else ""
        )
        new_text = (
            value_text(path, new_values[path], names, display)
            if path in new_values
            else ""
        )
        sections[section_of_path(path)].rows.append(
            FieldChange(
                path=path,
                label=label_for(path, names if path in new_values else old_names),
                kind=kind,
                old=old_text,
                new=new_text,
                segments=word_diff(old_text, new_text),
            )
        )
    return [section for section in sections.values() if section.rows]


def finding_key(finding: dict) -> tuple[str, str]:
    return (finding.get("code", ""), finding.get("field", ""))


def diff_findings(
    old: list[dict], new: list[dict], names: RowNames | None = None
) -> dict[str, list[dict]]:
    """Findings that appeared (``added``) and went away (``resolved``) between two
    revisions, matched on rule code and field; each carries ``where``, the place it
    points at as people read it."""
    old_keys = {finding_key(f) for f in old}
    new_keys = {finding_key(f) for f in new}

    def readable(f: dict) -> dict:
        return {**f, "where": describe_path(f.get("field", ""), names)}

    return {
        "added": [readable(f) for f in new if finding_key(f) not in old_keys],
        "resolved": [readable(f) for f in old if finding_key(f) not in new_keys],
    }
