"""Hugging Face Trainer logs and plain training loops (llm.c and the like)."""

from __future__ import annotations

import ast
import re

from .lines import Reader, Series, cited
from .results import (
    EXCERPT_CHARS,
    NUMBER,
    PLAIN_UNITS,
    SAMPLES,
    TOKENS,
    Citation,
    Measurement,
    figure,
    positive_int,
    to_float,
    whole_word,
)

HF_FIELD = re.compile(
    r"(Instantaneous batch size per device|Total train batch size \(w\. parallel, "
    r"distributed & accumulation\)|Gradient Accumulation steps|Training with "
    r"DataParallel so batch size has been adjusted to)\s*+[=:]?\s*+("
    + NUMBER
    + r")\s*+$"
)
# A brace group without braces inside; the one naming the metric is taken (one
# pass over the line, however many groups or names it holds).
_HF_DICT = re.compile(r"\{[^{}]*+\}")
# One metric of a dictionary that is not a Python literal as a whole (a value printed
# as ``np.float64(2.61)`` or ``tensor(2.61)`` by a callback or a Trainer subclass).
_HF_METRIC = r"'{}':\s*+(?:[\w.]++\()?'?(" + NUMBER + ")"
_HF_TABLE = re.compile(
    r"(?:^|\s)(train_samples_per_second|train_runtime)\s*+=\s*+(\S++)\s*+$"
)


class HuggingFace(Reader):
    name = "Hugging Face Trainer"
    triggers = (
        "***** running training *****",
        "batch size",
        "accumulation steps",
        "train_samples_per_second",
        "train_runtime",
    )

    def __init__(self, unread):
        super().__init__(unread)
        self.runs: list[dict] = []
        self.current: dict | None = None

    def feed(self, number, line):
        if "***** Running training *****" in line:
            self.seen = True
            self.current = {"start": number, "fields": {}}
            self.runs.append(self.current)
            return
        if self.current is not None and any(
            key in line for key in ("batch size", "Accumulation steps")
        ):
            match = HF_FIELD.search(line)
            if match:
                self.current["fields"].setdefault(
                    match.group(1).split(" (")[0],
                    (positive_int(match.group(2)), number),
                )
            return
        if "train_samples_per_second" not in line and "train_runtime" not in line:
            return
        self.seen = True
        run = self.current
        if run is None:
            run = self.current = {"start": None, "fields": {}}
            self.runs.append(run)
        match = next(
            (
                group
                for group in _HF_DICT.finditer(line)
                if "'train_samples_per_second'" in group.group(0)
            ),
            None,
        )
        if match:
            try:
                metrics = ast.literal_eval(match.group(0))
                value = to_float(str(metrics["train_samples_per_second"]))
                runtime = metrics.get("train_runtime")
            except (
                ValueError,
                SyntaxError,
                KeyError,
                TypeError,
                MemoryError,
                RecursionError,
            ):
                value, runtime = self._metric(match.group(0))
            if value is None or value <= 0:
                self.unread.add(number)
                return
            run["value"] = (value, number, line.strip()[:EXCERPT_CHARS])
            run["runtime"] = str(runtime) if runtime is not None else ""
            return
        match = _HF_TABLE.search(line)
        if match:
            if match.group(1) == "train_runtime":
                run.setdefault("runtime", match.group(2))
                return
            value = to_float(match.group(2))
            if value is None or value <= 0:
                self.unread.add(number)
                return
            run.setdefault("value", (value, number, line.strip()[:EXCERPT_CHARS]))

    @staticmethod
    def _metric(text: str) -> tuple[float | None, str | None]:
        """``train_samples_per_second`` and ``train_runtime`` of a metrics
        dictionary that ``ast.literal_eval`` cannot read."""
        value = re.search(_HF_METRIC.format("train_samples_per_second"), text)
        runtime = re.search(_HF_METRIC.format("train_runtime"), text)
        return (
            to_float(value.group(1)) if value else None,
            runtime.group(1) if runtime else None,
        )

    def measurements(self, file, gpus):
        found = []
        for run in self.runs:
            if "value" not in run:
                continue
            value, line, text = run["value"]
            notes: list[str] = []
            fields = run["fields"]
            stated = None
            total = fields.get("Total train batch size")
            device = fields.get("Instantaneous batch size per device")
            accumulation = fields.get("Gradient Accumulation steps")
            adjusted = fields.get(
                "Training with DataParallel so batch size has been adjusted to"
            )
            derived = ""
            if adjusted:
                notes.append(
                    f"the GPU count: the run used DataParallel (line {adjusted[1]}), "
                    "whose GPUs the total batch size does not separate"
                )
            elif (
                total
                and device
                and accumulation
                and total[0]
                and device[0]
                and accumulation[0]
            ):
                processes, remainder = divmod(total[0], device[0] * accumulation[0])
                if processes and not remainder:
                    stated = (processes, total[1], "processes")
                    derived = (
                        f"total train batch size {total[0]} / (batch size per device "
                        f"{device[0]} × accumulation steps {accumulation[0]})"
                    )
            count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
            if derived and stated and count == stated[0]:
                gpus_from = f"{count} = {derived} (lines {device[1]}–{total[1]})"
                gpu_lines = tuple(sorted({device[1], total[1], accumulation[1]}))
            runtime = run.get("runtime", "")
            formula = (
                f"train_samples_per_second = {figure(value)} samples/s, as the Trainer "
                "computed it over the whole run"
                + (f" (train_runtime {runtime} s)" if runtime else "")
            )
            if count:
                formula += f"; GPUs: {gpus_from}"
            found.append(
                Measurement(
                    format=self.name,
                    gpus=count,
                    throughput=value,
                    unit=SAMPLES,
                    gpus_from=gpus_from,
                    source=Citation(
                        file=file,
                        lines=cited(gpu_lines, (line,)),
                        formula=formula,
                        excerpt=(text,),
                        left_out=(
                            "no intervals are logged, so the warm-up is included",
                            *notes,
                        ),
                    ),
                )
            )
        return found


