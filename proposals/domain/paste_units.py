"""Throughput units in a pasted table (see :mod:`.paste`). A unit in a header, a
cell ("1,200 samples/s") or a unit column is read in English, German, French,
Italian or Spanish (:mod:`.units`: "Token/s", "échantillons/s", "Bilder pro
Sekunde") and stored as its canonical unit (tokens/s, samples/s, images/s, steps/s,
with /GPU when it is one GPU's); the preview says which header was read how, and a
unit that cannot be read is refused with a message that says why, never stored in
part."""

from __future__ import annotations

import re

from .i18n import gettext
from .paste_columns import UNIT
from .units import CANONICAL, read_unit


def unit_problem(column: str, unit: str) -> str:
    """Why a unit is refused, beside the table or its row."""
    return gettext(
        "{column}: the unit “{unit}” cannot be read as {units} (written in English, "
        "German, French, Italian or Spanish, per second, optionally per GPU). "
        "Nothing is stored from it: write the unit as one of those and update the "
        "preview."
    ).format(column=column, unit=unit, units=gettext(", ").join(CANONICAL))


def store_unit(text: str, column: str, row) -> None:
    """The unit ``text`` stored canonical in ``row`` (a note when its spelling
    changes), or a problem when it cannot be read."""
    reading = read_unit(text)
    if not reading.unit:
        row.problems.append(unit_problem(column, text))
        return
    row.values["unit"] = reading.unit
    if " ".join(text.split()) != reading.unit:
        row.notes.append(
            gettext("Unit “{text}” read as {unit}.").format(
                text=text, unit=reading.unit
            )
        )


def strip_suffix(text: str, key: str) -> tuple[str, str]:
    """A cell without the unit people write after the number: ``85 %``, ``24 h``,
    ``1,200 samples/s`` -> (number text, throughput unit as written, or "")."""
    text = text.strip()
    if key.endswith("_pct") and text.endswith("%"):
        return text[:-1].strip(), ""
    if key == "hours" and re.fullmatch(r".*\d\s*h", text):
        return text[:-1].strip(), ""
    if key == "throughput":
        match = UNIT.search(text)
        if match:
            return text[: match.start()].strip(), " ".join(match.group(0).split())
    return text, ""
