"""The cells of a pasted table read into one row's values (:mod:`.paste` reads the
table): the columns as mapped, the row, what reading needs to know of the proposal,
each cell checked against its column's limits and :mod:`.bounds`, and GCDs or nodes
converted to GPUs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from . import limits
from .bounds import BOUNDS
from .i18n import gettext
from .numbers import NumberError, NumberFormat, format_number, parse_number
from .paste_columns import COMPUTED, GCDS, IGNORE, MONTHS, NODES, targets
from .paste_units import store_unit, strip_suffix

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


def column_label(kind: str, key: str) -> str:
    return next((t.label for t in targets(kind) if t.key == key), key)


def _number(text: str, key: str, kind: str, fmt: NumberFormat, row: PastedRow):
    """``text`` read as the number field ``key`` (``None`` when refused; the
    problem is added to ``row``)."""
    bound = BOUNDS[f"{kind}.{key}"]
    name = column_label(kind, key)
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


def read_cell(
    column: Column, text: str, kind: str, ctx: Context, row: PastedRow
) -> None:
    """Store the cell ``text`` of ``column`` in ``row``, or say in it why not."""
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
        _text_cell(key, text, kind, ctx, row)
        return
    number_text, unit = strip_suffix(text, key)
    if unit:
        store_unit(unit, column_label(kind, key), row)
    elif key == "throughput" and column.unit:
        # "Throughput (tokens/s)": the header's unit, unless a unit column says.
        row.values.setdefault("unit", column.unit)
    if key in (GCDS, NODES):
        _gpus_from(key, number_text, kind, ctx, row)
        return
    value = _number(number_text, key, kind, ctx.fmt, row)
    if value is not None:
        row.values[key] = value


def _text_cell(key: str, text: str, kind: str, ctx: Context, row: PastedRow) -> None:
    """A text column: within its length, a unit read, a code entry found by name."""
    if len(text) > _TEXT_LIMITS[key]:
        row.problems.append(
            gettext("{column}: longer than {limit} characters.").format(
                column=column_label(kind, key),
                limit=format_number(_TEXT_LIMITS[key], ctx.fmt),
            )
        )
    elif key == "unit":
        store_unit(text, column_label(kind, key), row)
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


def _gpus_from(
    key: str, number_text: str, kind: str, ctx: Context, row: PastedRow
) -> None:
    """A count of GCDs or nodes converted to physical GPUs with the target system's
    GCDs per GPU or GPUs per node (refused without a system, or for GCDs that are
    not whole GPUs); the conversion is noted."""
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


def check_row(kind: str, row: PastedRow, ctx: Context) -> None:
    """What a row is given or told once all its cells are read: a month range
    completed or refused, pasted GPU-hours compared, a measurement's default unit
    and only code entry."""
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
