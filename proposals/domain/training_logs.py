"""Read training logs and Slurm accounting into scaling measurements and job-plan rows.

One reader for the formats applicants already have, each taken from the projects'
own sources:

- **Megatron-LM** (``megatron/training/training.py``): the arguments block
  (``world_size``, ``seq_length``, ``global_batch_size``, the parallel sizes) and the
  iteration lines (``elapsed time per iteration (ms)``, ``global batch size``, since
  2024 ``throughput per GPU (TFLOP/s/GPU)``);
- **Hugging Face Trainer** (``transformers/trainer.py``): the "Running training"
  block and the metrics dictionary or table (``train_samples_per_second``);
- **DeepSpeed** (``deepspeed/utils/timer.py``, ``ThroughputTimer``): the
  configuration printout (``world_size``, ``train_batch_size``) and the timer lines
  (``CurrSamplesPerSec``; before 0.6 ``SamplesPerSec``), which count the global batch;
- **torchtitan** (``torchtitan/train.py``): the device mesh line and the step lines
  (``tps``, before late 2024 ``wps``: tokens per second *per GPU*; ``tflops``, ``mfu``);
- **a plain training loop** (llm.c and the many loops printing like it): step lines
  with ``tok/s``, ``tokens/s`` or ``samples/s`` and a stated ``num_processes`` or
  ``world_size``;
- **Slurm accounting** (``sacct -P``, with a header naming ``Elapsed`` and
  ``AllocTRES``, or ``AllocGRES`` before Slurm 17.11).

The rules: the steady state is the median of the logged intervals after the first
(the warm-up); each measurement says which lines and values it took and by which
formula, and what it left out; a GPU count the log does not state is asked for
(``gpus`` is None and ``needs_gpus`` true), never guessed; a file nothing recognises
is refused with a message naming what was looked for; lines that look like a
format's lines but cannot be read are listed. Lines are read one at a time: memory
grows with the number of interval lines (8 bytes per value and per line number),
never with the file's size.
"""

from __future__ import annotations

import ast
import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .bounds import BOUNDS

#: Units as the logs count them.
TOKENS = "tokens/s"
SAMPLES = "samples/s"

#: The largest file read (the wizard refuses larger uploads before reading them).
MAX_FILE_BYTES = 50 * 2**20
#: A line longer than this is cut (the rest is never held in memory).
MAX_LINE_CHARS = 16_384
#: How many unreadable lines are listed by number (the rest are counted).
MAX_LISTED = 20
#: The excerpt kept with a row: this many lines, each cut to EXCERPT_CHARS.
EXCERPT_LINES = 3
EXCERPT_CHARS = 240
#: The provenance kept with a stored row is cut to this length.
SOURCE_CHARS = 2000

LOOKED_FOR = (
    "Megatron-LM iteration lines (“elapsed time per iteration (ms)”), "
    "a Hugging Face Trainer run (“***** Running training *****” and "
    "“train_samples_per_second”), DeepSpeed throughput-timer lines "
    "(“CurrSamplesPerSec”), torchtitan step lines (“tps:”), a training loop's "
    "step lines with tok/s, tokens/s or samples/s, or sacct -P output (a header "
    "line with JobID, Elapsed and AllocTRES)"
)

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Unambiguous (a decimal part needs its point) and starting only where a number
# starts, so that a search over a long run of digits stays linear.
_NUMBER = r"(?<![\d.,])[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_PLAIN_UNITS = (
    "tok/s",
    "tokens/s",
    "tokens per second",
    "tokens_per_sec",
    "samples/s",
    "samples per second",
    "samples_per_sec",
)


def _float(text: str) -> float | None:
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value


def _positive_int(text: str) -> int | None:
    value = _float(text)
    if value is None or value < 1 or value != int(value) or value > 10**7:
        return None
    return int(value)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Source:
    """Where a figure came from: the file, the lines, the values and the formula."""

    file: str
    lines: tuple[int, ...]
    formula: str
    excerpt: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    #: How many lines were cited when ``lines`` holds only those a summary shows.
    lines_total: int = 0

    def summary(self) -> str:
        """A short provenance text to keep with a stored row."""
        lines = _line_ranges(self.lines, total=self.lines_total)
        parts = [f"{self.file}, {lines}: {self.formula}"]
        parts += [f"Left out: {item}" for item in self.left_out]
        parts += [f"  {line}" for line in self.excerpt]
        text = "\n".join(parts)
        return text if len(text) <= SOURCE_CHARS else text[: SOURCE_CHARS - 1] + "…"


