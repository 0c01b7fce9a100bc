"""Every field of the proposal, defined once: model name, JSON path, label, short
label for table headers, help (fitted to the call tier), unit and example.

The wizard's forms take their labels and help from here, and so do the staff pages,
the document diff, the exports and the e-mails, so an applicant and a reviewer read
the same words. People never read a JSON path: :func:`describe_path` turns
``codes[1].version`` into "Code details 2 (nordlicht-train) › Version or release".
JSON paths remain the interface of the ``assess`` report and of the import error
list. The fields themselves are listed in :mod:`.field_catalogue`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from . import limits
from .field_catalogue import FIELDS
from .fieldspec import FieldSpec
from .formatshape import PROPOSAL, Shape
from .i18n import gettext as _
from .i18n import gettext_noop
from .sections import (
    ROW_PATH,
    SECTION_BY_SLUG,
    SECTION_OF_KEY,
    SECTIONS,
    STEPS,
    TABLE_BY_KIND,
    TABLE_BY_PATH,
    tables_of,
)

__all__ = ["FIELDS", "FieldSpec"]

SEPARATOR = " › "

FIELD_BY_KEY: dict[str, FieldSpec] = {spec.key: spec for spec in FIELDS}
# The proposal's own fields by model name and by JSON path.
PROPOSAL_FIELDS: dict[str, FieldSpec] = {
    spec.name: spec for spec in FIELDS if spec.table is None
}
FIELD_BY_PATH: dict[str, FieldSpec] = {
    spec.path: spec for spec in FIELDS if spec.table is None
}
# A group key alone (``optimisation``) points at the group's only field, if it has one.
for _key in SECTION_OF_KEY:
    _members = [s for s in PROPOSAL_FIELDS.values() if s.path.startswith(_key + ".")]
    if len(_members) == 1:
        FIELD_BY_PATH.setdefault(_key, _members[0])


def field(name: str, table: str | None = None) -> FieldSpec:
    """The field ``name`` of the proposal, or of a ``table`` row."""
    return FIELD_BY_KEY[f"{table}.{name}" if table else name]


def label(name: str, table: str | None = None) -> str:
    """The label of a field, as every page, export and e-mail shows it."""
    return field(name, table).label


def columns(table: str) -> tuple[FieldSpec, ...]:
    """The fields of one table's rows, in column order."""
    return tuple(spec for spec in FIELDS if spec.table == table)


def section_fields(section: str) -> tuple[FieldSpec, ...]:
    """The proposal's own fields shown on a section's step."""
    return tuple(s for s in FIELDS if s.table is None and s.section == section)


def most_step_inputs() -> int:
    """The most fields one wizard step holds at the format's limits: the step's own
    fields plus every column of as many rows as each of its tables may hold
    (``limits.MAX_ROWS``). A page posts these and a few inputs of its own, so the
    request limit on posted fields is derived from this (the settings)."""
    return max(
        len(section_fields(step.slug))
        + sum(
            limits.MAX_ROWS[table.kind] * len(columns(table.kind))
            for table in tables_of(step.slug)
        )
        for step in STEPS
    )


def _most_characters(shape: Shape) -> int:
    total = 0
    for item in shape.fields:
        if item.kind == "object":
            total += _most_characters(item.nested)
        elif item.kind == "array":
            assert item.max_items is not None  # every array of the format has a limit
            total += item.max_items * _most_characters(item.nested)
        else:
            total += item.max_length or 0
    return total


def most_step_characters() -> int:
    """The most characters of text one wizard step holds at the format's limits
    (every text field full, in as many rows as each table may hold): the request
    limit on a post's size is derived from this (the settings)."""
    keys = {item.name: item for item in PROPOSAL.fields}
    return max(
        sum(_most_characters(Shape("", dict, (keys[key],))) for key in section.keys)
        for section in SECTIONS
    )


# --- Paths as people read them ---------------------------------------------------

RowNames = Mapping[str, Sequence[str]]


def row_names(document: Mapping) -> dict[str, list[str]]:
    """``{"codes": ["nordlicht-train", ...], "jobs": [...]}`` from a JSON document
    (``aifactory-proposal/1`` as a dict): the names rows are known by."""
    names: dict[str, list[str]] = {}
    for table in TABLE_BY_KIND.values():
        rows: object = document
        for key in table.path.split("."):
            rows = rows.get(key, []) if isinstance(rows, Mapping) else []
        names[table.kind] = (
            [
                str(row.get(table.name_field, "") or "") if table.name_field else ""
                for row in rows
                if isinstance(row, Mapping)
            ]
            if isinstance(rows, list)
            else []
        )
    return names


def row_label(kind: str, index: int, names: RowNames | None = None) -> str:
    """ "Code details 2 (nordlicht-train)" for the second code entry."""
    table = TABLE_BY_KIND[kind]
    text = _("{item} {number}").format(item=table.item, number=index + 1)
    kind_names = (names or {}).get(kind) or ()
    name = kind_names[index].strip() if index < len(kind_names) else ""
    if name:
        text += f" ({' '.join(name.split())[:60]})"
    return text


