"""Read-only layouts and revision diffs, computed from ``aifactory-proposal/1`` documents.

Pure Python (no Django): the staff review page and the diff page both work on the JSON
document of a proposal, so a live draft and a stored snapshot are shown the same way.
A document is flattened into ``(field path, text)`` pairs using the format's own paths
(``codes[1].version``, the same paths the findings point at), grouped by portal section.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

SECTIONS = (
    ("organisation", "Organisation and eligibility"),
    ("selection", "AI Factory selection"),
    ("codes", "Code details"),
    ("scalability", "Scalability and performance"),
    ("optimisation", "Optimisation"),
)
SECTION_TITLES = dict(SECTIONS)

# Top-level keys of the document -> the portal section (wizard step) they belong to.
SECTION_OF_KEY = {
    "title": "organisation",
    "call_family": "organisation",
    "organisation": "organisation",
    "experience": "organisation",
    "selection": "selection",
    "codes": "codes",
    "scalability": "scalability",
    "optimisation": "optimisation",
}

LABELS = {
    "title": "Proposal title",
    "call_family": "Call family",
    "vat_number": "VAT number",
    "ongoing_eurohpc_project": "Another ongoing EuroHPC JU project",
    "hpc_experience": "HPC experience",
    "stack_demonstrated_on_target": "Software stack demonstrated on the target",
    "total_gpu_hours": "Total GPU-hours",
    "max_gpus_per_job": "Maximum GPUs per job",
    "storage_tb": "Storage (TB)",
    "transfer_in_tb": "Data transfer in (TB)",
    "transfer_out_tb": "Data transfer out (TB)",
    "extra_cpu_hours": "CPU-hours beyond the default",
    "duration_months": "Duration (months)",
    "gpus": "GPUs",
    "gpu_hours": "GPU-hours",
    "mfu_pct": "MFU (%)",
    "comm_overhead_pct": "Communication overhead (%)",
    "runtime_stability_pct": "Runtime stability (± %)",
    "code": "Code entry",
}
ITEM_LABELS = {
    "codes": "Code entry",
    "measurements": "Measurement",
    "jobs": "Job type",
    "schedule": "Usage period",
}
# Group keys of the JSON format that are not shown in a label.
SECTION_KEYS = (
    "selection",
    "scalability",
    "optimisation",
    "organisation",
    "experience",
)
_INDEX = re.compile(r"^(\w+)\[(\d+)\]$")
_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Row:
    """One field of a document: its path, a readable label and its text."""

    path: str
    label: str
    value: str


@dataclass
class Section:
    """A portal section with its rows (fields or changes)."""

    key: str
    title: str
    rows: list = field(default_factory=list)


@dataclass(frozen=True)
class Change:
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
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "\n".join(text_of(item) for item in value)
    return str(value)


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


def label_for(path: str) -> str:
    """A readable label for a field path: ``codes[1].version`` -> "Code entry 2 ·
    Version"."""
    parts = []
    for part in path.split("."):
        match = _INDEX.match(part)
        if match:
            name, index = match.group(1), int(match.group(2))
            parts.append(f"{ITEM_LABELS.get(name, name)} {index + 1}")
        elif part in SECTION_KEYS:
            continue
        elif part == "title" and parts:
            parts.append("Title")  # of a job type, not of the proposal
        else:
            parts.append(LABELS.get(part, part.replace("_", " ").capitalize()))
    return " · ".join(parts) or path


def section_of(path: str) -> str:
    """The portal section a field path belongs to."""
    head = re.split(r"[.\[]", path, maxsplit=1)[0]
    return SECTION_OF_KEY.get(head, "organisation")


def layout(document: dict) -> list[Section]:
    """The document as read-only sections of rows, in the portal's order."""
    sections = {key: Section(key, title) for key, title in SECTIONS}
    for path, value in flatten(document):
        sections[section_of(path)].rows.append(
            Row(path, label_for(path), text_of(value))
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


def diff_documents(old: dict, new: dict) -> list[Section]:
    """Field-by-field changes between two documents, grouped by section; sections
    without changes are left out."""
    old_leaves = {path: text_of(value) for path, value in flatten(old)}
    new_leaves = {path: text_of(value) for path, value in flatten(new)}
    order = list(old_leaves)
    order += [path for path in new_leaves if path not in old_leaves]
    sections = {key: Section(key, title) for key, title in SECTIONS}
    for path in order:
        before, after = old_leaves.get(path), new_leaves.get(path)
        if before == after:
            continue
        if before is None or (before == "" and after):
            kind = "added"
        elif after is None or (after == "" and before):
            kind = "removed"
        else:
            kind = "changed"
        sections[section_of(path)].rows.append(
            Change(
                path=path,
                label=label_for(path),
                kind=kind,
                old=before or "",
                new=after or "",
                segments=word_diff(before or "", after or ""),
            )
        )
    return [section for section in sections.values() if section.rows]


def finding_key(finding: dict) -> tuple[str, str]:
    return (finding.get("code", ""), finding.get("field", ""))


def diff_findings(old: list[dict], new: list[dict]) -> dict[str, list[dict]]:
    """Findings that appeared (``added``) and went away (``resolved``) between two
    revisions, matched on rule code and field."""
    old_keys = {finding_key(f) for f in old}
    new_keys = {finding_key(f) for f in new}
    return {
        "added": [f for f in new if finding_key(f) not in old_keys],
        "resolved": [f for f in old if finding_key(f) not in new_keys],
    }