@dataclass(frozen=True)
class Measurement:
    """Steady-state throughput of one run, for the whole job (all its GPUs)."""

    format: str
    gpus: int | None
    throughput: float | None
    unit: str
    source: Source
    gpus_from: str = ""
    per_gpu: float | None = None
    tflops_per_gpu: float | None = None
    mfu_pct: float | None = None

    @property
    def needs_gpus(self) -> bool:
        """The log states no GPU count: it must be given (``--gpus``)."""
        return self.gpus is None

    def with_gpus(self, gpus: int) -> Measurement:
        """This measurement with the GPU count the person gave for a log that states
        none (a per-GPU figure is multiplied by it); unchanged if the log states
        one."""
        if not self.needs_gpus or gpus < 1:
            return self
        throughput = self.throughput
        formula = self.source.formula
        if throughput is None and self.per_gpu is not None:
            throughput = self.per_gpu * gpus
            formula += f" × {gpus} GPUs ≈ {_fmt(throughput)} {self.unit}"
        gpus_from = f"{gpus}, as given (the log does not state it)"
        return replace(
            self,
            gpus=gpus,
            throughput=throughput,
            gpus_from=gpus_from,
            source=replace(self.source, formula=f"{formula}; GPUs: {gpus_from}"),
        )


@dataclass(frozen=True)
class Job:
    """One job-plan row from accounting: ``count`` jobs of ``gpus`` for ``hours``."""

    gpus: int
    hours: Decimal
    count: int
    title: str
    source: Source


@dataclass(frozen=True)
class Reading:
    """What one file gave."""

    file: str
    format: str = ""
    measurements: tuple[Measurement, ...] = ()
    jobs: tuple[Job, ...] = ()
    unread: tuple[int, ...] = ()
    unread_count: int = 0
    notes: tuple[str, ...] = ()
    refused: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.measurements or self.jobs)

    @property
    def needs_gpus(self) -> bool:
        return any(m.needs_gpus for m in self.measurements)

    def unread_text(self) -> str:
        if not self.unread_count:
            return ""
        listed = ", ".join(str(n) for n in self.unread)
        more = self.unread_count - len(self.unread)
        return f"Could not read line{'s' if self.unread_count > 1 else ''} " + (
            listed + (f" and {more} more" if more else "")
        )


_SHOWN_LINES = 6


def _line_ranges(lines: tuple[int, ...], total: int = 0) -> str:
    total = max(total, len(lines))
    if not lines:
        return "no line"
    if total == 1:
        return f"line {lines[0]}"
    shown = ", ".join(str(n) for n in lines[:_SHOWN_LINES])
    if total > _SHOWN_LINES:
        shown += f", … {lines[-1]} ({total} lines)"
    return f"lines {shown}"


def pack(item: Measurement | Job) -> dict:
    """A measurement or job as JSON-safe data, its cited lines cut to those its
    summary shows (to keep a reading between two requests, not the file)."""
    source = item.source
    lines = source.lines
    if len(lines) > _SHOWN_LINES + 1:
        lines = lines[:_SHOWN_LINES] + lines[-1:]
    data = asdict(replace(item, source=replace(source, lines=lines)))
    data["source"]["lines_total"] = max(source.lines_total, len(source.lines))
    if isinstance(item, Job):
        data["hours"] = str(item.hours)
    return data


def unpack(data: dict) -> Measurement | Job:
    """The inverse of :func:`pack`."""
    raw = dict(data["source"])
    for key in ("lines", "excerpt", "left_out"):
        raw[key] = tuple(raw[key])
    values = {**data, "source": Source(**raw)}
    if "hours" in values:
        return Job(**{**values, "hours": Decimal(values["hours"])})
    return Measurement(**values)


def _fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}" if value < 1 else f"{value:,.2f}"


# --------------------------------------------------------------------------- lines


