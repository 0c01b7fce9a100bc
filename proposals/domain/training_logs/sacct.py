"""``sacct -P`` output: allocations become job-plan rows."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from .lines import Unread
from .results import (
    EXCERPT_CHARS,
    EXCERPT_LINES,
    AccountedJob,
    Citation,
    line_ranges,
    positive_int,
)

# --------------------------------------------------------------------------- sacct


_ELAPSED = re.compile(
    r"^(?:(\d{1,5})-)?(?:(\d{1,3}):)?(\d{1,3}):(\d{1,3}(?:\.\d{1,6})?)$"
)
_TRES_GPU = re.compile(r"(?:^|,)gres/gpu(?::[^=,]++)?=(\d++)")
_GRES_GPU = re.compile(r"(?:^|,)gpu(?::[^:,()]++)?:(\d++)")
_TRES_UNTYPED = re.compile(r"(?:^|,)gres/gpu=(\d++)")
_HOURS = Decimal("0.01")
_TRES_TYPE = re.compile(r"gres/gpu:([A-Za-z0-9_]{1,40}+)=")
_TRES_NODES = re.compile(r"(?:^|[,|])node=(\d{1,6}+)")


def _devices(line: str, number: int, gpus: int) -> dict:
    """The GPU type (``gres/gpu:h100=8``) and GPUs per node (``gres/gpu`` over
    ``node``) a job's AllocTRES states, as :class:`.AccountedJob`'s evidence of what its
    counts count (:func:`.devices.gpu_unit`)."""
    found: dict[str, object] = {}
    if typed := _TRES_TYPE.search(line):
        found.update(device=typed.group(1), device_line=number)
    nodes = _TRES_NODES.search(line)
    if nodes and int(nodes.group(1)) > 0 and gpus % int(nodes.group(1)) == 0:
        found.update(per_node=gpus // int(nodes.group(1)), per_node_line=number)
    return found


def elapsed_hours(text: str) -> Decimal | None:
    """Slurm's ``Elapsed`` (``[D-]HH:MM:SS``, ``MM:SS``, ``MM:SS.mmm``) in hours."""
    match = _ELAPSED.match(text.strip())
    if not match:
        return None
    days, hours, minutes, seconds = match.groups()
    total = (
        int(days or 0) * 86400
        + int(hours or 0) * 3600
        + int(minutes) * 60
        + Decimal(seconds)
    )
    return Decimal(total) / 3600


def _sacct_gpus(tres: str, gres: bool) -> int | None:
    if gres:
        found = _GRES_GPU.findall(tres)
    else:
        untyped = _TRES_UNTYPED.search(tres)
        found = [untyped.group(1)] if untyped else _TRES_GPU.findall(tres)
    return positive_int(found[0]) if found else None


#: A JobID as sacct prints it (``src/sacct/print.c``): ``123``, an array's task
#: ``123_4``, an array's tasks not yet run ``123_[4-7]`` (``123_[4-7%2]`` with a
#: throttle), a heterogeneous job's component ``123+1``; a step after a dot
#: (``.batch``, ``.extern``, ``.interactive``, ``.0``).
_JOB_ID = re.compile(
    r"^(\d{1,12}+)(?:_(\d{1,9}+|\[[^\]]{0,4000}+\]))?+(?:\+(\d{1,6}+))?+(\.\S*+)?+$"
)
_TASK_RANGE = re.compile(r"(\d{1,9}+)(?:-(\d{1,9}+))?+(?::(\d{1,9}+))?+")

#: States (``State``; a cancelled job reads "CANCELLED by 40213") of jobs that ran
#: to an end: their allocation was used for its Elapsed time, so they are rows of
#: the plan (a TIMEOUT job ran its whole time limit, as a job that checkpoints and
#: is resubmitted does; a CANCELLED or FAILED one used its GPUs until it stopped;
#: each row says which states it holds). A CANCELLED job that never started has an
#: Elapsed of 0 and is left out as too short.
ENDED = (
    "COMPLETED",
    "TIMEOUT",
    "CANCELLED",
    "FAILED",
    "OUT_OF_MEMORY",
    "NODE_FAIL",
    "PREEMPTED",
    "DEADLINE",
    "BOOT_FAIL",
)
#: Single jobs of the same name and GPU count whose lengths are within this many
#: per cent of each other are one kind of job (one row, their mean length): a
#: TIMEOUT job runs seconds past its limit, and rounding to 0.01 h must not make
#: two kinds of one.
SAME_KIND_PCT = 2
#: States of jobs with no final length: left out, said.
NOT_ENDED = ("PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED", "REVOKED")
#: The columns read, each with the names sacct gives it (any order, any case).
_COLUMNS = {
    "jobid": ("jobid", "jobidraw"),
    "elapsed": ("elapsed", "elapsedraw"),
    "gpus": ("alloctres", "allocgres", "reqtres", "reqgres"),
}


