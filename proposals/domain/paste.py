"""A table pasted from a spreadsheet or a training log, read into rows of one of the
proposal's tables (scaling measurements, job plan, usage schedule).

The text may be tab-separated (what a spreadsheet copies), comma- or
semicolon-separated (CSV, read with :mod:`csv` and its ``Sniffer``), a Markdown table
(pipes, with or without an alignment row) or columns aligned with spaces (a training
log). Columns are mapped by their header, using the labels and units of the
vocabulary (:mod:`.fields`) and the synonyms below; a column whose header says
nothing known is left for the person to map. Throughput units are stored canonical
or refused (:mod:`.paste_units`). Numbers are read in the person's number
format (:func:`.numbers.parse_number`) and checked against :mod:`.bounds`; a GPU
count given in GCDs or nodes is converted to physical GPUs. Nothing is dropped
silently: every refused cell, skipped line and ignored column is said.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from . import limits
from .i18n import gettext, gettext_noop, ngettext
from .numbers import NumberError, NumberFormat, format_number, grouped, parse_number
from .paste_cells import Column, Context, PastedRow, check_row, column_label, read_cell
from .paste_columns import (
    COMPUTED,
    GCDS,
    IGNORE,
    MAX_PASTE_CHARS,
    MONTHS,
    NODES,
    PASTE_KINDS,
    SYNONYMS,
    Grid,
    Target,
    match_header,
    read_header,
    split_cells,
    targets,
)
from .paste_totals import is_total, repeats_the_sums, sum_line_note
from .paste_units import strip_suffix, unit_problem
from .sections import TABLE_BY_KIND
from .units import read_unit

__all__ = [
    "Column",
    "Context",
    "PastedRow",
    "COMPUTED",
    "GCDS",
    "IGNORE",
    "MONTHS",
    "NODES",
    "PASTE_KINDS",
    "SYNONYMS",
    "Grid",
    "Target",
    "match_header",
    "read_paste",
    "split_cells",
    "targets",
]

# --- Reading the cells into rows ---------------------------------------------------


@dataclass
class Paste:
    """What the wizard understood of a pasted table."""

    kind: str
    layout: str
    columns: list[Column] = field(default_factory=list)
    rows: list[PastedRow] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # lines not read, and why
    problems: list[str] = field(default_factory=list)  # the table as a whole
    notes: list[str] = field(default_factory=list)  # what every row was given

    @property
    def accepted(self) -> list[PastedRow]:
        return [row for row in self.rows if not row.problems]

    @property
    def refused(self) -> list[PastedRow]:
        return [row for row in self.rows if row.problems]

    @property
    def unknown(self) -> list[Column]:
        return [column for column in self.columns if not column.known]

    @property
    def ready(self) -> bool:
        """Whether rows can be added: every column mapped, nothing wrong with the
        table as a whole, at least one readable row."""
        return not self.unknown and not self.problems and bool(self.accepted)


def _is_number(text: str, fmt: NumberFormat) -> bool:
    try:
        parse_number(strip_suffix(text, "throughput")[0].rstrip("%"), fmt, places=6)
    except NumberError:
        return False
    return True


def read_paste(
    text: str,
    kind: str,
    ctx: Context,
    *,
    mapping: Mapping[int, str] | None = None,
) -> Paste:
    """Read a pasted table into rows of ``kind``.

    ``mapping`` (column index -> target key, ``""`` to ignore) overrides what the
    headers say: the person's answer where a header was unknown."""
    if kind not in PASTE_KINDS:
        raise ValueError(f"Cannot paste into {kind}.")
    if len(text) > MAX_PASTE_CHARS:
        return _too_long(kind)
    grid = split_cells(text)
    paste = Paste(kind, grid.layout)
    if grid.blank_lines > 0:
        paste.skipped.append(
            ngettext(
                "{count} blank line left out.",
                "{count} blank lines left out.",
                grid.blank_lines,
            ).format(count=format_number(grid.blank_lines, ctx.fmt))
        )
    if not grid.lines:
        paste.problems.append(
            gettext("Nothing to read: paste a table with one row per line.")
        )
        return paste
    first_line, first = grid.lines[0]
    matches = [read_header(cell, kind) for cell in first]
    has_header = any(key for key, _ in matches) or not any(
        _is_number(cell, ctx.fmt) for cell in first if cell
    )
    width = max(len(cells) for _, cells in grid.lines)
    if has_header:
        _map_columns(paste, width, first, matches, mapping)
    else:
        _map_columns(paste, width, (), [], mapping)
    _refuse_shared_targets(paste)
    body = grid.lines[1:] if has_header else grid.lines
    if has_header:
        paste.skipped.append(
            gettext("Line {number} read as the header.").format(number=first_line)
        )
    room = ctx.room if ctx.room is not None else limits.MAX_ROWS[kind]
    for number, cells in body:
        row = _read_line(paste, number, cells, width, ctx)
        if row is None:
            continue
        if not row.problems and len(paste.accepted) >= room:
            row.problems.append(
                gettext(
                    "{table} holds at most {rows} rows: there is no room for this one."
                ).format(
                    table=TABLE_BY_KIND[kind].title,
                    rows=format_number(limits.MAX_ROWS[kind], ctx.fmt),
                )
            )
        paste.rows.append(row)
    _note_the_only_code(paste, ctx)
    return paste


