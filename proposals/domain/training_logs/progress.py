"""Progress bars: PyTorch Lightning's tqdm bar and the tqdm bar of Hugging Face
Accelerate's training scripts (with gradient accumulation); NeMo's bar, whose
postfix holds its step timing, is read by :mod:`.nemo`.

A tqdm bar rewrites its line with carriage returns; the line splitters feed each
update on its own, with its line's number (:func:`.iter_lines`, :mod:`.scan`). An
update reads ``{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}{,
postfix}]`` (tqdm's ``r_bar``; without a total ``{desc}: {n}it [{elapsed}, {rate}
{, postfix}]``; NeMo's MegatronProgressBar leaves the rate out).
"""

from __future__ import annotations

import re

from .lines import Reader, cited
from .loops import HF_FIELD, stated_world
from .results import (
    EXCERPT_CHARS,
    NUMBER,
    SAMPLES,
    STEPS,
    Citation,
    Measurement,
    figure,
    positive_int,
    whole_word,
)

# ------------------------------------------------------------------ tqdm updates

# "[01:30<01:50, 5.00it/s, v_num=3, loss=2.31]": the elapsed time, then the rest up
# to the closing bracket (the rate and the postfix).
_BAR_TIME = re.compile(
    r"\[(\d{1,7}+(?::\d\d){1,2}+)(?:<(?:\d{1,7}+(?::\d\d){1,2}+|\?))?+"
    r"(?:,\s*+([^\]]*+))?+\]?"
)
# Read before the bracket only (a window of at most _COUNT_REACH characters):
# "450/1000 " or "1it ".
_BAR_COUNT = re.compile(r"(?<![\d./])(\d{1,12}+)(?:/(\d{1,12}+|\?))?(?:it)?\s*+$")
_COUNT_REACH = 40
# Bars that are not training: Lightning's "Validation DataLoader 0", "Sanity
# Checking", "Testing", "Predicting"; Accelerate scripts' "Evaluating".
_NOT_TRAINING = ("validat", "sanity", "test", "predict", "evaluat")


def _seconds(text: str) -> int:
    """tqdm's ``format_interval``: ``MM:SS`` or ``H:MM:SS``."""
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def _bar_update(line: str) -> tuple[str, int, int | None, int, str] | None:
    """A tqdm update's description, count, total, elapsed seconds and the text
    after the elapsed time (rate and postfix); None for another line."""
    for match in _BAR_TIME.finditer(line):
        start = match.start()
        count = _BAR_COUNT.search(line, max(start - _COUNT_REACH, 0), start)
        if not count:
            continue
        prefix = line[max(count.start() - 200, 0) : count.start()]
        bar = prefix.rfind("%|")
        if bar >= 0:
            prefix = prefix[:bar].rstrip(" 0123456789")
        desc = prefix.strip().rstrip(": ").strip()[-60:]
        total = count.group(2)
        return (
            desc,
            int(count.group(1)),
            int(total) if total and total != "?" else None,
            _seconds(match.group(1)),
            match.group(2) or "",
        )
    return None


# Lightning: "All distributed processes registered. Starting with 16 processes".
_LIGHTNING_PROCESSES = re.compile(
    whole_word("Starting with") + r"\s++(\d++)\s++processes"
)


def bar_world(number: int, line: str, lower: str) -> tuple[int, int, str] | None:
    if "starting with" in lower:
        match = _LIGHTNING_PROCESSES.search(line)
        size = positive_int(match.group(1)) if match else None
        if size:
            return size, number, "Lightning's count of processes"
    return stated_world(number, line, lower)


# ------------------------------------------------------- Lightning and Accelerate

# The tqdm rate as printed: "5.00it/s", "2.50s/it" (a Lightning bar pads them).
_BAR_RATE = re.compile(r"^\s*+(" + NUMBER + r")\s*+(it/s|s/it)\s*+$")
_OPTIMIZATION_STEPS = re.compile(
    whole_word("Total optimization steps") + r"\s*+=\s*+(\d++)"
)
_NUM_PROCESSES = re.compile(whole_word("Num processes:") + r"\s*+(\d++)\s*+$")


