"""The range of every number of the proposal, with the reason for each end: the one
place for these bounds. The models' validators and database check constraints, the
wizard's number fields and their messages, the JSON format (its loader and its
schema's ``minimum``/``maximum``), and so every import and ``manage.py assess``, and
the table of bounds in ``docs/proposal-format.md`` all read them from here.

The upper ends fit the largest published training runs with a wide margin (the
figures are the developers' own, as found on 2026-12-04):

- Llama 3.1 405B (Meta model card, 2024-07-23, and "The Llama 3 Herd of Models",
  2024-07): 405 B parameters, 15.6 T tokens, 3.8e25 FLOPs, 30.84 M H100 GPU-hours
  (39.3 M for the whole family).
- DeepSeek-V3 (technical report, arXiv 2412.19437, 2024-12-27): 671 B parameters
  (37 B active), 14.8 T tokens, 2.788 M H800 GPU-hours.
- Qwen3 (technical report, arXiv 2505.09388, 2025-05-14): 36 T tokens.
- Llama 4 Scout (Meta model card, 2025-04-05): ~40 T tokens; Llama 4 Behemoth
  (announced 2025-04-05, in training): ~2 T parameters.
- Kimi K2 (Moonshot AI model card, 2025-07-11): 1.04 T parameters, 15.5 T tokens.

So parameters go to 10^14 (50x the largest), tokens to 10^15 (25x), GPU-hours to
10^9: the 3.8e25 FLOPs of Llama 3.1 405B take ~85 M GPU-hours on an A100 (312 TFLOP/s
BF16, the slowest GPU of the catalogue) at 40 % MFU, ~100 M at the 34 % Meta's own
figures imply, so 10^9 leaves a factor 10 even there. FLOPs are never typed: the
assessment computes them (6·N·D), at most 6·10^29 from these bounds.

Every value within a bound, with at most ``places`` decimals, is exactly a binary
double (whole numbers up to 2^53, others with at most 15 significant digits), so the
JSON format reads it as a float and writes it back unchanged; ``exact_in_json``
checks it for every bound (``tests/domain/test_bounds.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .i18n import Translated, gettext_noop

MAX_GPU_HOURS = Decimal("1000000000")  # 10x the largest public run on an A100
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
    why_high: str = Translated(default=_TYPO)

    def admits(self, value) -> bool:
        """Whether ``value`` is within the bound (decimals are not checked here)."""
        return self.low <= value <= self.high

    @property
    def exact_in_json(self) -> bool:
        """Whether every value of the bound is exactly a binary double, so that
        reading a JSON number into a float and writing it back changes nothing:
        whole numbers up to 2^53, else at most 15 significant digits."""
        # As Decimal (exact for an int): abs() of "Decimal | int" types as object.
        largest = max(abs(Decimal(self.low)), abs(Decimal(self.high)))
        if self.places == 0:
            return largest <= 2**53
        return largest * 10**self.places <= 10**15


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
_LARGEST_RUN = gettext_noop("far above the largest published training run")
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
        1,
        Decimal("1e14"),
        0,
        gettext_noop("a model has at least one parameter"),
        _LARGEST_RUN,
    ),
    "codes.training_tokens": Bound(
        1, Decimal("1e15"), 0, gettext_noop("enter at least one token"), _LARGEST_RUN
    ),
    "codes.dataset_samples": Bound(
        1, Decimal("1e15"), 0, gettext_noop("enter at least one sample"), _LARGEST_RUN
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
    # Above zero: a 0 in a table cell of the JSON format stands for a blank cell,
    # so it must not be a value the wizard accepts (it would come back blank).
    "measurements.throughput": Bound(
        Decimal("0.0001"),
        MAX_THROUGHPUT,
        4,
        gettext_noop("a measured throughput is above zero"),
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