def iter_lines(stream, *, encoding: str = "utf-8") -> Iterator[str]:
    """The lines of a binary ``stream``, decoded (bad bytes replaced), without their
    line ends, a line longer than :data:`MAX_LINE_CHARS` cut there: memory stays
    bounded whatever the file holds (a file without a newline included)."""
    pending = b""
    cut = False
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        pending += chunk
        while True:
            end = pending.find(b"\n")
            if end < 0:
                break
            line, pending = pending[:end], pending[end + 1 :]
            if not cut:
                yield _decode(line, encoding)
            cut = False
        if len(pending) > MAX_LINE_CHARS * 4:
            if not cut:
                yield _decode(pending[: MAX_LINE_CHARS * 4], encoding)
            pending, cut = b"", True
    if pending and not cut:
        yield _decode(pending, encoding)


def _decode(raw: bytes, encoding: str) -> str:
    return raw.decode(encoding, errors="replace").rstrip("\r")[:MAX_LINE_CHARS]


# --------------------------------------------------------------------------- series


def _median(values: array) -> float:
    """The median, without a list of float objects (numpy reads the array's
    buffer)."""
    return float(np.median(np.frombuffer(values, dtype=np.float64)))


def _cited(context: tuple[int, ...], lines: tuple[int, ...]) -> tuple[int, ...]:
    """Context lines (GPU count, sequence length) and the interval lines, in order,
    without building a set of the (possibly many) interval lines."""
    context = tuple(sorted(set(context) - {lines[0]} if lines else set(context)))
    if not lines or not context or context[-1] < lines[0]:
        return context + tuple(lines)
    return tuple(sorted(set(context) | set(lines)))


class _Series:
    """Interval values and their line numbers, in compact arrays."""

    def __init__(self):
        self.values = array("d")
        self.lines = array("l")
        self.extra: dict[str, array] = {}
        self.excerpt: list[str] = []

    def add(self, value: float, line: int, text: str, **extra: float | None):
        self.values.append(value)
        self.lines.append(line)
        for key, item in extra.items():
            if item is not None:
                self.extra.setdefault(key, array("d")).append(item)
        if len(self.excerpt) < EXCERPT_LINES - 1:
            self.excerpt.append(text.strip()[:EXCERPT_CHARS])
        self._last = text.strip()[:EXCERPT_CHARS]

    def __len__(self):
        return len(self.values)

    def steady(self) -> tuple[float, tuple[int, ...], str]:
        """The median of the intervals after the first, its lines, and what was
        left out."""
        if len(self.values) == 1:
            return (
                self.values[0],
                (self.lines[0],),
                "only one interval was logged: it includes the warm-up",
            )
        taken = self.values[1:]
        return (
            _median(taken),
            tuple(self.lines[1:]),
            f"line {self.lines[0]}, the first interval (warm-up)",
        )

    def steady_extra(self, key: str) -> float | None:
        values = self.extra.get(key)
        if not values:
            return None
        return _median(values[1:] if len(values) > 1 else values)

    def excerpt_lines(self) -> tuple[str, ...]:
        lines = list(self.excerpt[1:] or self.excerpt)
        last = getattr(self, "_last", "")
        if last and last not in lines:
            lines.append(last)
        return tuple(lines[:EXCERPT_LINES])


class _Unread:
    def __init__(self):
        self.lines: list[int] = []
        self.count = 0

    def add(self, line: int):
        self.count += 1
        if len(self.lines) < MAX_LISTED:
            self.lines.append(line)


# --------------------------------------------------------------------------- readers


