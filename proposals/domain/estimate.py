"""Compute estimate from the model: FLOPs = 6·N·D to train (2·N per token for
inference), the GPU-hours that takes on the target system's peak at an MFU, and how
that compares with the job plan's training rows.

The MFU is the code entry's assumed MFU when given, else the MFU of its measurement
at the largest GPU count that carries one, else :data:`DEFAULT_MFU_PCT` (a stated
assumption). Peaks are per physical GPU (one MI250X, not one GCD), as GPU-hours are.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .codeentry import CodeEntry
from .i18n import gettext
from .jobplan import JobPlan
from .numbers import json_number as n
from .numbers import points
from .types import Cluster, Measurement, Proposal

DEFAULT_MFU_PCT = 40.0
"""The MFU assumed when neither the applicant nor the measurements give one: a
typical figure for well-tuned dense transformer training in BF16."""

FLOPS_PER_TOKEN = {"training": 6, "inference": 2}
"""FLOPs per parameter and token: forward and backward pass (6), forward only (2)."""

TRAINING_ROW = re.compile(r"train|fine-?tun|ablation", re.IGNORECASE)
INFERENCE_ROW = re.compile(r"inferen|evaluat|generat|serv", re.IGNORECASE)


@dataclass(frozen=True)
class CodeEstimate:
    """The estimate for one code entry (``code`` is its index)."""

    code: int
    name: str
    use: str  # "training" or "inference"
    parameters: float
    tokens: float | None
    tokens_from: str  # "stated", "dataset" (samples x epochs x tokens) or ""
    mfu_pct: float
    mfu_from: str  # "stated", "measured" or "assumed"
    flops: float | None
    gpu_hours: float | None
    missing: tuple[str, ...]  # what the applicant still has to give

    @property
    def formula(self) -> str:
        """ "6·N·D at 40% MFU" (how a reviewer reads where the figure comes from)."""
        k = FLOPS_PER_TOKEN[self.use]
        return f"{k}·N·D at {points(self.mfu_pct, 3)} MFU"

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "use": self.use,
            "parameters": n(self.parameters),
            "tokens": n(self.tokens),
            "tokens_from": self.tokens_from,
            "mfu_pct": n(self.mfu_pct),
            "mfu_from": self.mfu_from,
            "flops": n(self.flops),
            "gpu_hours": n(self.gpu_hours),
            "formula": self.formula,
            "missing": list(self.missing),
        }


@dataclass(frozen=True)
class ComputeEstimate:
    """Every code entry's estimate on one system, and the comparison with the plan."""

    system: str
    peak_tflops: float | None
    entries: tuple[CodeEstimate, ...]
    training_gpu_hours: float | None  # sum over complete training estimates
    plan_training_gpu_hours: float  # the job plan's training rows
    plan_rows: tuple[int, ...]  # which job rows those are
    plan_rows_from: str  # "training rows" or "all rows" (no row named training)

    @property
    def ratio(self) -> float | None:
        """Job plan / estimate (above 1: the plan asks for more than the model
        needs at that MFU)."""
        if not self.training_gpu_hours or not self.plan_training_gpu_hours:
            return None
        return self.plan_training_gpu_hours / self.training_gpu_hours

    @property
    def factor(self) -> float | None:
        """How far apart plan and estimate are, as a factor of at least 1."""
        r = self.ratio
        return None if r is None else max(r, 1 / r)

    def to_dict(self) -> dict:
        return {
            "system": self.system,
            "peak_tflops_per_gpu": n(self.peak_tflops),
            "entries": [e.to_dict() for e in self.entries],
            "training_gpu_hours": n(self.training_gpu_hours),
            "job_plan_training_gpu_hours": n(self.plan_training_gpu_hours),
            "job_plan_rows": list(self.plan_rows),
            "job_plan_rows_from": self.plan_rows_from,
            "plan_to_estimate": n(self.ratio),
        }