# Columns a row keeps that no form edits (where a row read from a log came
# from): their labels, as the page, the diff and the comment anchor show them.
READ_ONLY_COLUMNS = {"source": gettext_noop("Read from")}


def column_label(kind: str, name: str) -> str:
    """The label of column ``name`` of a ``kind`` table row, in the active
    language ("Version", "Read from")."""
    column = FIELD_BY_KEY.get(f"{kind}.{name}")
    if column is not None:
        return column.label
    if name in READ_ONLY_COLUMNS:
        return _(READ_ONLY_COLUMNS[name])
    return name.replace("_", " ").capitalize()


def describe_parts(path: str, names: RowNames | None = None) -> tuple[str, str]:
    """``(row, label)``: the row a path is in ("Code details 2 (nordlicht-train)",
    ``""`` outside a table row) and what it names there ("Version")."""
    match = ROW_PATH.match(path or "")
    if match and match.group(2) is not None and match.group(3):
        table = TABLE_BY_PATH[match.group(1)]
        row = row_label(table.kind, int(match.group(2)), names)
        return row, column_label(table.kind, match.group(3))
    return "", describe_path(path, names)


def describe_path(path: str, names: RowNames | None = None) -> str:
    """How a person reads the place a JSON path points at.

    ``selection.total_gpu_hours`` -> "Total GPU-hours";
    ``codes[1].version`` -> "Code details 2 (nordlicht-train) › Version";
    ``scalability.jobs`` -> "Job plan"; ``""`` -> "Whole proposal".
    """
    path = path or ""
    if not path or path == "$":
        return _("Whole proposal")
    spec = FIELD_BY_PATH.get(path)
    if spec is not None:
        return spec.label
    match = ROW_PATH.match(path)
    if match:
        table = TABLE_BY_PATH[match.group(1)]
        index, name = match.group(2), match.group(3)
        if index is None:
            return table.title
        parts = [row_label(table.kind, int(index), names)]
        if name:
            parts.append(column_label(table.kind, name))
        return SEPARATOR.join(parts)
    head = path.split(".", 1)[0].split("[", 1)[0]
    if head in SECTION_OF_KEY and "." not in path and "[" not in path:
        return SECTION_BY_SLUG[SECTION_OF_KEY[head]].title
    # Not a path of the format (should not happen): readable words, no brackets.
    words = re.sub(r"[\[\]._]+", " ", path).strip()
    return words[:1].upper() + words[1:]


def row_path_at(path: str, index: int) -> str:
    """``path`` moved to row ``index`` of its table, same column:
    ``codes[3].version`` at 1 -> ``codes[1].version``. Other paths are unchanged."""
    match = ROW_PATH.match(path or "")
    if not match or match.group(2) is None:
        return path
    column = match.group(3)
    return f"{match.group(1)}[{index}]" + (f".{column}" if column else "")


def names_at(path: str, name: str) -> dict[str, list[str]]:
    """The row names a row path's own row had (``name`` at its place), for
    ``describe_path`` and ``row_label``: ``{}`` for a path that is not a row's."""
    match = ROW_PATH.match(path or "")
    if not match or match.group(2) is None:
        return {}
    index = int(match.group(2))
    return {TABLE_BY_PATH[match.group(1)].kind: [""] * index + [name or ""]}


def row_label_at(path: str, name: str) -> str:
    """The label of the row ``path`` points at, called ``name`` when the path was
    written ("Job type 2 (fine-tuning)"), in the active language; ``""`` for a
    path that is not a row's."""
    names = names_at(path, name)
    if not names:
        return ""
    ((kind, rows),) = names.items()
    return row_label(kind, len(rows) - 1, names)


def describe_row_named(path: str, name: str, *, deleted: bool = False) -> str:
    """How a person reads ``path`` with its row called ``name`` as it was (the
    label made now, in the reader's language: "Code details 2 (nordlicht-train)"),
    marked when the row is gone, then the column."""
    row = row_label_at(path, name) or _("A row")
    parts = [_("{row} (row deleted)").format(row=row) if deleted else row]
    match = ROW_PATH.match(path or "")
    if match and match.group(3):
        table = TABLE_BY_PATH[match.group(1)]
        parts.append(column_label(table.kind, match.group(3)))
    return SEPARATOR.join(parts)


def anchor_name(path: str) -> tuple[str, str, int | None, str]:
    """Where a JSON path points in the wizard: ``(section, table kind or "",
    row index or None, model field name or "")``."""
    path = path or ""
    spec = FIELD_BY_PATH.get(path)
    if spec is not None:
        return spec.section, "", None, spec.name
    match = ROW_PATH.match(path)
    if match:
        table = TABLE_BY_PATH[match.group(1)]
        index = match.group(2)
        return (
            table.section,
            table.kind,
            int(index) if index is not None else None,
            match.group(3) or "",
        )
    head = path.split(".", 1)[0].split("[", 1)[0]
    return SECTION_OF_KEY.get(head, "review"), "", None, ""


def row_groups(rows) -> list[tuple[str, list]]:
    """``rows`` (with ``group``: their table row's label, blank outside a row) as
    ``[(group, rows)]`` in the order first seen, those outside a row first."""
    groups: dict[str, list] = {"": []}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    return [(group, items) for group, items in groups.items() if items]