class _Reader:
    """One format: fed every line, it keeps what it needs."""

    name = ""

    def __init__(self, unread: _Unread):
        self.unread = unread
        self.seen = False

    def feed(self, number: int, line: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def measurements(self, file: str, gpus: int | None) -> list[Measurement]:
        raise NotImplementedError  # pragma: no cover

    def _gpus(
        self, stated: tuple[int, int, str] | None, given: int | None, notes: list
    ) -> tuple[int | None, str, tuple[int, ...]]:
        """The GPU count the log states; a given count that contradicts it is
        said, not used (one the log does not state: :meth:`Measurement.with_gpus`)."""
        if stated:
            value, line, what = stated
            if given and given != value:
                notes.append(
                    f"the GPU count given ({given}) differs from the log's "
                    f"{what} = {value} (line {line}); the log's is used"
                )
            return value, f"{what} = {value} (line {line})", (line,)
        return None, "", ()


_MEGATRON_ARG = re.compile(r"^\s*([a-z_0-9]+) \.{3,} (\S+)\s*$")
_MEGATRON_ITER = re.compile(r"\biteration\s+(\d+)\s*/\s*(?:\d+|infinity)\s*\|")
_MEGATRON_MS = re.compile(r"elapsed time per iteration \(ms\):\s*(" + _NUMBER + ")")
_MEGATRON_GBS = re.compile(r"global batch size:\s*(\d+)")
_MEGATRON_TFLOPS = re.compile(
    r"throughput per GPU \(TFLOP/s/GPU\):\s*(" + _NUMBER + ")"
)


class _Megatron(_Reader):
    name = "Megatron-LM"

    def __init__(self, unread):
        super().__init__(unread)
        self.args: dict[str, tuple[str, int]] = {}
        self.series = _Series()

    def feed(self, number, line):
        if "...." in line and ("_size" in line or "seq_length" in line):
            match = _MEGATRON_ARG.match(line.split("]")[-1] if "]" in line else line)
            if match and match.group(1) not in self.args:
                self.args[match.group(1)] = (match.group(2), number)
            return
        if "elapsed time per iteration" not in line:
            return
        self.seen = True
        ms = _MEGATRON_MS.search(line)
        gbs = _MEGATRON_GBS.search(line)
        if not (_MEGATRON_ITER.search(line) and ms):
            self.unread.add(number)
            return
        elapsed = _float(ms.group(1))
        batch = (
            _positive_int(gbs.group(1)) if gbs else self._arg_int("global_batch_size")
        )
        if not elapsed or elapsed <= 0 or not batch:
            self.unread.add(number)
            return
        tflops = _MEGATRON_TFLOPS.search(line)
        self.series.add(
            batch / (elapsed / 1000),
            number,
            line,
            ms=elapsed,
            batch=batch,
            tflops=_float(tflops.group(1)) if tflops else None,
        )

    def _arg_int(self, name: str) -> int | None:
        if name not in self.args:
            return None
        return _positive_int(self.args[name][0])

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        stated = None
        if self._arg_int("world_size"):
            stated = (
                self._arg_int("world_size"),
                self.args["world_size"][1],
                "world_size",
            )
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        samples, lines, warmup = self.series.steady()
        seq = self._arg_int("seq_length")
        ms = self.series.steady_extra("ms")
        batch = self.series.steady_extra("batch")
        if seq:
            throughput, unit = samples * seq, TOKENS
            formula = (
                f"median over {len(lines)} interval(s) of global batch size × "
                f"seq_length {seq} (line {self.args['seq_length'][1]}) / elapsed "
                f"time per iteration = {_fmt(batch or 0)} × {seq} / "
                f"{_fmt(ms or 0)} ms ≈ {_fmt(throughput)} tokens/s"
            )
            extra = (self.args["seq_length"][1],)
        else:
            throughput, unit = samples, SAMPLES
            formula = (
                f"median over {len(lines)} interval(s) of global batch size / "
                f"elapsed time per iteration ≈ {_fmt(throughput)} samples/s "
                "(no seq_length in the arguments, so samples, not tokens)"
            )
            extra = ()
        if count:
            formula += f"; GPUs: {gpus_from}"
        tflops = self.series.steady_extra("tflops")
        if tflops is not None:
            formula += f"; TFLOP/s per GPU (median) {_fmt(tflops)}"
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=throughput,
                unit=unit,
                gpus_from=gpus_from,
                tflops_per_gpu=tflops,
                source=Source(
                    file=file,
                    lines=_cited(gpu_lines + extra, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


_TITAN_STEP = re.compile(r"\bstep:\s*(\d+)\b.*?\b(tps|wps):\s*(" + _NUMBER + ")")
_TITAN_TFLOPS = re.compile(r"\btflops:\s*(" + _NUMBER + ")")
_TITAN_MFU = re.compile(r"\bmfu:\s*(" + _NUMBER + ")%")
_TITAN_MESH = re.compile(
    r"Building (\d)-D device mesh with (?:\[[^\]]*\]|\([^)]*\)), \[([\d, ]+)\]"
)


class _Torchtitan(_Reader):
    name = "torchtitan"

    def __init__(self, unread):
        super().__init__(unread)
        self.series = _Series()
        self.mesh: tuple[int, int, str] | None = None
        self.key = "tps"

    def feed(self, number, line):
        if "device mesh" in line:
            match = _TITAN_MESH.search(line)
            if match and self.mesh is None:
                sizes = [_positive_int(s) for s in match.group(2).split(",")]
                if sizes and all(sizes):
                    product = 1
                    for size in sizes:
                        product *= size
                    self.mesh = (product, number, "device mesh size")
            return
        if "step:" not in line or not ("tps:" in line or "wps:" in line):
            return
        self.seen = True
        match = _TITAN_STEP.search(line)
        value = _float(match.group(3)) if match else None
        if value is None or value <= 0:
            self.unread.add(number)
            return
        self.key = match.group(2)
        tflops = _TITAN_TFLOPS.search(line)
        mfu = _TITAN_MFU.search(line)
        self.series.add(
            value,
            number,
            line,
            tflops=_float(tflops.group(1)) if tflops else None,
            mfu=_float(mfu.group(1)) if mfu else None,
        )

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        count, gpus_from, gpu_lines = self._gpus(self.mesh, gpus, notes)
        per_gpu, lines, warmup = self.series.steady()
        formula = (
            f"median over {len(lines)} step line(s) of {self.key} "
            f"(tokens per second per GPU) = {_fmt(per_gpu)}"
        )
        if count:
            formula += (
                f" × {count} GPUs ({gpus_from}) ≈ {_fmt(per_gpu * count)} tokens/s"
            )
        tflops = self.series.steady_extra("tflops")
        mfu = self.series.steady_extra("mfu")
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=per_gpu * count if count else None,
                unit=TOKENS,
                per_gpu=per_gpu,
                gpus_from=gpus_from,
                tflops_per_gpu=tflops,
                mfu_pct=mfu,
                source=Source(
                    file=file,
                    lines=_cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


_DS_CONFIG = re.compile(r"\[config\.py:\d+:print\]\s+([a-z_0-9]+)\s*\.*\s+(\S+)\s*$")
_DS_CURR = re.compile(r"\bCurrSamplesPerSec=(" + _NUMBER + ")")
_DS_OLD = re.compile(
    r"\[timer\.py:\d+:stop\]\s+\d+/\d+, SamplesPerSec=(" + _NUMBER + ")"
)
_DS_LAUNCH = re.compile(r"\bdist_world_size=(\d+)")


class _DeepSpeed(_Reader):
    name = "DeepSpeed"

    def __init__(self, unread):
        super().__init__(unread)
        self.series = _Series()
        self.config: dict[str, tuple[str, int]] = {}
        self.world: tuple[int, int, str] | None = None
        self.old = False

    def feed(self, number, line):
        if "[config.py:" in line and ":print]" in line:
            match = _DS_CONFIG.search(line)
            if match and match.group(1) not in self.config:
                self.config[match.group(1)] = (match.group(2), number)
            return
        if "dist_world_size=" in line:
            match = _DS_LAUNCH.search(line)
            size = _positive_int(match.group(1)) if match else None
            if size and self.world is None:
                self.world = (size, number, "dist_world_size")
            return
        if "SamplesPerSec" not in line:
            return
        self.seen = True
        match = _DS_CURR.search(line)
        if match is None:
            match = _DS_OLD.search(line)
            self.old = self.old or match is not None
        value = _float(match.group(1)) if match else None
        if value is None or value <= 0:
            self.unread.add(number)
            return
        self.series.add(value, number, line)

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        stated = self.world
        world = self.config.get("world_size")
        if world and _positive_int(world[0]):
            stated = (_positive_int(world[0]), world[1], "world_size")
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        value, lines, warmup = self.series.steady()
        key = "SamplesPerSec (a running average)" if self.old else "CurrSamplesPerSec"
        formula = (
            f"median over {len(lines)} timer line(s) of {key} = "
            f"{_fmt(value)} samples/s of the global batch"
        )
        batch = self.config.get("train_batch_size")
        if batch:
            formula += f" (train_batch_size {batch[0]}, line {batch[1]})"
        if count:
            formula += f"; GPUs: {gpus_from}"
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=value,
                unit=SAMPLES,
                gpus_from=gpus_from,
                source=Source(
                    file=file,
                    lines=_cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


_HF_FIELD = re.compile(
    r"(Instantaneous batch size per device|Total train batch size \(w\. parallel, "
    r"distributed & accumulation\)|Gradient Accumulation steps|Training with "
    r"DataParallel so batch size has been adjusted to)\s*[=:]?\s*(" + _NUMBER + r")\s*$"
)
_HF_DICT = re.compile(r"\{[^{}]*'train_samples_per_second'[^{}]*\}")
_HF_TABLE = re.compile(
    r"(?:^|\s)(train_samples_per_second|train_runtime)\s*=\s*(\S+)\s*$"
)


class _HuggingFace(_Reader):
    name = "Hugging Face Trainer"

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
            match = _HF_FIELD.search(line)
            if match:
                self.current["fields"].setdefault(
                    match.group(1).split(" (")[0],
                    (_positive_int(match.group(2)), number),
                )
            return
        if "train_samples_per_second" not in line and "train_runtime" not in line:
            return
        self.seen = True
        run = self.current
        if run is None:
            run = self.current = {"start": None, "fields": {}}
            self.runs.append(run)
        match = _HF_DICT.search(line)
        if match:
            try:
                metrics = ast.literal_eval(match.group(0))
                value = _float(str(metrics["train_samples_per_second"]))
                runtime = metrics.get("train_runtime")
            except (
                ValueError,
                SyntaxError,
                KeyError,
                TypeError,
                MemoryError,
                RecursionError,
            ):
                value, runtime = None, None
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
            value = _float(match.group(2))
            if value is None or value <= 0:
                self.unread.add(number)
                return
            run.setdefault("value", (value, number, line.strip()[:EXCERPT_CHARS]))

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
            if derived and count == stated[0]:
                gpus_from = f"{count} = {derived} (lines {device[1]}–{total[1]})"
                gpu_lines = tuple(sorted({device[1], total[1], accumulation[1]}))
            runtime = run.get("runtime", "")
            formula = (
                f"train_samples_per_second = {_fmt(value)} samples/s, as the Trainer "
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
                    source=Source(
                        file=file,
                        lines=_cited(gpu_lines, (line,)),
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
    r"(" + _NUMBER + r")\s*(tok/s|tokens/s|tokens/sec|tokens per second|"
    r"samples/s|samples/sec|samples per second)"
    r"|\b(tokens_per_sec(?:ond)?|tokens/s|tok/s|samples_per_sec(?:ond)?|samples/s"
    r"|throughput)(?:\s*(?:per[ _-]?gpu|/gpu|per[ _-]?device))?\s*[=:]\s*("
    + _NUMBER
    + r")\s*(tok(?:ens)?/s|samples/s)?",
    re.IGNORECASE,
)
_PLAIN_STEP = re.compile(r"\b(step|iter|iteration|it)\s*[:=]?\s*\d+", re.IGNORECASE)
_PLAIN_WORLD = re.compile(
    r"\b(num_processes|world_size|WORLD_SIZE|world size|num_gpus|ngpus)"
    r"\s*(?:[=:|]|\s)\s*(\d+)\b"
)
_PLAIN_MFU = re.compile(r"(" + _NUMBER + r")\s*%\s*(?:bf16 |fp16 |fp8 )?MFU")
_PER_GPU = re.compile(r"per[ _-]?gpu|/gpu|per[ _-]?device", re.IGNORECASE)


class _PlainLoop(_Reader):
    name = "training loop"

    def __init__(self, unread):
        super().__init__(unread)
        self.series = _Series()
        self.world: tuple[int, int, str] | None = None
        self.unit = ""
        self.per_gpu = False
        self.mfu = _Series()

    def feed(self, number, line):
        lower = line.lower()
        if self.world is None and any(
            key in lower
            for key in (
                "num_processes",
                "world_size",
                "world size",
                "num_gpus",
                "ngpus",
            )
        ):
            match = _PLAIN_WORLD.search(line)
            size = _positive_int(match.group(2)) if match else None
            if size:
                self.world = (size, number, match.group(1))
        if not any(unit in lower for unit in _PLAIN_UNITS):
            return
        if not _PLAIN_STEP.search(line):
            return
        match = _PLAIN_VALUE.search(line)
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
        value = _float(number_text)
        if value is None or value <= 0:
            self.unread.add(number)
            return
        self.unit = unit
        # "tokens/s per GPU", "tok/s/gpu", "per_device_tokens_per_sec": per GPU.
        near = line[max(match.start() - 20, 0) : match.end() + 10]
        self.per_gpu = self.per_gpu or bool(_PER_GPU.search(near))
        mfu = _PLAIN_MFU.search(line)
        self.series.add(value, number, line, mfu=_float(mfu.group(1)) if mfu else None)

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        count, gpus_from, gpu_lines = self._gpus(self.world, gpus, notes)
        value, lines, warmup = self.series.steady()
        formula = (
            f"median over {len(lines)} step line(s) of {self.unit} = {_fmt(value)}"
        )
        throughput: float | None = value
        per_gpu = None
        if self.per_gpu:
            per_gpu = value
            formula += " per GPU"
            throughput = value * count if count else None
            if count:
                formula += f" × {count} GPUs ≈ {_fmt(value * count)} {self.unit}"
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
                source=Source(
                    file=file,
                    lines=_cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


# --------------------------------------------------------------------------- sacct


_ELAPSED = re.compile(
    r"^(?:(\d{1,5})-)?(?:(\d{1,3}):)?(\d{1,3}):(\d{1,3}(?:\.\d{1,6})?)$"
)
_TRES_GPU = re.compile(r"(?:^|,)gres/gpu(?::[^=,]+)?=(\d+)")
_GRES_GPU = re.compile(r"(?:^|,)gpu(?::[^:,()]+)?:(\d+)")
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
        untyped = re.search(r"(?:^|,)gres/gpu=(\d+)", tres)
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


# --------------------------------------------------------------------------- reading

#: Most specific first: a Megatron-DeepSpeed log holds DeepSpeed timer lines too,
#: and its iteration lines say more.
_READERS = (_Megatron, _Torchtitan, _DeepSpeed, _HuggingFace, _PlainLoop)


def read_log(lines: Iterable[str], *, file: str, gpus: int | None = None) -> Reading:
    """Read one file's ``lines`` (an iterable, consumed once). ``gpus`` is the GPU
    count to use where the log states none."""
    unread = _Unread()
    readers = [reader(unread) for reader in _READERS]
    sacct: _Sacct | None = None
    first = True
    for number, raw in enumerate(lines, start=1):
        line = _ANSI.sub("", raw) if "\x1b" in raw else raw
        if first and line.strip():
            first = False
            header = _Sacct.header(line)
            if header:
                sacct = _Sacct(header, number, unread)
                continue
        if sacct is not None:
            sacct.feed(number, line)
            continue
        for reader in readers:
            reader.feed(number, line)
    if sacct is not None:
        jobs = sacct.jobs(file)
        return _reading(file, "sacct", (), tuple(jobs), unread, ())
    for reader in readers:
        found = reader.measurements(file, gpus)
        if gpus:
            found = [measurement.with_gpus(gpus) for measurement in found]
        if found:
            others = [
                other.name
                for other in readers
                if other is not reader and other.seen and _has_data(other)
            ]
            notes = tuple(
                f"{name} lines in the file were left out: the {reader.name} lines "
                "say more"
                for name in others
            )
            return _reading(file, reader.name, tuple(found), (), unread, notes)
    seen = [reader.name for reader in readers if reader.seen]
    if seen:
        refused = (
            f"{file}: looks like a {seen[0]} log, but none of its lines could be "
            "read" + (f" ({_line_ranges(tuple(unread.lines))})" if unread.lines else "")
        )
    else:
        refused = f"{file}: not a log this reader knows. It looked for {LOOKED_FOR}."
    return Reading(
        file=file,
        refused=refused,
        unread=tuple(unread.lines),
        unread_count=unread.count,
    )


def measurement_row(measurement: Measurement) -> tuple[dict | None, str]:
    """The values of a scaling-table row (model field names), or ``None`` and why
    the measurement cannot be one (within the table's bounds, :mod:`.bounds`)."""
    if measurement.gpus is None or measurement.throughput is None:
        return None, "needs the GPU count: the log does not state it"
    gpus, problem = _bounded("measurements.gpus", measurement.gpus, "GPUs")
    throughput, why = _bounded(
        "measurements.throughput", measurement.throughput, "throughput"
    )
    if problem or why:
        return None, problem or why
    row = {
        "gpus": int(gpus),
        "throughput": throughput,
        "unit": measurement.unit,
        "source": measurement.source.summary(),
    }
    if measurement.mfu_pct is not None:
        mfu, why = _bounded("measurements.mfu_pct", measurement.mfu_pct, "MFU")
        if not why:
            row["mfu_pct"] = mfu
    return row, ""


def job_row(job: Job) -> tuple[dict | None, str]:
    """The values of a job-plan row, or ``None`` and why it cannot be one."""
    values = {}
    for name, value in (("gpus", job.gpus), ("hours", job.hours), ("count", job.count)):
        values[name], problem = _bounded(f"jobs.{name}", value, name)
        if problem:
            return None, problem
    return {
        "title": job.title,
        "gpus": int(values["gpus"]),
        "hours": values["hours"],
        "count": int(values["count"]),
        "source": job.source.summary(),
    }, ""


def _bounded(key: str, value, what: str) -> tuple[Decimal | None, str]:
    bound = BOUNDS[key]
    number = Decimal(str(value)).quantize(
        Decimal(1).scaleb(-bound.places), rounding=ROUND_HALF_UP
    )
    if number < bound.low:
        return None, f"{what} {number}: {bound.why_low}"
    if number > bound.high:
        return None, f"{what} {number}: {bound.why_high}"
    return number, ""


def _has_data(reader: _Reader) -> bool:
    series = getattr(reader, "series", None)
    if series is not None:
        return bool(series)
    return any("value" in run for run in getattr(reader, "runs", []))


def _reading(file, fmt, measurements, jobs, unread: _Unread, notes) -> Reading:
    refused = ""
    if not measurements and not jobs:
        refused = f"{file}: {fmt} output, but no job in it has GPUs and a final length"
    return Reading(
        file=file,
        format=fmt,
        measurements=measurements,
        jobs=jobs,
        unread=tuple(unread.lines),
        unread_count=unread.count,
        notes=notes,
        refused=refused,
    )


def read_text(
    text: str, *, file: str = "pasted text", gpus: int | None = None
) -> Reading:
    """Read pasted text (split into lines as :func:`iter_lines` would)."""
    return read_log(
        (line.rstrip("\r")[:MAX_LINE_CHARS] for line in text.split("\n")),
        file=file,
        gpus=gpus,
    )


def as_dict(reading: Reading) -> dict:
    """A reading as the ``read_log`` command's JSON shows it."""
    return {
        "measurements": [
            {
                "gpus": m.gpus,
                "throughput": None if m.throughput is None else round(m.throughput, 4),
                "unit": m.unit,
                "needs_gpus": m.needs_gpus,
                "per_gpu": None if m.per_gpu is None else round(m.per_gpu, 4),
                "tflops_per_gpu": m.tflops_per_gpu,
                "mfu_pct": m.mfu_pct,
                "format": m.format,
                "source": _source_dict(m.source),
            }
            for m in reading.measurements
        ],
        "jobs": [
            {
                "gpus": j.gpus,
                "hours": float(j.hours),
                "count": j.count,
                "title": j.title,
                "source": _source_dict(j.source),
            }
            for j in reading.jobs
        ],
    }


def _source_dict(source: Source) -> dict:
    return {
        "file": source.file,
        "lines": list(source.lines),
        "formula": source.formula,
        "left_out": list(source.left_out),
        "excerpt": list(source.excerpt),
    }


__all__ = [
    "EXCERPT_CHARS",
    "LOOKED_FOR",
    "MAX_FILE_BYTES",
    "SAMPLES",
    "SOURCE_CHARS",
    "TOKENS",
    "Job",
    "Measurement",
    "Reading",
    "Source",
    "as_dict",
    "elapsed_hours",
    "iter_lines",
    "job_row",
    "measurement_row",
    "pack",
    "unpack",
    "read_log",
    "read_text",
]
