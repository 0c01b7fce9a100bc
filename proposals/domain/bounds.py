"""The range of every number of the proposal, with the reason for each end: the one
place for these bounds. The models' validators and database check constraints, the
wizard's number fields and their messages all read them from here."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

MAX_GPU_HOURS = Decimal("100000000")  # far above any call; catches typos of 1000x
MAX_GPUS = 100_000
MAX_HOURS_PER_JOB = Decimal("10000")
MAX_JOBS = 10_000_000
MAX_TB = Decimal("1000000")
MAX_MONTHS = 60
MAX_THROUGHPUT = Decimal("1e11")

_TYPO = "far above any call; check for extra digits"


@dataclass(frozen=True)
class Bound:
    """``low <= value <= high`` with at most ``places`` decimals (0: whole numbers);
    ``why_low`` and ``why_high`` say why, in words an applicant understands."""

    low: Decimal | int
    high: Decimal | int
    places: int
    why_low: str
    why_high: str = _TYPO


def _hours(what: str) -> Bound:
    return Bound(0, MAX_GPU_HOURS, 2, f"{what} cannot be negative")


def _tb(what: str) -> Bound:
    return Bound(0, MAX_TB, 2, f"{what} cannot be negative")


def _pct(what: str) -> Bound:
    return Bound(0, 100, 2, f"{what} is a percentage", "a percentage is at most 100")


_GPUS = Bound(1, MAX_GPUS, 0, "a job or test uses at least one GPU")
_MONTH = Bound(
    1, MAX_MONTHS, 0, "months are counted from 1", "allocations last at most 5 years"
)

# By field key (``total_gpu_hours``, ``jobs.gpus``), as in :mod:`.fields`.
BOUNDS: dict[str, Bound] = {
    "total_gpu_hours": _hours("GPU-hours"),
    "max_gpus_per_job": _GPUS,
    "storage_tb": _tb("Storage"),
    "transfer_in_tb": _tb("A data transfer"),
    "transfer_out_tb": _tb("A data transfer"),
    "extra_cpu_hours": _hours("CPU-hours"),
    "duration_months": Bound(
        1, MAX_MONTHS, 0, "an allocation lasts at least a month", _MONTH.why_high
    ),
    "runtime_stability_pct": _pct("Runtime stability"),
    "codes.model_parameters": Bound(
        1, Decimal("1e14"), 0, "a model has at least one parameter"
    ),
    "codes.training_tokens": Bound(1, Decimal("1e17"), 0, "enter at least one token"),
    "codes.dataset_samples": Bound(1, Decimal("1e15"), 0, "enter at least one sample"),
    "codes.epochs": Bound(
        Decimal("0.01"), 100_000, 2, "epochs are above zero", "far above any training"
    ),
    "codes.tokens_per_sample": Bound(1, 100_000_000, 0, "a sample has a token"),
    "codes.assumed_mfu_pct": Bound(
        Decimal("0.01"), 100, 2, "MFU is above zero", "a percentage is at most 100"
    ),
    "measurements.gpus": _GPUS,
    "measurements.throughput": Bound(
        0, MAX_THROUGHPUT, 4, "throughput cannot be negative"
    ),
    "measurements.mfu_pct": _pct("MFU"),
    "measurements.comm_overhead_pct": _pct("Communication overhead"),
    "jobs.gpus": _GPUS,
    "jobs.hours": Bound(
        Decimal("0.01"),
        MAX_HOURS_PER_JOB,
        2,
        "a job runs for some time",
        "no single job runs that long",
    ),
    "jobs.count": Bound(1, MAX_JOBS, 0, "a job type runs at least once"),
    "schedule.from_month": _MONTH,
    "schedule.to_month": _MONTH,
    "schedule.gpu_hours": _hours("GPU-hours"),
}
