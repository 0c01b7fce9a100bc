"""How a pasted table is cut into cells and how its headers name the wizard's
columns (see :mod:`.paste`): the vocabulary's labels and units, plus the synonyms
people use in spreadsheets and training logs."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache

from .fields import columns
from .fieldspec import FieldSpec
from .i18n import gettext, gettext_noop
from .units import UNIT_TEXT, read_unit

# The tables a person can paste into.
PASTE_KINDS = ("measurements", "jobs", "schedule")
# Beyond this many characters the text is not read at all (a pasted table of the
# largest allowed size is far shorter).
MAX_PASTE_CHARS = 200_000

# Targets that are not a stored field: a GPU count in GCDs or nodes (converted to
# GPUs), a month or month range ("3" or "4-6") for the schedule, and columns the
# wizard computes itself (checked where they can be, never stored).
GCDS, NODES, MONTHS, COMPUTED, IGNORE = "gcds", "nodes", "months", "computed", ""

# Header words (lower case, after the unit in brackets is taken off) that mean a
# field, beyond the field's own label, short label and name. Per table kind; the
# usual Spanish, German, French and Italian words are in ``_LOCAL`` below. A word
# means one field of a kind only (a test keeps it so).
SYNONYMS: dict[str, dict[str, tuple[str, ...]]] = {
    "measurements": {
        "code": ("code", "software", "code entry", "model"),
        "gpus": ("gpus", "gpu", "#gpus", "gpu count", "num gpus", "number of gpus"),
        GCDS: ("gcds", "gcd", "#gcds", "gcd count", "number of gcds"),
        NODES: ("nodes", "node", "#nodes", "number of nodes"),
        "throughput": ("throughput", "speed", "perf", "performance", "rate"),
        "unit": ("unit", "units", "throughput unit"),
        "mfu_pct": (
            "mfu",
            "mfu %",
            "model flops utilisation",
            "model flops utilization",
        ),
        "comm_overhead_pct": (
            "comm",
            "comm %",
            "comm.",
            "communication",
            "communication overhead",
            "comm overhead",
        ),
        "hardware": ("hardware", "system", "machine", "platform", "cluster"),
        COMPUTED: ("speedup", "efficiency", "eff", "eff.", "scaling efficiency"),
    },
    "jobs": {
        "title": ("job", "job type", "title", "name", "task", "phase", "description"),
        "gpus": ("gpus", "gpu", "gpus per job", "#gpus", "gpus/job", "gpu count"),
        GCDS: ("gcds", "gcd", "gcds per job", "#gcds", "gcds/job"),
        NODES: ("nodes", "node", "nodes per job", "#nodes", "nodes/job"),
        "hours": ("hours", "hours per job", "walltime", "wall time", "duration", "h"),
        "count": ("count", "jobs", "number of jobs", "#jobs", "runs", "n", "repeats"),
        COMPUTED: ("gpu-hours", "gpu hours", "gpuh", "total", "total gpu-hours"),
    },
    "schedule": {
        "from_month": ("from", "from month", "start", "start month", "first month"),
        "to_month": ("to", "to month", "end", "end month", "last month", "until"),
        MONTHS: ("month", "months", "period", "month range"),
        "gpu_hours": ("gpu-hours", "gpu hours", "gpuh", "hours", "budget"),
        "activity": ("activity", "phase", "what", "task", "description", "work"),
    },
}

# The usual words of spreadsheets written in Spanish, German, French and Italian.
_LOCAL: dict[str, dict[str, tuple[str, ...]]] = {
    "measurements": {
        "code": ("código", "codigo", "modelo", "modell", "modèle", "codice"),
        "gpus": (
            "número de gpus",
            "numero de gpus",
            "nº de gpus",
            "n.º de gpus",
            "núm. gpus",
            "anzahl gpus",
            "anzahl der gpus",
            "anzahl gpu",
            "nombre de gpu",
            "nombre de gpus",
            "nb gpu",
            "nb gpus",
            "nb de gpu",
            "numero di gpu",
            "numero gpu",
            "n. gpu",
            "num. gpu",
        ),
        NODES: (
            "nodos",
            "número de nodos",
            "knoten",
            "anzahl knoten",
            "nœuds",
            "noeuds",
            "nombre de nœuds",
            "nodi",
            "numero di nodi",
        ),
        "throughput": (
            "rendimiento",
            "velocidad",
            "durchsatz",
            "leistung",
            "débit",
            "debit",
            "vitesse",
            "prestazioni",
            "velocità",
            "throughput misurato",
        ),
        "unit": ("unidad", "einheit", "unité", "unite", "unità"),
        "comm_overhead_pct": (
            "comunicación",
            "sobrecarga de comunicación",
            "kommunikation",
            "kommunikationsaufwand",
            "surcoût de communication",
            "comunicazione",
            "overhead di comunicazione",
        ),
        "hardware": (
            "sistema",
            "máquina",
            "maquina",
            "maschine",
            "système",
            "matériel",
            "materiel",
            "equipo",
            "macchina",
            "plataforma",
            "plattform",
            "plateforme",
            "piattaforma",
        ),
        COMPUTED: (
            "aceleración",
            "eficiencia",
            "beschleunigung",
            "effizienz",
            "skalierungseffizienz",
            "accélération",
            "efficacité",
            "accelerazione",
            "efficienza",
        ),
    },
    "jobs": {
        "title": (
            "trabajo",
            "tipo de trabajo",
            "descripción",
            "auftrag",
            "aufgabe",
            "beschreibung",
            "jobtyp",
            "tâche",
            "type de tâche",
            "nom",
            "lavoro",
            "tipo di lavoro",
            "descrizione",
            "nome",
        ),
        "gpus": (
            "gpus por trabajo",
            "gpus pro job",
            "gpus pro auftrag",
            "gpu par tâche",
            "gpu par job",
            "gpu per lavoro",
            "gpu per job",
        ),
        NODES: ("nodos", "knoten", "nœuds", "noeuds", "nodi"),
        "hours": (
            "horas",
            "duración",
            "stunden",
            "dauer",
            "laufzeit",
            "heures",
            "durée",
            "ore",
            "durata",
        ),
        "count": (
            "número de trabajos",
            "trabajos",
            "cantidad",
            "anzahl",
            "anzahl jobs",
            "nombre de tâches",
            "nombre de jobs",
            "numero di lavori",
            "numero",
            "quantità",
        ),
        COMPUTED: (
            "horas gpu",
            "horas-gpu",
            "gpu-stunden",
            "gpu stunden",
            "heures gpu",
            "heures-gpu",
            "ore gpu",
            "ore-gpu",
        ),
    },
    "schedule": {
        "from_month": ("desde", "mes inicial", "von", "ab", "du", "dal", "da"),
        "to_month": ("hasta", "mes final", "bis", "au", "al", "fino a"),
        MONTHS: (
            "mes",
            "meses",
            "monat",
            "monate",
            "mois",
            "mese",
            "mesi",
            "periodo",
            "zeitraum",
            "période",
        ),
        "gpu_hours": (
            "horas gpu",
            "horas-gpu",
            "gpu-stunden",
            "gpu stunden",
            "heures gpu",
            "heures-gpu",
            "ore gpu",
            "ore-gpu",
        ),
        "activity": (
            "actividad",
            "tarea",
            "aktivität",
            "tätigkeit",
            "activité",
            "attività",
        ),
    },
}
for _kind, _fields in _LOCAL.items():
    for _key, _words_of in _fields.items():
        SYNONYMS[_kind][_key] = SYNONYMS[_kind][_key] + _words_of

# Throughput units a header or a cell may carry ("Throughput (tokens/s)", "1,200
# samples/s", "Durchsatz (Token pro Sekunde)", "Débit (échantillons/s)"): the five
# languages' vocabulary of :mod:`.units`, read there into the canonical units. The
# unit's word is bounded (an unbounded one was tried from every letter of a long
# word to its end, quadratic time: 100,000 characters kept a worker busy past its
# timeout).
UNIT = UNIT_TEXT
# A bracket that says "per second" in a way the unit pattern does not read
# ("(Sequenzen pro Knoten und Sekunde)"): its whole text is the unit, refused
# rather than left out (the column would otherwise get the default unit).
_PER_SECOND = re.compile(
    r"/\s{0,3}(?:s|sec|secs|second|seconds)\b|"
    r"\b(?:seconds?|sekunden?|secondes?|secondi|secondo|segundos?)\b",
    re.IGNORECASE,
)
# Words between a column's name and its unit: "Débit en échantillons/s".
_UNIT_JOINERS = ("in", "en", "em", "as", "als", "como", "come", "de", "di", "-", ":")
_BRACKETED = re.compile(r"\(([^)]*)\)|\[([^\]]*)\]")
_ALIGNMENT = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Target:
    """What a column can hold: a field of the table (its name), or one of the
    conversions above. ``label`` is how the preview and the column select name it,
    in the active language (the targets are cached: they keep the English, ``text``
    for a conversion or the field's ``spec``, and translate when read)."""

    key: str
    text: str = ""
    spec: FieldSpec | None = None

    @property
    def label(self) -> str:
        return self.spec.header if self.spec is not None else gettext(self.text)


@cache
def targets(kind: str) -> tuple[Target, ...]:
    """Everything a column of a ``kind`` table can be mapped to, for the select."""
    found = [Target(spec.name, spec=spec) for spec in columns(kind)]
    extra = {
        GCDS: gettext_noop("GCDs (converted to GPUs)"),
        NODES: gettext_noop("Nodes (converted to GPUs)"),
        MONTHS: gettext_noop("Month or month range (3, or 4-6)"),
        COMPUTED: gettext_noop("Computed by the wizard (checked, not stored)"),
    }
    found += [Target(key, text) for key, text in extra.items() if key in SYNONYMS[kind]]
    return (*found, Target(IGNORE, gettext_noop("Ignore this column")))


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").replace("_", " ").lower().split())


def _unit_text(text: str) -> str:
    return " ".join(text.split())


def _header_unit(header: str) -> tuple[str, str]:
    """``"Throughput (tokens/s)"`` -> (``"throughput"``, ``"tokens/s"``): the
    header's words without its unit, and the unit as written ("" when none). The
    unit is one in brackets, else one written after the name ("Durchsatz Token/s",
    "Débit en échantillons/s") or the whole header ("samples/s")."""
    unit = ""
    for match in _BRACKETED.finditer(header):
        inside = (match.group(1) or match.group(2) or "").strip()
        found = UNIT.search(inside)
        if found:
            unit = _unit_text(found.group(0))
        elif _PER_SECOND.search(inside):
            unit = _unit_text(inside)
    plain = _BRACKETED.sub(" ", header)
    bare = _words(plain)
    if not unit:
        found = UNIT.search(plain.replace("*", ""))
        if found:
            unit = _unit_text(found.group(0))
            rest = plain.replace("*", "")
            words = _words(rest[: found.start()] + " " + rest[found.end() :]).split()
            while words and words[-1] in _UNIT_JOINERS:
                words.pop()
            bare = " ".join(words)
    return bare, unit


def read_header(header: str, kind: str) -> tuple[str | None, str]:
    """The target a header names (``None``: unknown) and the throughput unit it
    carries as written ("" when none; :func:`.units.read_unit` says what it
    means)."""
    bare, unit = _header_unit(header)
    full = _words(header)
    if unit and not bare:
        return ("throughput" if kind == "measurements" else None), unit
    for spec in columns(kind):
        names = {_words(spec.label), _words(spec.header), _words(spec.name)}
        if bare in names or full in names:
            return spec.name, unit
    for key, words in SYNONYMS[kind].items():
        if bare in words or full in words:
            return key, unit
    if "%" in full or "percent" in full:
        bare = bare.replace("%", "").strip()
        for key in ("mfu_pct", "comm_overhead_pct"):
            if key in SYNONYMS[kind] and bare in SYNONYMS[kind][key]:
                return key, unit
    return None, unit


def match_header(header: str, kind: str) -> tuple[str | None, str]:
    """The target a header names (``None``: unknown) and the canonical throughput
    unit it carries ("" when none, or when it cannot be read). ``"GPUs"`` -> gpus,
    ``"GCDs"`` -> gcds, ``"Token/s"`` -> (throughput, tokens/s)."""
    target, unit = read_header(header, kind)
    return target, read_unit(unit).unit if unit else ""


# --- Splitting the text into cells -------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """The pasted text as lines of cells. ``lines`` are (line number, cells)."""

    layout: str
    lines: tuple[tuple[int, tuple[str, ...]], ...]
    blank_lines: int = 0


def _markdown_cells(line: str) -> tuple[str, ...]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return tuple(cell.replace("\\|", "|").strip() for cell in cells)


def split_cells(text: str) -> Grid:
    """Split ``text`` into cells: Markdown, tab-separated, CSV (``csv.Sniffer``
    picks the delimiter among ``,``, ``;`` and tab) or columns aligned with at
    least two spaces. Blank lines (and a Markdown alignment row) are left out and
    counted."""
    numbered = list(
        enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1)
    )
    filled = [(n, line) for n, line in numbered if line.strip()]
    blank = len(numbered) - len(filled)
    if text.endswith("\n"):
        blank -= 1  # the line break after the last line is no blank line
    if not filled:
        return Grid(gettext_noop("empty"), (), blank)
    if all(line.lstrip().startswith("|") for _, line in filled):
        lines = tuple(
            (n, _markdown_cells(line))
            for n, line in filled
            if not _ALIGNMENT.match(line)
        )
        return Grid(gettext_noop("Markdown table"), lines, blank)
    if any("\t" in line for _, line in filled):
        lines = tuple(
            (n, tuple(c.strip() for c in line.split("\t"))) for n, line in filled
        )
        return Grid(gettext_noop("tab-separated"), lines, blank)
    sample = "\n".join(line for _, line in filled[:20])
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;")
    except csv.Error:
        dialect = None
    if dialect is not None:
        rows = []
        for n, line in filled:
            cells = next(csv.reader([line], dialect), [])
            rows.append((n, tuple(cell.strip() for cell in cells)))
        if len({len(cells) for _, cells in rows}) == 1 and len(rows[0][1]) > 1:
            name = (
                gettext_noop("semicolon-separated")
                if dialect.delimiter == ";"
                else gettext_noop("CSV")
            )
            return Grid(name, tuple(rows), blank)
    lines = tuple(
        (n, tuple(c.strip() for c in re.split(r"\s{2,}", line.strip())))
        for n, line in filled
    )
    return Grid(gettext_noop("columns aligned with spaces"), lines, blank)