_PLAIN_VALUE = re.compile(
    r"(" + NUMBER + r")\s*+(tok/s|tokens/s|tokens/sec|tokens per second|"
    r"samples/s|samples/sec|samples per second)"
    r"|\b(tokens_per_sec(?:ond)?|tokens/sec|tokens/s|tok/sec|tok/s"
    r"|samples_per_sec(?:ond)?|samples/sec|samples/s|throughput)"
    r"(?:\s*+(?:per[ _-]?gpu|/gpu|per[ _-]?device))?\s*+[=:]\s*+("
    + NUMBER
    + r")\s*+(tok(?:ens)?/s|samples/s)?",
    re.IGNORECASE,
)
# Searched in the lower-cased line.
_PLAIN_STEP = re.compile(
    whole_word("step", "iter", "iteration", "it") + r"\s*+[:=]?\s*+\d"
)
_PLAIN_WORLD = re.compile(
    "("
    + whole_word(
        "num_processes", "world_size", "WORLD_SIZE", "world size", "num_gpus", "ngpus"
    )
    + ")"
    r"(?:\s*+[=:|]\s*+|\s++)(\d++)\b"
)
# PyTorch Lightning: "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/8".
_LIGHTNING_WORLD = re.compile(whole_word("MEMBER:") + r"\s*+\d++/(\d++)")
_PLAIN_MFU = re.compile(r"(" + NUMBER + r")\s*+%\s*+(?:bf16 |fp16 |fp8 )?MFU")
#: How far from a unit (characters) its value is looked for.
_REACH = 96


def _mfu(line: str) -> re.Match | None:
    """The MFU a step line states ("42.1% MFU", "38 % bf16 MFU"), read before
    each "MFU" it holds."""
    at = line.find("MFU")
    while at >= 0:
        match = _PLAIN_MFU.search(line, max(at - 40, 0), at + 3)
        if match:
            return match
        at = line.find("MFU", at + 3)
    return None


_PER_GPU = re.compile(r"per[ _-]?gpu|/gpu|per[ _-]?device", re.IGNORECASE)


_WORLD_WORDS = ("num_processes", "world_size", "world size", "num_gpus", "ngpus")


def stated_world(number: int, line: str, lower: str) -> tuple[int, int, str] | None:
    """The world size a loop's line states (``world_size=8``, llm.c's
    ``num_processes``, Lightning's ``MEMBER: 1/8``), with its line."""
    if "member:" in lower:
        match = _LIGHTNING_WORLD.search(line)
        size = positive_int(match.group(1)) if match else None
        if size:
            return size, number, "Lightning's MEMBER count"
    if any(word in lower for word in _WORLD_WORDS):
        match = _PLAIN_WORLD.search(line)
        size = positive_int(match.group(2)) if match else None
        if size and match:
            return size, number, match.group(1)
    return None


class PlainLoop(Reader):
    name = "training loop"
    triggers = (*_WORLD_WORDS, "member:", *PLAIN_UNITS)

    def __init__(self, unread):
        super().__init__(unread)
        self.series = Series()
        self.world: tuple[int, int, str] | None = None
        self.unit = ""
        self.per_gpu = False
        self.mfu = Series()

    def feed(self, number, line):
        lower = line.lower()
        if self.world is None:
            self.world = stated_world(number, line, lower)
        units = [at for unit in PLAIN_UNITS if (at := lower.find(unit)) >= 0]
        if not units:
            return
        if not _PLAIN_STEP.search(lower):
            return
        # The value is read beside the first unit (a number before it, or a key
        # and its value around it), not searched for along the whole line.
        start = max(min(units) - _REACH, 0)
        window = line[start : min(units) + _REACH]
        match = _PLAIN_VALUE.search(window)
        if not match:
            return
        if match.group(1):
            number_text, unit_text = match.group(1), match.group(2)
        else:
            number_text = match.group(4)
            unit_text = match.group(5) or match.group(3)
            if match.group(3).lower() == "throughput" and not match.group(5):
                return
        unit = SAMPLES if "sample" in unit_text.lower() else TOKENS
        self.seen = True
        if self.unit and unit != self.unit:
            return
        value = to_float(number_text)
        if value is None or value <= 0:
            self.unread.add(number)
            return
        self.unit = unit
        # "tokens/s per GPU", "tok/s/gpu", "per_device_tokens_per_sec": per GPU.
        near = line[max(start + match.start() - 20, 0) : start + match.end() + 10]
        self.per_gpu = self.per_gpu or bool(_PER_GPU.search(near))
        mfu = _mfu(line)
        self.series.add(
            value, number, line, mfu=to_float(mfu.group(1)) if mfu else None
        )

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        count, gpus_from, gpu_lines = self._gpus(self.world, gpus, notes)
        value, lines, warmup = self.series.steady()
        formula = (
            f"median over {len(lines)} step line(s) of {self.unit} = {figure(value)}"
        )
        throughput: float | None = value
        per_gpu = None
        if self.per_gpu:
            per_gpu = value
            formula += " per GPU"
            throughput = value * count if count else None
            if count:
                formula += f" × {count} GPUs ≈ {figure(value * count)} {self.unit}"
        if count:
            formula += f"; GPUs: {gpus_from}"
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=throughput,
                unit=self.unit,
                per_gpu=per_gpu,
                gpus_from=gpus_from,
                mfu_pct=self.series.steady_extra("mfu"),
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]