def _pending_tasks(text: str) -> int:
    """How many tasks ``[4-7,9%2]`` names (``4-7:2`` steps by 2)."""
    count = 0
    for match in _TASK_RANGE.finditer(text.split("%")[0]):
        first, last, step = match.groups()
        if last is None:
            count += 1
        else:
            count += max(int(last) - int(first), 0) // int(step or 1) + 1
    return count


class Sacct:
    """``sacct -P`` or ``-p`` (``|``-separated, header first, columns in any
    order)."""

    name = "sacct"

    def __init__(self, header: list[str], number: int, unread: Unread):
        self.unread = unread
        names = [name.strip().lower() for name in header]
        self.columns = {name: i for i, name in reversed(list(enumerate(names)))}
        found = {
            key: next(name for name in choices if name in self.columns)
            for key, choices in _COLUMNS.items()
        }
        self.raw_elapsed = found["elapsed"] == "elapsedraw"
        self.gpu_column = found["gpus"]
        self.gres = self.gpu_column.endswith("gres")
        self.tres = self.columns[self.gpu_column]
        self.job_column = self.columns[found["jobid"]]
        self.elapsed_column = self.columns[found["elapsed"]]
        self.width = len(header)
        #: Rows by (GPUs, hours to 0.01 h) for single jobs, by (GPUs, array job)
        #: for an array's tasks: one array is one kind of job, whatever its tasks'
        #: lengths round to.
        self.groups: dict[tuple, list] = {}
        self.left_out: dict[str, list[int]] = {}
        self.pending_tasks = 0
        self.pending_ids: list[str] = []
        self.header_line = number

    @staticmethod
    def header(line: str) -> list[str] | None:
        cells = [cell.strip() for cell in line.split("|")]
        names = {cell.lower() for cell in cells}
        if all(names & set(choices) for choices in _COLUMNS.values()):
            return cells[:-1] if cells and cells[-1] == "" else cells
        return None

    def _skip(self, reason: str, number: int):
        self.left_out.setdefault(reason, []).append(number)

    def feed(self, number: int, line: str):
        if not line.strip() or set(line.strip()) <= {"-", " ", "|"}:
            return
        cells = line.split("|")
        if line.endswith("|") and len(cells) == self.width + 1:
            cells = cells[:-1]
        if len(cells) != self.width:
            self.unread.add(number)
            return
        job = _JOB_ID.match(cells[self.job_column].strip())
        if not job:
            self.unread.add(number)
            return
        array_id, task, _, step = job.groups()
        if step:
            self._skip(
                "job steps (.batch, .extern, .0, …) are part of their job", number
            )
            return
        state = cells[self.columns["state"]].strip() if "state" in self.columns else ""
        word = state.split()[0].upper() if state else ""
        if task and task.startswith("["):
            self.pending_tasks += _pending_tasks(task[1:-1])
            if len(self.pending_ids) < 6:
                self.pending_ids.append(job.group(0))
            self._skip("array tasks not yet run have no length", number)
            return
        if word.startswith(NOT_ENDED):
            self._skip(f"{word.lower()} jobs have no final length", number)
            return
        text = cells[self.elapsed_column].strip()
        hours = (
            Decimal(text) / 3600
            if self.raw_elapsed and text.isdigit() and len(text) < 12
            else elapsed_hours(text)
            if not self.raw_elapsed
            else None
        )
        if hours is None:
            self.unread.add(number)
            return
        if hours == 0:
            self._skip("jobs that never started (Elapsed 0)", number)
            return
        gpus = _sacct_gpus(cells[self.tres].strip(), self.gres)
        if gpus is None:
            self._skip("jobs without GPUs", number)
            return
        rounded = hours.quantize(_HOURS, rounding=ROUND_HALF_UP)
        if rounded <= 0:
            self._skip("jobs that ran for less than 36 seconds", number)
            return
        name = self._cell("jobname", cells)
        key = (gpus, "array", array_id) if task else (gpus, "name", name)
        group = self.groups.setdefault(key, [])
        group.append(
            (number, job.group(0), name, line.strip()[:EXCERPT_CHARS], hours, word)
        )

    def _cell(self, column: str, cells: list[str]) -> str:
        return cells[self.columns[column]].strip() if column in self.columns else ""

    def jobs(self, file: str) -> list[AccountedJob]:
        left_out = [
            f"{reason}: {line_ranges(tuple(lines))}"
            for reason, lines in self.left_out.items()
        ]
        if self.pending_tasks:
            left_out.append(
                f"{self.pending_tasks} array task(s) not yet run "
                f"({', '.join(self.pending_ids)})"
            )
        if self.gpu_column.startswith("req"):
            left_out.append(
                f"the GPUs are those requested ({self.gpu_column}): the output has no "
                "AllocTRES column"
            )
        found = []
        for key, rows in sorted(self._kinds(), key=_order):
            gpus = key[0]
            names = sorted({row[2] for row in rows if row[2]})
            title = names[0] if len(names) == 1 else ""
            title = title or ", ".join(names)[:60]
            ids = ", ".join(row[1] for row in rows[:6]) + (
                f" and {len(rows) - 6} more" if len(rows) > 6 else ""
            )
            lengths = [row[4] for row in rows]
            hours, low, high = (
                value.quantize(_HOURS, rounding=ROUND_HALF_UP)
                for value in (sum(lengths) / len(lengths), min(lengths), max(lengths))
            )
            elapsed = (
                f"Elapsed ≈ {hours} h (to 0.01 h)"
                if low == high
                else f"Elapsed {low}–{high} h, mean {hours} h"
            )
            if key[1] == "array":
                formula = (
                    f"{len(rows)} task(s) of job array {key[2]} ({ids}) with "
                    f"gres/gpu = {gpus}; {elapsed} (an array is one kind of job, "
                    "whatever its tasks' lengths)"
                )
            else:
                formula = (
                    f"{len(rows)} job(s) ({ids}) with gres/gpu = {gpus} and {elapsed}"
                )
                if low != high:
                    formula += (
                        f" (the same name and GPUs, lengths within "
                        f"{SAME_KIND_PCT} % of each other: one kind of job)"
                    )
            found.append(
                AccountedJob(
                    gpus=gpus,
                    hours=hours,
                    count=len(rows),
                    title=title,
                    source=Citation(
                        file=file,
                        lines=tuple(sorted(row[0] for row in rows)),
                        formula=formula + _states(rows),
                        excerpt=tuple(row[3] for row in rows[:EXCERPT_LINES]),
                        left_out=tuple(left_out),
                    ),
                    **_devices(rows[0][3], rows[0][0], gpus),
                )
            )
        return found

    def _kinds(self):
        """Each array as it is; single jobs of one name and GPU count split where
        their lengths are more than :data:`SAME_KIND_PCT` % apart (sorted by
        length, a kind starts anew past its shortest job's length plus that)."""
        for key, rows in self.groups.items():
            if key[1] == "array":
                yield key, rows
                continue
            kind: list = []
            for row in sorted(rows, key=lambda row: row[4]):
                if kind and row[4] > kind[0][4] * (1 + Decimal(SAME_KIND_PCT) / 100):
                    yield (key[0], "name", key[2], kind[0][4]), kind
                    kind = []
                kind.append(row)
            yield (key[0], "name", key[2], kind[0][4]), kind


def _order(item) -> tuple:
    key, rows = item
    lengths = [row[4] for row in rows]
    return (key[0], sum(lengths) / len(lengths), key[2])


def _states(rows) -> str:
    """``"; states: 2 COMPLETED, 1 TIMEOUT"`` when not every job completed."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row[5] or "?"] = counts.get(row[5] or "?", 0) + 1
    if set(counts) <= {"COMPLETED", "?"}:
        return ""
    return "; states: " + ", ".join(f"{n} {state}" for state, n in counts.items())
