"""What a reading gives: measurements, job-plan rows and their provenance;
the constants and number helpers the readers share."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from math import isfinite

from ..i18n import gettext, ngettext

#: Units as the logs count them.
TOKENS = "tokens/s"
SAMPLES = "samples/s"
#: Optimizer steps (or batches on each GPU) per second: a progress bar or a step
#: timing whose log states no batch size.
STEPS = "steps/s"

#: The largest file read (the wizard refuses larger uploads before reading them).
MAX_FILE_BYTES = 50 * 2**20
#: A line longer than this is cut (the rest is never held in memory).
MAX_LINE_CHARS = 16_384
#: The lines read of one file: a log longer than this (a 50 MB file of 25-byte
#: lines) is read up to here, and the reading says so.
MAX_LINES = 2_000_000
#: How many unreadable lines are listed by number (the rest are counted).
# The steady state is the median of the logged intervals after the first (the
# warm-up): a log needs at least this many intervals for a steady state that leaves
# the warm-up out (the scaling kit sizes its runs on it).
WARMUP_INTERVALS = 1
STEADY_MIN_INTERVALS = WARMUP_INTERVALS + 1
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
    "(“CurrSamplesPerSec”), torchtitan step lines (“tps:”), NeMo's "
    "“train_step_timing”, a PyTorch Lightning or Accelerate progress bar "
    "(“10/100 [00:05<00:45, 2.00it/s]”), Composer's “throughput/tokens_per_sec”, "
    "MaxText's “completed step:” lines, a training loop's step lines with "
    "tok/s, tokens/s or samples/s, or sacct -P output (a header line with JobID, "
    "Elapsed and AllocTRES)"
)

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Unambiguous (a decimal part needs its point), starting only where a number starts
# and never giving back a digit it took (possessive): a search over a long run of
# digits tries each start once and each start reads its run once.
NUMBER = r"(?<![\d.,])[-+]?(?:\d[\d,]*+(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?\d++)?+"


def whole_word(*words: str) -> str:
    """A pattern for any of ``words`` (pattern text, each starting with a plain
    letter) at the start of a word, written letter first: ``\\bstep`` as
    ``s(?<=\\bs)tep``. A search then skips in C to the next ``s`` instead of trying
    the boundary at every character: 8 times faster over a long line."""
    return "(?:" + "|".join(rf"{w[0]}(?<=\b{w[0]}){w[1:]}" for w in words) + ")"


PLAIN_UNITS = (
    "tok/s",
    "tokens/s",
    "tokens per second",
    "tokens_per_sec",
    "samples/s",
    "samples per second",
    "samples_per_sec",
)


def to_float(text: str) -> float | None:
    try:
        value = float(text.replace(",", "") if "," in text else text)
    except ValueError:
        return None
    return value if isfinite(value) else None


def positive_int(text: str) -> int | None:
    value = to_float(text)
    if value is None or value < 1 or value != int(value) or value > 10**7:
        return None
    return int(value)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Citation:
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
        lines = line_ranges(self.lines, total=self.lines_total)
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
    source: Citation
    gpus_from: str = ""
    per_gpu: float | None = None
    tflops_per_gpu: float | None = None
    mfu_pct: float | None = None
    #: What the log says of its devices (:mod:`.devices`): the first device
    #: name and ranks per node it states, each with its line.
    device: str = ""
    device_line: int = 0
    per_node: int = 0
    per_node_line: int = 0

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
            formula += f" × {gpus} GPUs ≈ {figure(throughput)} {self.unit}"
        gpus_from = f"{gpus}, as given (the log does not state it)"
        return replace(
            self,
            gpus=gpus,
            throughput=throughput,
            gpus_from=gpus_from,
            source=replace(self.source, formula=f"{formula}; GPUs: {gpus_from}"),
        )


@dataclass(frozen=True)
class AccountedJob:
    """One job-plan row from accounting: ``count`` jobs of ``gpus`` for ``hours``."""

    gpus: int
    hours: Decimal
    count: int
    title: str
    source: Citation
    #: As :class:`Measurement`'s: the GPU type and GPUs per node its AllocTRES states.
    device: str = ""
    device_line: int = 0
    per_node: int = 0
    per_node_line: int = 0


@dataclass(frozen=True)
class Reading:
    """What one file gave."""

    file: str
    format: str = ""
    measurements: tuple[Measurement, ...] = ()
    jobs: tuple[AccountedJob, ...] = ()
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
        if more:
            return gettext("Could not read lines {lines} and {more} more").format(
                lines=listed, more=more
            )
        return ngettext(
            "Could not read line {lines}",
            "Could not read lines {lines}",
            len(self.unread),
        ).format(lines=listed)


_SHOWN_LINES = 6


def line_ranges(lines: tuple[int, ...], total: int = 0) -> str:
    total = max(total, len(lines))
    if not lines:
        return "no line"
    if total == 1:
        return f"line {lines[0]}"
    shown = ", ".join(str(n) for n in lines[:_SHOWN_LINES])
    if total > _SHOWN_LINES:
        shown += f", … {lines[-1]} ({total} lines)"
    return f"lines {shown}"


def counted_in_gcds(
    item: Measurement | AccountedJob, gcds_per_gpu: int, system: str
) -> Measurement | AccountedJob:
    """``item`` whose GPU count the log gave in GCDs (Slurm's ``gres/gpu`` and one
    rank per GCD on a system whose GPUs have several dies), in physical GPUs; the
    formula says so. A count that is not a whole number of GPUs is kept, and said."""
    if gcds_per_gpu <= 1 or item.gpus is None:
        return item
    source = item.source
    if item.gpus % gcds_per_gpu:
        note = (
            f"{item.gpus} GCDs is not a whole number of {system} GPUs "
            f"({gcds_per_gpu} GCDs each): the count is kept as the log gives it"
        )
        return replace(item, source=replace(source, left_out=(*source.left_out, note)))
    gpus = item.gpus // gcds_per_gpu
    formula = (
        f"{source.formula}; {item.gpus} GCDs = {gpus} GPUs on {system} "
        f"({gcds_per_gpu} GCDs per GPU)"
    )
    return replace(item, gpus=gpus, source=replace(source, formula=formula))


def pack(item: Measurement | AccountedJob) -> dict:
    """A measurement or job as JSON-safe data, its cited lines cut to those its
    summary shows (to keep a reading between two requests, not the file)."""
    source = item.source
    lines = source.lines
    if len(lines) > _SHOWN_LINES + 1:
        lines = lines[:_SHOWN_LINES] + lines[-1:]
    data = asdict(replace(item, source=replace(source, lines=lines)))
    data["source"]["lines_total"] = max(source.lines_total, len(source.lines))
    if isinstance(item, AccountedJob):
        data["hours"] = str(item.hours)
    return data


def unpack(data: dict) -> Measurement | AccountedJob:
    """The inverse of :func:`pack`."""
    raw = dict(data["source"])
    for key in ("lines", "excerpt", "left_out"):
        raw[key] = tuple(raw[key])
    values = {**data, "source": Citation(**raw)}
    if "hours" in values:
        return AccountedJob(**{**values, "hours": Decimal(values["hours"])})
    return Measurement(**values)


def figure(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}" if value < 1 else f"{value:,.2f}"