class ProgressBar(Reader):
    """A tqdm training bar: Lightning's (one bar per epoch, steps of one batch on
    each process), or an Accelerate script's (after a "Running training" block,
    one update per optimizer step)."""

    name = "PyTorch Lightning progress bar"
    #: Its lines come with other formats' (a Trainer's bar): it is not said to be
    #: left out when another format is used.
    accompanies = True
    triggers = (
        "%|",
        "it [",
        "member:",
        "starting with",
        "num processes:",
        "***** running training *****",
        "batch size",
        "accumulation steps",
        "optimization steps",
    )

    def __init__(self, unread):
        super().__init__(unread)
        self.world: tuple[int, int, str] | None = None
        self.processes: tuple[int, int] | None = None
        self.fields: dict[str, tuple[int | None, int]] = {}
        self.accelerate = False
        self.run: dict | None = None
        self.runs: list[dict] = []
        self.excerpt: list[str] = []

    def feed(self, number, line):
        lower = line.lower()
        if "***** Running training *****" in line:
            self.accelerate = True
            self.name = "Hugging Face Accelerate"
            return
        if (
            "batch size" in line
            or "Accumulation steps" in line
            or "optimization steps" in line
        ):
            match = HF_FIELD.search(line)
            if match:
                self.fields.setdefault(
                    match.group(1).split(" (")[0],
                    (positive_int(match.group(2)), number),
                )
            steps = _OPTIMIZATION_STEPS.search(line)
            if steps:
                self.fields.setdefault(
                    "Total optimization steps", (positive_int(steps.group(1)), number)
                )
            return
        if "num processes:" in lower:
            match = _NUM_PROCESSES.search(line)
            size = positive_int(match.group(1)) if match else None
            if size and self.processes is None:
                self.processes = (size, number)
            return
        if "%|" not in line and "it [" not in line:
            if self.world is None:
                self.world = bar_world(number, line, lower)
            return
        if "train_step_timing" in line:
            return  # NeMo's bar: its step timings say more
        update = _bar_update(line)
        if update is None:
            return
        desc, n, total, elapsed, _tail = update
        if any(word in desc.lower() for word in _NOT_TRAINING):
            return
        self.seen = True
        run = self.run
        if run is None or run["desc"] != desc or n < run["last"][0]:
            if len(self.runs) >= 10_000:
                return
            run = self.run = {
                "desc": desc,
                "total": total,
                "first": None,
                "last": (n, elapsed, number),
            }
            self.runs.append(run)
        if n >= 1 and run["first"] is None:
            run["first"] = (n, elapsed, number)
        if n > run["last"][0]:
            run["last"] = (n, elapsed, number)
            if len(self.excerpt) < 2:
                self.excerpt.append(line.strip()[:EXCERPT_CHARS])

    def _rates(self) -> list[tuple[float, dict]]:
        rates = []
        for run in self.runs:
            first, last = run["first"], run["last"]
            if first and last[0] > first[0] and last[1] > first[1]:
                rates.append(((last[0] - first[0]) / (last[1] - first[1]), run))
        return rates

    def has_data(self) -> bool:
        return bool(self._rates())

    def _stated_world(self, notes: list[str]):
        """The number of processes as stated (``Num processes``, else the world
        the log states), else as the Trainer's batch sizes imply; a batch-size
        world that differs from a stated one is noted."""
        stated = self.world
        if self.processes:
            stated = (self.processes[0], self.processes[1], "Num processes")
        fields = self.fields
        total = fields.get("Total train batch size")
        device = fields.get("Instantaneous batch size per device")
        accumulation = fields.get("Gradient Accumulation steps")
        derived = None
        if (
            total
            and device
            and accumulation
            and total[0]
            and device[0]
            and accumulation[0]
        ):
            processes, remainder = divmod(total[0], device[0] * accumulation[0])
            if processes and not remainder:
                derived = (
                    processes,
                    total[1],
                    f"total train batch size {total[0]} / (batch size per device "
                    f"{device[0]} × accumulation steps {accumulation[0]})",
                )
        if stated is None and derived:
            stated = derived
        elif stated and derived and derived[0] != stated[0]:
            notes.append(
                f"{derived[2]} = {derived[0]} (line {derived[1]}) differs from "
                f"{stated[2]} = {stated[0]}"
            )
        return stated

    def _per_update(self, run: dict, notes: list[str]) -> tuple[float, str]:
        """Samples per bar step and how that was read: the total train batch size,
        divided by the accumulation steps when the bar counts batches."""
        fields = self.fields
        total = fields.get("Total train batch size")
        accumulation = fields.get("Gradient Accumulation steps")
        optimization = fields.get("Total optimization steps")
        assert total and total[0], "called only for a log that states the batch size"
        per_update: float = total[0]
        said = f"total train batch size {total[0]} (line {total[1]})"
        bar_total = run["total"]
        if optimization and optimization[0] and bar_total:
            if (
                accumulation
                and accumulation[0]
                and accumulation[0] > 1
                and bar_total == optimization[0] * accumulation[0]
            ):
                per_update = total[0] / accumulation[0]
                said = (
                    f"the bar counts batches ({bar_total} = {optimization[0]} "
                    f"optimization steps × {accumulation[0]} accumulation steps): "
                    f"{total[0]} / {accumulation[0]} samples each"
                )
            elif bar_total == optimization[0]:
                said += (
                    f"; the bar counts optimization steps ({bar_total}, "
                    f"line {optimization[1]})"
                )
        else:
            notes.append(
                "the bar is taken to count optimization steps, as Accelerate's "
                "example scripts update it (once per accelerator.sync_gradients)"
            )
        return per_update, said

    def measurements(self, file, gpus):
        rates = self._rates()
        if not rates:
            return []
        notes: list[str] = []
        rates.sort(key=lambda item: item[0])
        rate, run = (
            rates[(len(rates) - 1) // 2]
            if len(rates) % 2
            else rates[len(rates) // 2 - 1]
        )
        (n1, t1, line1), (n2, t2, line2) = run["first"], run["last"]
        formula = (
            f"the bar went from step {n1} to {n2} in {_clock(t1)} → {_clock(t2)}: "
            f"{n2 - n1} / {t2 - t1} s = {figure(rate)} steps/s"
        )
        if len(rates) > 1:
            formula = (
                f"median over {len(rates)} bar runs (epochs); {run['desc']}: " + formula
            )
        left_out = [f"line {line1}, the bar's steps up to {n1} (warm-up)"]
        if t2 - t1 < 60:
            left_out.append(
                f"the bar shows whole seconds: over {t2 - t1} s the rate is known "
                f"to ±{figure(100 / (t2 - t1))} %"
            )
        lines = tuple(sorted({line1, line2}))
        stated = self._stated_world(notes)
        total = self.fields.get("Total train batch size")
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        throughput, unit = rate, STEPS
        if self.accelerate and total and total[0]:
            per_update, said = self._per_update(run, notes)
            throughput, unit = rate * per_update, SAMPLES
            formula += f" × {said} ≈ {figure(throughput)} samples/s"
            lines = tuple(sorted({*lines, total[1]}))
        else:
            notes.append(
                "samples/s: each step is one batch on each GPU, and the log states "
                "no batch size, so steps/s"
            )
        if count:
            formula += f"; GPUs: {gpus_from}"
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=throughput,
                unit=unit,
                gpus_from=gpus_from,
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=tuple(self.excerpt),
                    left_out=(*left_out, *notes),
                ),
            )
        ]


def _clock(seconds: int) -> str:
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return (
        f"{hours}:{minute:02d}:{second:02d}" if hours else f"{minute:02d}:{second:02d}"
    )