def _too_long(kind: str) -> Paste:
    """A paste refused whole: longer than MAX_PASTE_CHARS."""
    paste = Paste(kind, gettext_noop("too long"))
    paste.problems.append(
        gettext(
            "The text is longer than {limit} characters: paste at most {rows} rows "
            "at a time."
        ).format(limit=grouped(MAX_PASTE_CHARS, 0), rows=limits.MAX_ROWS[kind])
    )
    return paste


def _map_columns(
    paste: Paste,
    width: int,
    headers: tuple[str, ...],
    matches: list,
    mapping: Mapping[int, str] | None,
) -> None:
    """The paste's ``width`` columns, each mapped by its header's match (none
    without a header) unless the person's ``mapping`` says otherwise; a
    throughput header naming a unit that cannot be read is a problem."""
    for index in range(width):
        header = headers[index] if index < len(headers) else ""
        target, unit_text = matches[index] if index < len(matches) else (None, "")
        chosen = False
        if mapping and index in mapping:
            chosen = mapping[index] != target
            target = mapping[index]
        column = Column(
            index,
            header or gettext("Column {number}").format(number=index + 1),
            target,
            read_unit(unit_text).unit if unit_text else "",
            chosen,
            unit_text,
        )
        paste.columns.append(column)
        if column.unit_refused and target == "throughput":
            named = gettext("Column “{header}”").format(header=column.header)
            paste.problems.append(unit_problem(named, unit_text))


def _refuse_shared_targets(paste: Paste) -> None:
    """A problem for each field several columns would store (GCDs, nodes and GPUs
    all store the GPU count; a month range both months)."""
    stored = [
        c.target for c in paste.columns if c.target not in (IGNORE, COMPUTED, None)
    ]
    expanded = [
        name
        for key in stored
        for name in (
            {GCDS: ["gpus"], NODES: ["gpus"], MONTHS: ["from_month", "to_month"]}.get(
                key, [key]
            )
        )
    ]
    for name in sorted({n for n in expanded if expanded.count(n) > 1}):
        paste.problems.append(
            gettext(
                "Several columns hold {column}: keep one, ignore the others."
            ).format(column=column_label(paste.kind, name))
        )


def _read_line(
    paste: Paste, number: int, cells: tuple[str, ...], width: int, ctx: Context
) -> PastedRow | None:
    """Line ``number`` read into a row, or ``None`` when it is left out (a sum
    line, or nothing to store), which ``paste.skipped`` then says."""
    kind = paste.kind
    row = PastedRow(number, cells)
    named = cells[0] if cells else ""
    if is_total(named.replace("*", "").strip()):
        paste.skipped.append(sum_line_note(number, by_name=True))
        return None
    if len(cells) > len(paste.columns):
        row.problems.append(
            gettext("{cells} cells, but the table has {width}.").format(
                cells=len(cells), width=width
            )
        )
    for column, cell in zip(paste.columns, cells, strict=False):
        read_cell(column, cell.replace("*", "").strip(), kind, ctx, row)
    if kind == "jobs" and repeats_the_sums(row, paste, ctx.fmt):
        paste.skipped.append(sum_line_note(number, by_name=False))
        return None
    waiting = any(
        cell.strip() and not column.known
        for column, cell in zip(paste.columns, cells, strict=False)
    )
    if not row.values and not row.problems and not waiting:
        paste.skipped.append(
            gettext("Line {number} has nothing to store: left out.").format(
                number=number
            )
        )
        return None
    check_row(kind, row, ctx)
    return row


def _note_the_only_code(paste: Paste, ctx: Context) -> None:
    """Measurements pasted without a code column belong to the proposal's only
    code entry: said once, for the whole paste."""
    mapped = {column.target for column in paste.columns}
    if paste.kind != "measurements" or "code" in mapped or ctx.only_code is None:
        return
    name = ctx.only_code_name.strip()
    paste.notes.append(
        gettext(
            "No code column: every row belongs to the proposal's only code entry, "
            "“{name}”."
        ).format(name=name)
        if name
        else gettext(
            "No code column: every row belongs to the proposal's only code entry."
        )
    )
