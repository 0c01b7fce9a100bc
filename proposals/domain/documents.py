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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from . import fields as labels
from . import numbers
from .fields import SEPARATOR, RowNames, describe_path, row_label, row_names
from .i18n import Labels, gettext_noop
from .i18n import gettext as _
from .sections import (
    ROW_PATH,
    SECTIONS,
    TABLE_BY_KIND,
    TABLE_BY_PATH,
    TABLES,
    section_of_path,
)
from .training_logs.provenance import in_reader_language

# A measurement's code entry is stored as the entry's index: people read its name.
_CODE_REFERENCE = re.compile(
    re.escape(TABLE_BY_KIND["measurements"].path) + r"\[\d+\]\.code"
)
# ``display(path, text)`` turns a stored value into what people read (choice names).
Display = Callable[[str, str], str]

_TOKENS = re.compile(r"\s+|\d[\d,.]*\d|\w+|[^\w\s]")  # "18,176" is one word


@dataclass(frozen=True)
class Row:
    """One field of a document: path, label and text; in a layout, its table
    row's label (``group``, blank outside a row) and its label there (``short``)."""

    path: str
    label: str
    value: str
    group: str = ""
    short: str = ""


@dataclass
class DocumentSection:
    """A section of a document with its rows (fields or changes)."""

    key: str
    title: str
    rows: list = field(default_factory=list)


# What a change is, as the diff's badge says it (key: ``FieldChange.badge``).
CHANGE_WORDS = Labels(
    {
        "added": gettext_noop("added"),
        "removed": gettext_noop("removed"),
        "changed": gettext_noop("changed"),
        "row-added": gettext_noop("row added"),
        "row-removed": gettext_noop("row deleted"),
        "row-moved": gettext_noop("moved"),
    }
)


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
    row: bool = False  # a whole table row: added, removed or moved
    old_place: int | None = None  # a moved row's places, counted from 1
    new_place: int | None = None

    @property
    def badge(self) -> str:
        """``added``, ``removed``, ``changed``, or ``row-added``, ``row-removed``,
        ``row-moved`` for a whole row (the key of :data:`CHANGE_WORDS`)."""
        return f"row-{self.kind}" if self.row else self.kind

    @property
    def word(self) -> str:
        """The badge as people read it ("row added")."""
        return CHANGE_WORDS[self.badge]


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
    if (row := ROW_PATH.match(path)) and row.group(3) in labels.READ_ONLY_COLUMNS:
        text = in_reader_language(text)  # a row's provenance, stored in English
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


def _empty_sections() -> dict[str, DocumentSection]:
    return {s.slug: DocumentSection(s.slug, s.title) for s in SECTIONS}


def layout(document: dict, display: Display | None = None) -> list[DocumentSection]:
    """The document as read-only sections of rows, in the portal's order."""
    sections = _empty_sections()
    names = row_names(document)
    for path, value in flatten(document):
        parts = labels.describe_parts(path, names)
        text = value_text(path, value, names, display)
        row = Row(path, describe_path(path, names), text, *parts)
        sections[section_of_path(path)].rows.append(row)
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


RowIds = Mapping[str, Sequence[int]]


@dataclass(frozen=True)
class _Pair:
    """One row of a table on either side of a diff: its index before and after
    (``None`` when the row is not on that side)."""

    old: int | None
    new: int | None


def _table_rows(document: dict, table) -> list[dict]:
    rows: object = document
    for key in table.path.split("."):
        rows = rows.get(key, []) if isinstance(rows, Mapping) else []
    if not isinstance(rows, list):
        return []
    return [row if isinstance(row, dict) else {} for row in rows]


def _ids_for(ids: RowIds | None, kind: str, count: int) -> list | None:
    """The row ids of one table, when they are known for every row."""
    found = list((ids or {}).get(kind) or ())
    return found if len(found) == count and count else None


