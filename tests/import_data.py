"""Proposal files for the import tests and benchmark: the LUMI example with its tables
grown to a given number of rows, up to the largest file the format allows."""

import copy
import json
from pathlib import Path

from proposals.domain import limits

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
BASE = json.loads((EXAMPLE / "lumi-fast-lane.json").read_text(encoding="utf-8"))
GREEK = "Εκπαίδευση μοντέλου ανίχνευσης ελαττωμάτων σε χαρτί. "


def with_rows(rows: dict[str, int], *, description: str | None = None) -> dict:
    """The example with ``rows[table]`` rows in each table (codes, measurements,
    jobs, schedule); every row valid; code descriptions replaced if given."""
    data = copy.deepcopy(BASE)
    code = data["codes"][0]
    codes = rows.get("codes", 1)
    data["codes"] = [
        {
            **code,
            "name": f"component-{i}",
            "description": code["description"] if description is None else description,
        }
        for i in range(codes)
    ]
    scal = data["scalability"]
    point = scal["measurements"][0]
    scal["measurements"] = [
        {**point, "code": i % codes, "gpus": 4 * (1 + i % 50)}
        for i in range(rows.get("measurements", 1))
    ]
    job = scal["jobs"][0]
    scal["jobs"] = [
        {**job, "title": f"job kind {i}", "count": 1 + i}
        for i in range(rows.get("jobs", 1))
    ]
    scal["schedule"] = [
        {
            "from_month": 1 + i % 60,
            "to_month": 1 + i % 60,
            "gpu_hours": 10,
            "activity": f"activity {i}",
        }
        for i in range(rows.get("schedule", 0))
    ]
    return data


def largest() -> dict:
    """Every table at its row limit."""
    return with_rows(limits.MAX_ROWS)


def text(data: dict) -> bytes:
    return json.dumps(data, ensure_ascii=False, indent=2).encode()