def tokens_of(code: CodeEntry) -> tuple[float | None, str]:
    """D as stated, or samples x epochs x tokens per sample; ``(None, "")`` if not
    known."""
    if code.training_tokens:
        return code.training_tokens, "stated"
    if code.dataset_samples and code.epochs and code.tokens_per_sample:
        return code.dataset_samples * code.epochs * code.tokens_per_sample, "dataset"
    return None, ""


def measured_mfu(code_index: int, measurements: tuple[Measurement, ...]):
    """The MFU of the code's measurement at the largest GPU count that has one."""
    with_mfu = [
        m for m in measurements if m.code == code_index and m.mfu_pct is not None
    ]
    if not with_mfu:
        return None
    return max(with_mfu, key=lambda m: m.gpus).mfu_pct


def gpu_hours_for(flops: float, peak_tflops: float | None, mfu_pct: float):
    """GPU-hours to do ``flops`` at ``mfu_pct`` of ``peak_tflops`` per GPU."""
    if not peak_tflops or mfu_pct <= 0:
        return None
    return flops / (peak_tflops * 1e12 * mfu_pct / 100) / 3600


def estimate_code(
    index: int, code: CodeEntry, measurements: tuple[Measurement, ...], peak
) -> CodeEstimate:
    """The estimate for one code entry that states its parameter count."""
    use = code.model_use if code.model_use in FLOPS_PER_TOKEN else "training"
    tokens, tokens_from = tokens_of(code)
    if code.assumed_mfu_pct:
        mfu, mfu_from = code.assumed_mfu_pct, "stated"
    elif (measured := measured_mfu(index, measurements)) is not None and measured > 0:
        mfu, mfu_from = measured, "measured"
    else:
        mfu, mfu_from = DEFAULT_MFU_PCT, "assumed"
    missing = []
    if tokens is None:
        missing.append(
            gettext("tokens (or data set size, epochs and tokens per sample)")
        )
    if not peak:
        missing.append(gettext("the target system's peak throughput"))
    flops = FLOPS_PER_TOKEN[use] * code.model_parameters * tokens if tokens else None
    return CodeEstimate(
        code=index,
        name=code.name,
        use=use,
        parameters=code.model_parameters,
        tokens=tokens,
        tokens_from=tokens_from,
        mfu_pct=mfu,
        mfu_from=mfu_from,
        flops=flops,
        gpu_hours=gpu_hours_for(flops, peak, mfu) if flops else None,
        missing=tuple(missing),
    )


def plan_rows(plan: JobPlan, use: str = "training") -> tuple[tuple[int, ...], str]:
    """The job rows whose title names training (or inference); all rows when none
    does."""
    pattern = TRAINING_ROW if use == "training" else INFERENCE_ROW
    named = tuple(r.index for r in plan.rows if pattern.search(r.title))
    if named:
        return named, f"{use} rows"
    return tuple(r.index for r in plan.rows), "all rows"


def estimate(
    proposal: Proposal, cluster: Cluster | None, plan: JobPlan
) -> ComputeEstimate | None:
    """The compute estimate, or ``None`` when no code entry states its parameters."""
    peak = cluster.peak_bf16_tflops if cluster else None
    measurements = proposal.scalability.measurements
    entries = tuple(
        estimate_code(i, code, measurements, peak)
        for i, code in enumerate(proposal.codes)
        if code.model_parameters
    )
    if not entries:
        return None
    training = [
        e.gpu_hours for e in entries if e.use == "training" and e.gpu_hours is not None
    ]
    rows, rows_from = plan_rows(plan)
    return ComputeEstimate(
        system=cluster.name if cluster else "",
        peak_tflops=peak,
        entries=entries,
        training_gpu_hours=math.fsum(training) if training else None,
        plan_training_gpu_hours=math.fsum(plan.rows[i].gpu_hours for i in rows),
        plan_rows=rows,
        plan_rows_from=rows_from,
    )