def pair_rows(
    old_rows: list[dict],
    new_rows: list[dict],
    old_ids: list | None = None,
    new_ids: list | None = None,
    name_field: str = "",
) -> list[_Pair]:
    """Which row before is which row after. By the rows' ids when both sides know
    them (a revision stores them); otherwise (an older revision) identical rows
    first, then rows of the same name, then the rest in order."""
    pairs: list[_Pair] = []
    if old_ids is not None and new_ids is not None:
        where = {pk: index for index, pk in enumerate(old_ids)}
        taken = set()
        for index, pk in enumerate(new_ids):
            before = where.get(pk)
            taken.add(before)
            pairs.append(_Pair(before, index))
        pairs += [_Pair(i, None) for i in range(len(old_rows)) if i not in taken]
        return pairs
    left = list(range(len(old_rows)))
    matched: dict[int, int] = {}

    def match(same) -> None:
        for j in range(len(new_rows)):
            if j in matched:
                continue
            for i in left:
                if same(old_rows[i], new_rows[j]):
                    matched[j] = i
                    left.remove(i)
                    break

    match(lambda a, b: a == b)
    if name_field:
        match(
            lambda a, b: (
                bool(str(a.get(name_field) or "").strip())
                and a.get(name_field) == b.get(name_field)
            )
        )
    for j in range(len(new_rows)):
        if j not in matched and left:
            matched[j] = left.pop(0)
    pairs = [_Pair(matched.get(j), j) for j in range(len(new_rows))]
    return pairs + [_Pair(i, None) for i in left]


def _moved(pairs: list[_Pair]) -> set[int]:
    """The new indexes of the rows that moved: those outside the longest run kept
    in order (a row inserted above the others moves none of them)."""
    # (old, new) of the rows on both sides.
    kept = [(p.old, p.new) for p in pairs if p.old is not None and p.new is not None]
    before = sorted(kept, key=lambda pair: pair[0])
    after = sorted(kept, key=lambda pair: pair[1])
    matcher = difflib.SequenceMatcher(
        None, [old for old, _ in before], [old for old, _ in after], autojunk=False
    )
    still: set[int] = set()
    for block in matcher.get_matching_blocks():
        still.update(new for _, new in after[block.b : block.b + block.size])
    return {new for _, new in kept if new not in still}


def _change(path, label, before, after, old_text, new_text, **extra) -> FieldChange:
    if before is None or (before == "" and after):
        kind = "added"
    elif after is None or (after == "" and before):
        kind = "removed"
    else:
        kind = "changed"
    return FieldChange(
        path=path,
        label=label,
        kind=kind,
        old=old_text,
        new=new_text,
        segments=word_diff(old_text, new_text),
        **extra,
    )


def diff_documents(
    old: dict,
    new: dict,
    display: Display | None = None,
    old_ids: RowIds | None = None,
    new_ids: RowIds | None = None,
) -> list[DocumentSection]:
    """Field-by-field changes between two documents, grouped by section; sections
    without changes are left out.

    Table rows are compared by identity, not position (``old_ids``/``new_ids``:
    each table's row ids in document order, as a revision stores them; without
    them rows are paired by content, see :func:`pair_rows`): a row that moved is
    one "moved" change, a new or deleted row one "added" or "removed" change
    listing its fields, and the fields of a row that is on both sides are compared
    with each other wherever it stands."""
    names = row_names(new)
    old_names = row_names(old)
    # Compared as stored (a renamed code entry is one change, not one per
    # measurement that refers to it), shown as people read them.
    old_values = dict(flatten(old))
    new_values = dict(flatten(new))
    order = list(old_values)
    order += [path for path in new_values if path not in old_values]
    pairing = {
        table.kind: pair_rows(
            _table_rows(old, table),
            _table_rows(new, table),
            _ids_for(old_ids, table.kind, len(_table_rows(old, table))),
            _ids_for(new_ids, table.kind, len(_table_rows(new, table))),
            table.name_field,
        )
        for table in TABLES
    }
    # A measurement names its code entry by index: the same entry is no change.
    code_pairs = pairing["codes"]
    old_code = {p.old: n for n, p in enumerate(code_pairs) if p.old is not None}
    new_code = {p.new: n for n, p in enumerate(code_pairs) if p.new is not None}
    sections = _empty_sections()
    done_tables: set[str] = set()
    for path in order:
        match = ROW_PATH.match(path)
        if match and match.group(2) is not None:
            table = TABLE_BY_PATH[match.group(1)]
            if table.kind not in done_tables:
                done_tables.add(table.kind)
                sections[table.section].rows += _table_changes(
                    table,
                    pairing[table.kind],
                    (old_values, old_names),
                    (new_values, names),
                    display,
                    (old_code, new_code),
                )
            continue
        before = text_of(old_values[path]) if path in old_values else None
        after = text_of(new_values[path]) if path in new_values else None
        if before == after:
            continue
        sections[section_of_path(path)].rows.append(
            _change(
                path,
                describe_path(path, names if path in new_values else old_names),
                before,
                after,
                value_text(path, old_values[path], old_names, display)
                if path in old_values
                else "",
                value_text(path, new_values[path], names, display)
                if path in new_values
                else "",
            )
        )
    return [section for section in sections.values() if section.rows]


