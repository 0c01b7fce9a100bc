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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from . import limits
from .bounds import BOUNDS
from .i18n import gettext, gettext_noop, ngettext
from .numbers import NumberError, NumberFormat, format_number, grouped, parse_number
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
from .paste_units import store_unit, strip_suffix, unit_problem
from .sections import TABLE_BY_KIND
from .units import read_unit

__all__ = [
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


_TEXT_LIMITS = {
    "title": limits.LINE_CHARS,
    "hardware": limits.LINE_CHARS,
    "unit": limits.UNIT_CHARS,
    "activity": limits.ACTIVITY_CHARS,
    "code": limits.LINE_CHARS,
}


@dataclass(frozen=True)
class Column:
    """One pasted column: its header (or "Column 3" when there is none), the target
    it was mapped to (``None``: unknown, the person chooses), the throughput unit
    the header names as written (``unit_text``) and as stored (``unit``, canonical;
    "" when the header names none or one that cannot be read)."""

    index: int
    header: str
    target: str | None
    unit: str = ""
    chosen: bool = False
    unit_text: str = ""

    @property
    def known(self) -> bool:
        return self.target is not None

    @property
    def unit_refused(self) -> bool:
        """The header names a unit that cannot be read."""
        return bool(self.unit_text) and not self.unit

    @property
    def unit_renamed(self) -> bool:
        """The header's unit is stored under another spelling ("Token/s" as
        tokens/s)."""
        return bool(self.unit) and self.unit_text != self.unit


@dataclass
class PastedRow:
    """One line of the paste: the values to store (field name -> value), and what
    was refused (``problems``) or read in a way worth saying (``notes``)."""

    line: int
    cells: tuple[str, ...]
    values: dict = field(default_factory=dict)  # numbers, months, a product's text
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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


def _label(kind: str, key: str) -> str:
    return next((t.label for t in targets(kind) if t.key == key), key)


def _number(text: str, key: str, kind: str, fmt: NumberFormat, row: PastedRow):
    """``text`` read as the number field ``key`` (``None`` when refused; the
    problem is added to ``row``)."""
    bound = BOUNDS[f"{kind}.{key}"]
    name = _label(kind, key)
    try:
        reading = parse_number(text, fmt, places=bound.places)
    except NumberError as error:
        row.problems.append(
            gettext("{column}: {problem}").format(column=name, problem=error)
        )
        return None
    value = reading.value
    if value < bound.low:
        row.problems.append(
            gettext("{column}: {text} is too small ({why}).").format(
                column=name, text=text, why=bound.why_low
            )
        )
        return None
    if value > bound.high:
        row.problems.append(
            gettext("{column}: {text} is too large ({why}).").format(
                column=name, text=text, why=bound.why_high
            )
        )
        return None
    if reading.ambiguous:
        row.notes.append(
            gettext("{column}: “{text}” read as {value}.").format(
                column=name, text=text, value=format_number(value, fmt)
            )
        )
    return int(value) if bound.places == 0 else value


def _months(text: str, row: PastedRow) -> None:
    match = re.fullmatch(r"\s*(\d{1,3})\s*(?:(?:-|–|—|to|\.\.)\s*(\d{1,3}))?\s*", text)
    if not match:
        row.problems.append(
            gettext("Months: “{text}” is not a month (3) or a range (4-6).").format(
                text=text
            )
        )
        return
    first, last = int(match[1]), int(match[2] or match[1])
    bound = BOUNDS["schedule.from_month"]
    if not (bound.low <= first <= bound.high and bound.low <= last <= bound.high):
        row.problems.append(
            gettext("Months: “{text}”: {why_low}, {why_high}.").format(
                text=text, why_low=bound.why_low, why_high=bound.why_high
            )
        )
        return
    row.values["from_month"], row.values["to_month"] = first, last


@dataclass(frozen=True)
class Context:
    """What reading needs to know of the proposal: the number format, how many GCDs
    one GPU has and GPUs one node has on the target system (``None``: no system),
    the code entries by name (lower case -> id), room left in the table, the
    unit a measurement gets when neither its cell nor its column's header names
    one, and the only code entry, if the proposal has one only."""

    fmt: NumberFormat
    gcds_per_gpu: int | None = None
    gpus_per_node: int | None = None
    codes: Mapping[str, int] = field(default_factory=dict)
    room: int | None = None
    default_unit: str = "samples/s"
    # The proposal's code entry when it has exactly one (pasted measurements
    # without a code column belong to it).
    only_code: int | None = None
    only_code_name: str = ""


def _cell(column: Column, text: str, kind: str, ctx: Context, row: PastedRow) -> None:
    key = column.target
    if not text or key in (IGNORE, None):
        return
    if key == COMPUTED:
        row.values.setdefault("_computed", text)
        return
    if key == MONTHS:
        _months(text, row)
        return
    if key in _TEXT_LIMITS:
        if len(text) > _TEXT_LIMITS[key]:
            row.problems.append(
                gettext("{column}: longer than {limit} characters.").format(
                    column=_label(kind, key),
                    limit=format_number(_TEXT_LIMITS[key], ctx.fmt),
                )
            )
        elif key == "unit":
            store_unit(text, _label(kind, key), row)
        elif key == "code":
            found = ctx.codes.get(text.strip().lower())
            if found is None:
                known = gettext(", ").join(sorted(ctx.codes)) or gettext("none yet")
                row.problems.append(
                    gettext("Code: no code entry named “{text}” ({known}).").format(
                        text=text, known=known
                    )
                )
            else:
                row.values["code"] = found
        else:
            row.values[key] = text
        return
    number_text, unit = strip_suffix(text, key)
    if unit:
        store_unit(unit, _label(kind, key), row)
    elif key == "throughput" and column.unit:
        # "Throughput (tokens/s)": the header's unit, unless a unit column says.
        row.values.setdefault("unit", column.unit)
    if key in (GCDS, NODES):
        count = _number(number_text, "gpus", kind, ctx.fmt, row)
        if count is None:
            return
        per = ctx.gcds_per_gpu if key == GCDS else ctx.gpus_per_node
        if not per:
            row.problems.append(
                gettext(
                    "GCDs: choose the target system first, so GCDs can be converted "
                    "to GPUs."
                )
                if key == GCDS
                else gettext(
                    "nodes: choose the target system first, so nodes can be converted "
                    "to GPUs."
                )
            )
        elif key == GCDS and count % per:
            row.problems.append(
                gettext(
                    "GCDs: {count} GCDs is not a whole number of GPUs ({per} GCDs each)."
                ).format(count=format_number(count, ctx.fmt), per=per)
            )
        else:
            gpus = count // per if key == GCDS else count * per
            row.values["gpus"] = gpus
            note = (
                gettext("{count} GCDs = {gpus} GPUs.")
                if key == GCDS
                else gettext("{count} nodes = {gpus} GPUs.")
            )
            row.notes.append(
                note.format(
                    count=format_number(count, ctx.fmt),
                    gpus=format_number(gpus, ctx.fmt),
                )
            )
        return
    value = _number(number_text, key, kind, ctx.fmt, row)
    if value is not None:
        row.values[key] = value


def _check_row(kind: str, row: PastedRow, ctx: Context) -> None:
    computed = row.values.pop("_computed", None)
    values = row.values
    if kind == "schedule":
        first, last = values.get("from_month"), values.get("to_month")
        if first and last and last < first:
            row.problems.append(
                gettext("To month: the last month comes before the first.")
            )
        elif first and not last:
            values["to_month"] = first
        elif last and not first:
            values["from_month"] = last
    if kind == "jobs" and computed is not None and not row.problems:
        gpus, hours, count = (values.get(k) for k in ("gpus", "hours", "count"))
        try:
            pasted = parse_number(computed, ctx.fmt, places=2).value
        except NumberError:
            pasted = None
        if pasted is not None and None not in (gpus, hours, count):
            # Not None (tested above with "None not in", which mypy does not follow).
            product = Decimal(gpus) * Decimal(hours) * Decimal(count)  # type: ignore[arg-type]
            if product != pasted:
                row.notes.append(
                    gettext(
                        "Your GPU-hours {pasted} differ from GPUs × hours × jobs = "
                        "{product}; the wizard computes them."
                    ).format(
                        pasted=format_number(pasted, ctx.fmt),
                        product=format_number(product, ctx.fmt),
                    )
                )
    if kind == "measurements" and "throughput" in values and "unit" not in values:
        values["unit"] = ctx.default_unit
    if kind == "measurements" and "code" not in values and ctx.only_code is not None:
        values["code"] = ctx.only_code


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
        paste = Paste(kind, gettext_noop("too long"))
        paste.problems.append(
            gettext(
                "The text is longer than {limit} characters: paste at most {rows} rows "
                "at a time."
            ).format(limit=grouped(MAX_PASTE_CHARS, 0), rows=limits.MAX_ROWS[kind])
        )
        return paste
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
    for index in range(width):
        header = first[index] if has_header and index < len(first) else ""
        target, unit_text = (
            matches[index] if has_header and index < len(matches) else (None, "")
        )
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
            ).format(column=_label(kind, name))
        )
    body = grid.lines[1:] if has_header else grid.lines
    if has_header:
        paste.skipped.append(
            gettext("Line {number} read as the header.").format(number=first_line)
        )
    room = ctx.room if ctx.room is not None else limits.MAX_ROWS[kind]
    table = TABLE_BY_KIND[kind]
    for number, cells in body:
        row = PastedRow(number, cells)
        named = cells[0] if cells else ""
        if is_total(named.replace("*", "").strip()):
            paste.skipped.append(sum_line_note(number, by_name=True))
            continue
        if len(cells) > len(paste.columns):
            row.problems.append(
                gettext("{cells} cells, but the table has {width}.").format(
                    cells=len(cells), width=width
                )
            )
        for column, cell in zip(paste.columns, cells, strict=False):
            _cell(column, cell.replace("*", "").strip(), kind, ctx, row)
        if kind == "jobs" and repeats_the_sums(row, paste, ctx.fmt):
            paste.skipped.append(sum_line_note(number, by_name=False))
            continue
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
            continue
        _check_row(kind, row, ctx)
        if not row.problems and len(paste.accepted) >= room:
            row.problems.append(
                gettext(
                    "{table} holds at most {rows} rows: there is no room for this one."
                ).format(
                    table=table.title,
                    rows=format_number(limits.MAX_ROWS[kind], ctx.fmt),
                )
            )
        paste.rows.append(row)
    mapped = {column.target for column in paste.columns}
    if kind == "measurements" and "code" not in mapped and ctx.only_code is not None:
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
    return paste
