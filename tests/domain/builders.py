"""Helpers for domain tests: load the guide examples and edit them by JSON path."""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path

from proposals.domain import Proposal, assess, load_catalogue, loads

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "fixtures" / "examples"


@cache
def catalogue():
    """The cluster catalogue from ``fixtures/catalogue.json``."""
    return load_catalogue(ROOT / "fixtures" / "catalogue.json")


@cache
def example(name: str) -> Proposal:
    """A guide example from ``fixtures/examples/<name>.json``."""
    return loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def change(obj, path: str, value):
    """Return ``obj`` with the attribute at ``path`` (``a.b[2].c``) replaced."""
    head, _, rest = path.partition(".")
    match = re.fullmatch(r"(\w+)\[(\d+)\]", head)
    if match:
        name, index = match[1], int(match[2])
        items = list(getattr(obj, name))
        items[index] = change(items[index], rest, value) if rest else value
        return dataclasses.replace(obj, **{name: tuple(items)})
    if rest:
        return dataclasses.replace(
            obj, **{head: change(getattr(obj, head), rest, value)}
        )
    return dataclasses.replace(obj, **{head: value})


def edit(proposal: Proposal, **changes) -> Proposal:
    """Apply ``change`` per keyword; ``__`` stands for a dot (``selection__system``)."""
    for key, value in changes.items():
        proposal = change(proposal, key.replace("__", "."), value)
    return proposal


def findings(proposal: Proposal, code: str | None = None):
    """Findings of ``proposal`` (only those of rule ``code`` when given)."""
    result = assess(proposal, catalogue()).findings
    return [f for f in result if code is None or f.code == code]
