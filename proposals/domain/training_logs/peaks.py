"""A logged TFLOP/s per GPU above the accelerator's peak is not a figure a run can
reach (a misread line, a sum over GPUs, a sparse or FP8 peak taken for dense BF16):
such a measurement is flagged by the reader and refused as a row, with the peak it
exceeds. The peaks are the GPU catalogue's (:mod:`..gpus`, dense BF16, per physical
GPU); when the run's GPU is unknown, the highest peak in the catalogue bounds it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..gpus import GpuModel, default_gpu_models, match
from ..i18n import gettext
from ..numbers import grouped


@dataclass(frozen=True)
class Peak:
    """The bound for TFLOP/s per GPU: ``tflops`` of ``gpu``; ``known``: the run's
    own accelerator (else the catalogue's highest, the run's being unknown)."""

    tflops: float
    gpu: str
    known: bool


def peak_of(
    gpu: str = "",
    tflops: float | None = None,
    models: Iterable[GpuModel] | None = None,
) -> Peak:
    """The bound for a run on ``gpu`` (a system's "AMD MI250X"): its own peak
    ``tflops`` when given, else the catalogue variant the text names, else the
    highest peak in the catalogue."""
    models = tuple(models or default_gpu_models())
    if tflops:
        return Peak(float(tflops), gpu, True)
    found = match(gpu, models) if gpu else None
    if found is not None:
        family = [m for m in models if m.family == found.model.family]
        # An undecided variant (an "H100" of unknown form) is bounded by its
        # family's highest peak: a figure the family can reach is not refused.
        top = max(m.peak_bf16_tflops for m in family)
        return Peak(
            top if not found.decided else found.model.peak_bf16_tflops,
            found.label,
            True,
        )
    highest = max(models, key=lambda m: m.peak_bf16_tflops)
    return Peak(highest.peak_bf16_tflops, highest.name, False)


def above_peak(tflops_per_gpu: float | None, peak: Peak | None = None) -> str:
    """Why ``tflops_per_gpu`` cannot be a run's figure (it is above ``peak``,
    default: the catalogue's highest), or "" when it can."""
    peak = peak or peak_of()
    if tflops_per_gpu is None or tflops_per_gpu <= peak.tflops:
        return ""
    values = {
        "tflops": grouped(tflops_per_gpu, 1),
        "peak": grouped(peak.tflops, 1),
        "gpu": peak.gpu,
    }
    if peak.known:
        return gettext(
            "{tflops} TFLOP/s per GPU is above the {gpu}'s peak of {peak} TFLOP/s "
            "(dense BF16): no run reaches that; check the log's figure."
        ).format(**values)
    return gettext(
        "{tflops} TFLOP/s per GPU is above the highest peak of any GPU "
        "({peak} TFLOP/s, {gpu}, dense BF16): no run reaches that; check the "
        "log's figure."
    ).format(**values)