def _row_leaves(values: dict, prefix: str) -> list[tuple[str, object]]:
    """The leaves of one row (``prefix`` is ``codes[1]``) as ``(column, value)``."""
    start = prefix + "."
    return [(p[len(start) :], v) for p, v in values.items() if p.startswith(start)]


def _table_changes(table, pairs, old_side, new_side, display, codes):
    """The changes of one table, rows in their order after (removed rows last)."""
    old_values, old_names = old_side
    new_values, new_names = new_side
    old_code, new_code = codes
    moved = _moved(pairs)
    changes: list[FieldChange] = []

    def whole_row(values, names, prefix):
        lines = []
        for column, value in _row_leaves(values, prefix):
            shown = value_text(f"{prefix}.{column}", value, names, display)
            if shown:
                label = describe_path(f"{prefix}.{column}").split(SEPARATOR)[-1]
                lines.append(f"{label}: {shown}")
        return "\n".join(lines)

    for pair in pairs:
        old_prefix = f"{table.path}[{pair.old}]" if pair.old is not None else ""
        new_prefix = f"{table.path}[{pair.new}]" if pair.new is not None else ""
        if pair.old is None:
            content = whole_row(new_values, new_names, new_prefix)
            changes.append(
                FieldChange(
                    path=new_prefix,
                    label=row_label(table.kind, pair.new, new_names),
                    kind="added",
                    old="",
                    new=content,
                    segments=(("ins", content),) if content else (),
                    row=True,
                )
            )
            continue
        if pair.new is None:
            content = whole_row(old_values, old_names, old_prefix)
            changes.append(
                FieldChange(
                    path=old_prefix,
                    label=row_label(table.kind, pair.old, old_names),
                    kind="removed",
                    old=content,
                    new="",
                    segments=(("del", content),) if content else (),
                    row=True,
                )
            )
            continue
        if pair.new in moved:
            changes.append(
                FieldChange(
                    path=new_prefix,
                    label=row_label(table.kind, pair.new, new_names),
                    kind="moved",
                    old=str(pair.old + 1),
                    new=str(pair.new + 1),
                    segments=(),
                    row=True,
                    old_place=pair.old + 1,
                    new_place=pair.new + 1,
                )
            )
        before_leaves = dict(_row_leaves(old_values, old_prefix))
        after_leaves = dict(_row_leaves(new_values, new_prefix))
        columns = list(before_leaves)
        columns += [c for c in after_leaves if c not in before_leaves]
        for column in columns:
            old_path, new_path = f"{old_prefix}.{column}", f"{new_prefix}.{column}"
            a, b = before_leaves.get(column), after_leaves.get(column)
            before = text_of(a) if column in before_leaves else None
            after = text_of(b) if column in after_leaves else None
            reference = _CODE_REFERENCE.fullmatch(new_path) is not None
            if reference and a in old_code and old_code[a] == new_code.get(b):
                continue  # the same code entry, wherever it stands now
            if before == after and not reference:
                continue
            old_text = (
                value_text(old_path, a, old_names, display)
                if column in before_leaves
                else ""
            )
            new_text = (
                value_text(new_path, b, new_names, display)
                if column in after_leaves
                else ""
            )
            if old_text == new_text:
                continue
            changes.append(
                _change(
                    new_path,
                    describe_path(new_path, new_names),
                    before,
                    after,
                    old_text,
                    new_text,
                )
            )
    return changes


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
