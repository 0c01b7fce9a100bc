"""The range of every number of the proposal, with the reason for each end: the one
place for these bounds. The models' validators and database check constraints, the
wizard's number fields and their messages all read them from here."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .i18n import Translated, gettext_noop

MAX_GPU_HOURS = Decimal("100000000")  # far above any call; catches typos of 1000x
MAX_GPUS = 100_000
MAX_HOURS_PER_JOB = Decimal("10000")
MAX_JOBS = 10_000_000
MAX_TB = Decimal("1000000")
MAX_MONTHS = 60
MAX_THROUGHPUT = Decimal("1e11")

_TYPO = gettext_noop("far above any call; check for extra digits")


@dataclass(frozen=True)
class Bound:
    """``low <= value <= high`` with at most ``places`` decimals (0: whole numbers);
    ``why_low`` and ``why_high`` say why, in words an applicant understands (read
    in the active language)."""

    low: Decimal | int
    high: Decimal | int
    places: int
    why_low: str = Translated()
    why_high: str = Translated(_TYPO)


def _hours(why_low: str) -> Bound:
    return Bound(0, MAX_GPU_HOURS, 2, why_low)


def _tb(why_low: str) -> Bound:
    return Bound(0, MAX_TB, 2, why_low)


_PERCENT_HIGH = gettext_noop("a percentage is at most 100")


def _pct(why_low: str) -> Bound:
    return Bound(0, 100, 2, why_low, _PERCENT_HIGH)


_GPUS = Bound(1, MAX_GPUS, 0, gettext_noop("a job or test uses at least one GPU"))
_MONTHS_HIGH = gettext_noop("allocations last at most 5 years")
_MONTH = Bound(
    1, MAX_MONTHS, 0, gettext_noop("months are counted from 1"), _MONTHS_HIGH
)
_GPU_HOURS = gettext_noop("GPU-hours cannot be negative")
_TRANSFER = gettext_noop("A data transfer cannot be negative")

# By field key (``total_gpu_hours``, ``jobs.gpus``), as in :mod:`.fields`.
BOUNDS: dict[str, Bound] = {
    "total_gpu_hours": _hours(_GPU_HOURS),
    "max_gpus_per_job": _GPUS,
    "storage_tb": _tb(gettext_noop("Storage cannot be negative")),
    "transfer_in_tb": _tb(_TRANSFER),
    "transfer_out_tb": _tb(_TRANSFER),
    "extra_cpu_hours": _hours(gettext_noop("CPU-hours cannot be negative")),
    "duration_months": Bound(
        1,
        MAX_MONTHS,
        0,
        gettext_noop("an allocation lasts at least a month"),
        _MONTHS_HIGH,
    ),
    "runtime_stability_pct": _pct(gettext_noop("Runtime stability is a percentage")),
    "codes.model_parameters": Bound(
        1, Decimal("1e14"), 0, gettext_noop("a model has at least one parameter")
    ),
    "codes.training_tokens": Bound(
        1, Decimal("1e17"), 0, gettext_noop("enter at least one token")
    ),
    "codes.dataset_samples": Bound(
        1, Decimal("1e15"), 0, gettext_noop("enter at least one sample")
    ),
    "codes.epochs": Bound(
        Decimal("0.01"),
        100_000,
        2,
        gettext_noop("epochs are above zero"),
        gettext_noop("far above any training"),
    ),
    "codes.tokens_per_sample": Bound(
        1, 100_000_000, 0, gettext_noop("a sample has a token")
    ),
    "codes.assumed_mfu_pct": Bound(
        Decimal("0.01"), 100, 2, gettext_noop("MFU is above zero"), _PERCENT_HIGH
    ),
    "measurements.gpus": _GPUS,
    "measurements.throughput": Bound(
        0, MAX_THROUGHPUT, 4, gettext_noop("throughput cannot be negative")
    ),
    "measurements.mfu_pct": _pct(gettext_noop("MFU is a percentage")),
    "measurements.comm_overhead_pct": _pct(
        gettext_noop("Communication overhead is a percentage")
    ),
    "jobs.gpus": _GPUS,
    "jobs.hours": Bound(
        Decimal("0.01"),
        MAX_HOURS_PER_JOB,
        2,
        gettext_noop("a job runs for some time"),
        gettext_noop("no single job runs that long"),
    ),
    "jobs.count": Bound(1, MAX_JOBS, 0, gettext_noop("a job type runs at least once")),
    "schedule.from_month": _MONTH,
    "schedule.to_month": _MONTH,
    "schedule.gpu_hours": _hours(_GPU_HOURS),
}
