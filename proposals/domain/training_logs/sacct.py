"""``sacct -P`` output: allocations become job-plan rows."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from .lines import _Unread
from .results import (
    EXCERPT_CHARS,
    EXCERPT_LINES,
    Job,
    Source,
    _line_ranges,
    _positive_int,
)

# --------------------------------------------------------------------------- sacct


_ELAPSED = re.compile(
    r"^(?:(\d{1,5})-)?(?:(\d{1,3}):)?(\d{1,3}):(\d{1,3}(?:\.\d{1,6})?)$"
)
_TRES_GPU = re.compile(r"(?:^|,)gres/gpu(?::[^=,]++)?=(\d++)")
_GRES_GPU = re.compile(r"(?:^|,)gpu(?::[^:,()]++)?:(\d++)")
_TRES_UNTYPED = re.compile(r"(?:^|,)gres/gpu=(\d++)")
_HOURS = Decimal("0.01")


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
    return _positive_int(found[0]) if found else None


class _Sacct:
    """``sacct -P`` (``|``-separated, header first)."""

    name = "sacct"

    def __init__(self, header: list[str], number: int, unread: _Unread):
        self.unread = unread
        self.columns = {name.strip().lower(): i for i, name in enumerate(header)}
        self.gres = "alloctres" not in self.columns
        self.tres = self.columns.get("alloctres", self.columns.get("allocgres"))
        self.width = len(header)
        self.groups: dict[tuple[int, Decimal], list] = {}
        self.left_out: dict[str, list[int]] = {}
        self.header_line = number

    @staticmethod
    def header(line: str) -> list[str] | None:
        cells = [cell.strip() for cell in line.split("|")]
        names = {cell.lower() for cell in cells}
        if (
            "elapsed" in names
            and names & {"alloctres", "allocgres"}
            and "jobid" in names
        ):
            return cells
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
        job = cells[self.columns["jobid"]].strip()
        if not job:
            self.unread.add(number)
            return
        if "." in job:
            self._skip(
                "job steps (.batch, .extern, .0, …) are part of their job", number
            )
            return
        state = cells[self.columns["state"]].strip() if "state" in self.columns else ""
        if state.startswith(
            ("PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED")
        ):
            self._skip(f"{state.split()[0].lower()} jobs have no final length", number)
            return
        hours = elapsed_hours(cells[self.columns["elapsed"]])
        if hours is None:
            self.unread.add(number)
            return
        gpus = _sacct_gpus(cells[self.tres].strip(), self.gres)
        if gpus is None:
            self._skip("jobs without GPUs", number)
            return
        rounded = hours.quantize(_HOURS, rounding=ROUND_HALF_UP)
        if rounded <= 0:
            self._skip("jobs that ran for less than 36 seconds", number)
            return
        name = (
            cells[self.columns["jobname"]].strip() if "jobname" in self.columns else ""
        )
        group = self.groups.setdefault((gpus, rounded), [])
        group.append((number, job, name, line.strip()[:EXCERPT_CHARS]))

    def jobs(self, file: str) -> list[Job]:
        left_out = tuple(
            f"{reason}: {_line_ranges(tuple(lines))}"
            for reason, lines in self.left_out.items()
        )
        found = []
        for (gpus, hours), rows in sorted(self.groups.items()):
            names = sorted({name for _, _, name, _ in rows if name})
            title = names[0] if len(names) == 1 else ""
            title = title or ", ".join(names)[:60]
            ids = ", ".join(job for _, job, _, _ in rows[:6]) + (
                f" and {len(rows) - 6} more" if len(rows) > 6 else ""
            )
            found.append(
                Job(
                    gpus=gpus,
                    hours=hours,
                    count=len(rows),
                    title=title,
                    source=Source(
                        file=file,
                        lines=tuple(line for line, _, _, _ in rows),
                        formula=(
                            f"{len(rows)} job(s) ({ids}) with gres/gpu = {gpus} and "
                            f"Elapsed ≈ {hours} h (to 0.01 h)"
                        ),
                        excerpt=tuple(text for _, _, _, text in rows[:EXCERPT_LINES]),
                        left_out=left_out,
                    ),
                )
            )
        return found
