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
- **NVIDIA NeMo** (``train_step_timing`` in the 1.x bar, 2.0's ProgressPrinter),
  **PyTorch Lightning**'s tqdm bar and **Hugging Face Accelerate**'s scripts'
  bar with gradient accumulation (:mod:`.progress`; a bar's carriage-return
  updates are fed one at a time);
- **MosaicML Composer** / llm-foundry's console logging and **MaxText**'s step
  lines (:mod:`.consoles`);
- **Slurm accounting** (``sacct -P`` or ``-p``, columns in any order, with a header
  naming the job id, ``Elapsed`` and ``AllocTRES``, or ``AllocGRES`` before Slurm
  17.11; an array's tasks are one row).

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

import io
from collections.abc import Callable, Iterable
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal

from ..bounds import BOUNDS
from ..i18n import gettext
from ..numbers import grouped
from .consoles import Composer, MaxText
from .devices import Devices, gpu_unit
from .filekind import HEAD_BYTES, Rewound, not_a_log
from .frameworks import DeepSpeed, Megatron, Torchtitan
from .lines import Reader, Unread, iter_lines
from .loops import HuggingFace, PlainLoop
from .nemo import NeMo
from .peaks import Peak, above_peak, peak_of
from .progress import ProgressBar
from .results import (
    EXCERPT_CHARS,
    LOOKED_FOR,
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    MAX_LINES,
    SAMPLES,
    SOURCE_CHARS,
    STEPS,
    TOKENS,
    AccountedJob,
    Citation,
    Measurement,
    Reading,
    counted_in_gcds,
    line_ranges,
    pack,
    unpack,
)
from .sacct import elapsed_hours
from .scan import Feed, feed_blocks

# --------------------------------------------------------------------------- reading

#: Most specific first: a Megatron-DeepSpeed log holds DeepSpeed timer lines too,
#: and its iteration lines say more; a progress bar comes with many formats' logs
#: (the Trainer's, NeMo's) and says least.
READERS = (
    Megatron,
    Torchtitan,
    MaxText,
    DeepSpeed,
    HuggingFace,
    NeMo,
    Composer,
    PlainLoop,
    ProgressBar,
    Devices,
)


def read_log(lines: Iterable[str], *, file: str, gpus: int | None = None) -> Reading:
    """Read one file's ``lines`` (an iterable, consumed once). ``gpus`` is the GPU
    count to use where the log states none."""
    feed = Feed(READERS)
    feed.lines_of(lines)
    return _result(feed, file, gpus)


def read_file(
    stream,
    *,
    file: str,
    gpus: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Reading:
    """Read a binary ``stream`` (an upload, a file) a block at a time, as
    :func:`read_log` reads its lines (:mod:`.scan`); ``progress`` is called with
    the bytes read so far. An empty file, an image, a PDF or an archive is refused
    in one line saying what it is (:mod:`.filekind`)."""
    head = stream.read(HEAD_BYTES)
    refused = not_a_log(file, head)
    if refused:
        return Reading(file=file, refused=refused)
    feed = Feed(READERS)
    feed_blocks(Rewound(head, stream), feed, progress)
    return _result(feed, file, gpus)


def _result(feed: Feed, file: str, gpus: int | None) -> Reading:
    reading = _readers_result(feed, file, gpus)
    if feed.stopped:
        stopped = gettext(
            "only the first {lines} lines were read: the file has more"
        ).format(lines=grouped(feed.limit))
        reading = replace(reading, notes=(*reading.notes, stopped))
    return reading


def _readers_result(feed: Feed, file: str, gpus: int | None) -> Reading:
    unread, readers = feed.unread, feed.readers
    if feed.sacct is not None:
        jobs = feed.sacct.jobs(file)
        return _reading(file, "sacct", (), tuple(jobs), unread, ())
    for reader in readers:
        found = reader.measurements(file, gpus)
        if gpus:
            found = [measurement.with_gpus(gpus) for measurement in found]
        evidence = next(r for r in readers if isinstance(r, Devices)).evidence()
        found = [replace(measurement, **evidence) for measurement in found]
        if found:
            others = [
                other.name
                for other in readers
                if other is not reader
                and other.seen
                and not getattr(other, "accompanies", False)
                and _has_data(other)
            ]
            notes = tuple(
                gettext(
                    "{other} lines in the file were left out: the {used} lines say more"
                ).format(other=name, used=reader.name)
                for name in others
            ) + tuple(flag for m in found if (flag := above_peak(m.tflops_per_gpu)))
            return _reading(file, reader.name, tuple(found), (), unread, notes)
    seen = [reader.name for reader in readers if reader.seen]
    if seen:
        refused = (
            gettext(
                "{file}: looks like a {kind} log, but none of its lines could be read "
                "({lines})"
            ).format(file=file, kind=seen[0], lines=line_ranges(tuple(unread.lines)))
            if unread.lines
            else gettext(
                "{file}: looks like a {kind} log, but none of its lines could be read"
            ).format(file=file, kind=seen[0])
        )
    else:
        refused = gettext(
            "{file}: not a log this reader knows. It looked for {looked_for}."
        ).format(file=file, looked_for=LOOKED_FOR)
    return Reading(
        file=file,
        refused=refused,
        unread=tuple(unread.lines),
        unread_count=unread.count,
    )


def measurement_row(
    measurement: Measurement, peak: Peak | None = None
) -> tuple[dict | None, str]:
    """The values of a scaling-table row (model field names), or ``None`` and why
    the measurement cannot be one (within the table's bounds, :mod:`.bounds`, and
    its TFLOP/s per GPU within ``peak``, :mod:`.peaks`)."""
    impossible = above_peak(measurement.tflops_per_gpu, peak)
    if impossible:
        return None, impossible
    if measurement.gpus is None or measurement.throughput is None:
        return None, gettext("needs the GPU count: the log does not state it")
    gpus, problem = _bounded("measurements.gpus", measurement.gpus, gettext("GPUs"))
    throughput, why = _bounded(
        "measurements.throughput", measurement.throughput, gettext("throughput")
    )
    if problem or why:
        return None, problem or why
    assert gpus is not None  # _bounded gives a number or a problem
    row = {
        "gpus": int(gpus),
        "throughput": throughput,
        "unit": measurement.unit,
        "source": measurement.source.summary(),
    }
    if measurement.mfu_pct is not None:
        mfu, why = _bounded("measurements.mfu_pct", measurement.mfu_pct, gettext("MFU"))
        if not why:
            row["mfu_pct"] = mfu
    return row, ""


def job_row(job: AccountedJob) -> tuple[dict | None, str]:
    """The values of a job-plan row, or ``None`` and why it cannot be one."""
    values: dict[str, Decimal] = {}
    for name, value, what in (
        ("gpus", job.gpus, gettext("GPUs")),
        ("hours", job.hours, gettext("hours")),
        ("count", job.count, gettext("count")),
    ):
        number, problem = _bounded(f"jobs.{name}", value, what)
        if problem:
            return None, problem
        assert number is not None  # _bounded gives a number or a problem
        values[name] = number
    return {
        "title": job.title,
        "gpus": int(values["gpus"]),
        "hours": values["hours"],
        "count": int(values["count"]),
        "source": job.source.summary(),
    }, ""


def _bounded(key: str, value, what: str) -> tuple[Decimal | None, str]:
    bound = BOUNDS[key]
    number = Decimal(str(value))
    if number.is_nan():
        return None, gettext("{what}: not a number").format(what=what)
    # Far past a bound, refused before it is rounded: rounding a number of more
    # digits than the context holds (or infinity) is itself an error. Within one
    # unit of a bound it is rounded first, then compared, as always.
    if number > bound.high + 1 or number < bound.low - 1:
        why = bound.why_high if number > bound.high else bound.why_low
        return None, gettext("{what} {number}: {why}").format(
            what=what, number=number, why=why
        )
    number = number.quantize(Decimal(1).scaleb(-bound.places), rounding=ROUND_HALF_UP)
    if number < bound.low:
        return None, gettext("{what} {number}: {why}").format(
            what=what, number=number, why=bound.why_low
        )
    if number > bound.high:
        return None, gettext("{what} {number}: {why}").format(
            what=what, number=number, why=bound.why_high
        )
    return number, ""


def _has_data(reader: Reader) -> bool:
    if hasattr(reader, "has_data"):
        return reader.has_data()
    series = getattr(reader, "series", None)
    if series is not None:
        return bool(series)
    return any("value" in run for run in getattr(reader, "runs", []))


def _reading(file, fmt, measurements, jobs, unread: Unread, notes) -> Reading:
    refused = ""
    if not measurements and not jobs:
        refused = gettext(
            "{file}: {kind} output, but no job in it has GPUs and a final length"
        ).format(file=file, kind=fmt)
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
    return read_file(
        io.BytesIO(text.encode("utf-8", errors="replace")), file=file, gpus=gpus
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


def _source_dict(source: Citation) -> dict:
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
    "MAX_LINE_CHARS",
    "MAX_LINES",
    "READERS",
    "SAMPLES",
    "SOURCE_CHARS",
    "STEPS",
    "TOKENS",
    "AccountedJob",
    "Measurement",
    "Peak",
    "Reading",
    "Citation",
    "above_peak",
    "as_dict",
    "counted_in_gcds",
    "elapsed_hours",
    "gpu_unit",
    "iter_lines",
    "job_row",
    "measurement_row",
    "pack",
    "peak_of",
    "unpack",
    "read_file",
    "read_log",
    "read_text",
]
