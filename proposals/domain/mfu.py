"""MFU cross-check: the MFU a measurement implies, from its throughput, the model
size and the GPU count, against the catalogue's peak per GPU.

Implied MFU = k·N·(tokens/s) / (GPUs x peak), with k = 6 for training and 2 for
inference. A throughput in tokens/s is read as the total of all the measurement's
GPUs unless its unit says "per GPU"; the other reading is computed too, so that a
disagreement with the stated MFU can say which reading reconciles them. Samples/s
become tokens/s with the code entry's tokens per sample.

The peak is that of the GPU the measurement was taken on (``peak_for_hardware``): a
variant its "Hardware tested on" text settles (H100 PCIe, H100 NVL, A100 80 GB, ...:
``gpus``), else the catalogue system whose GPU or name it names (the target first),
else the family's default variant (SXM), said to be an assumption; the target
system's when the text is blank.

The stated MFU agrees when it is within :data:`TOLERANCE_POINTS` of the implied one
*and* within :data:`RELATIVE_TOLERANCE` of itself: 10 points is rounding at 40 %
but a threefold error at 4 %.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import gpus, units
from .estimate import FLOPS_PER_TOKEN
from .gpus import GpuModel, gpu_token
from .i18n import Labels, gettext_noop
from .numbers import json_number as n
from .types import Catalogue, Cluster, Proposal, targets
from .units import read_unit

TOLERANCE_POINTS = 10.0
"""How far (percentage points) the implied MFU may be from the stated one."""
RELATIVE_TOLERANCE = 0.5
"""... and how far as a fraction of the stated MFU (half of it: 3 % against 9 % is
a threefold error even though it is only 6 points)."""
MIN_TOLERANCE_POINTS = 1.0
"""The relative tolerance never goes below this (MFU figures are rounded)."""


def tolerance(stated_pct: float) -> float:
    """Percentage points the implied MFU may be from ``stated_pct``."""
    relative = max(MIN_TOLERANCE_POINTS, RELATIVE_TOLERANCE * abs(stated_pct))
    return min(TOLERANCE_POINTS, relative)


TOKENS_UNIT = re.compile(r"\btok", re.IGNORECASE)
SAMPLES_UNIT = re.compile(r"sample|seq|image|img|example", re.IGNORECASE)
PER_GPU_UNIT = re.compile(r"/\s*(?:gpu|gcd|device)|per\s+(?:gpu|gcd|device)", re.I)

AGGREGATE = "aggregate"
PER_GPU = "per_gpu"
READING_WORDS = Labels(
    {
        AGGREGATE: gettext_noop("the total of all its GPUs"),
        PER_GPU: gettext_noop("the throughput of one GPU"),
    }
)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def system_names(cluster: Cluster) -> set[str]:
    """Squashed ways people name a system: name, slug, first word ("lumi",
    "marenostrum") and initials with number ("mn5")."""
    words = re.split(r"[\s-]+", cluster.name)
    names = {_squash(cluster.name), _squash(cluster.slug)}
    if len(words[0]) >= 4:
        names.add(_squash(words[0]))
    caps = "".join(ch for ch in words[0] if ch.isupper())
    if len(caps) >= 2 and len(words) > 1 and words[1].isdigit():
        names.add((caps + words[1]).lower())
    return {name for name in names if len(name) >= 3}


def cluster_for_hardware(
    hardware: str, catalogue: Catalogue, target: Cluster | None
) -> Cluster | None:
    """The catalogue system whose GPU model (or name) the measurement's hardware
    names, the target first; the target when the hardware is blank; ``None`` when
    the hardware names nothing the catalogue knows."""
    text = (hardware or "").strip()
    if not text:
        return target
    ordered = ([target] if target is not None else []) + list(
        targets(catalogue).values()
    )
    token = gpu_token(text)
    if token:
        return next((c for c in ordered if gpu_token(c.gpu_model) == token), None)
    squashed = _squash(text)
    for cluster in ordered:
        if any(name in squashed for name in system_names(cluster)):
            return cluster
    return None


@dataclass(frozen=True)
class Peak:
    """The peak a measurement is judged against: TFLOP/s per GPU, what it is the
    peak of ("NVIDIA H100 PCIe"), its source, and whether it is assumed (the text
    names a GPU family but not which of its variants)."""

    tflops: float
    name: str
    source: str = ""
    assumed: bool = False


def _cluster_peak(cluster: Cluster | None) -> Peak | None:
    if cluster is None or not cluster.peak_bf16_tflops:
        return None
    return Peak(cluster.peak_bf16_tflops, cluster.gpu_model, cluster.peak_source)


def _model_peak(found: gpus.Match, assumed: bool = False) -> Peak:
    model = found.model
    return Peak(model.peak_bf16_tflops, found.label, model.source, assumed)


def peak_for_hardware(
    hardware: str,
    catalogue: Catalogue,
    target: Cluster | None,
    models: tuple[GpuModel, ...] | None = None,
) -> Peak | None:
    """The peak per GPU of the hardware a measurement names: the variant the text
    settles ("H100 PCIe": 756), else the catalogue system with that GPU or name
    (the target first), else the family's default variant (assumed); the target's
    when the text is blank; ``None`` when nothing is known about it."""
    text = (hardware or "").strip()
    if not text:
        return _cluster_peak(target)
    found = gpus.match(text, models)
    if found is not None and found.decided:
        return _model_peak(found)
    peak = _cluster_peak(cluster_for_hardware(text, catalogue, target))
    if peak is not None:
        return peak
    return _model_peak(found, assumed=True) if found is not None else None


@dataclass(frozen=True)
class MfuReading:
    """One measurement's implied MFU under both readings of its throughput."""

    index: int  # the measurement's row
    code: int | None
    gpus: int
    tokens_per_s: float  # as written (converted from samples/s when needed)
    stated_reading: str  # AGGREGATE, or PER_GPU when the unit says so
    parameters: float
    use: str
    gpu: str  # the hardware as the measurement names it (else the target's GPU)
    peak_tflops: float
    stated_pct: float | None
    aggregate_pct: float  # the throughput read as the total of all GPUs
    per_gpu_pct: float  # the throughput read as one GPU's
    peak_name: str = ""  # what the peak is of ("NVIDIA H100 PCIe")
    peak_assumed: bool = False  # the hardware does not say which variant

    def pct(self, reading: str) -> float:
        return self.aggregate_pct if reading == AGGREGATE else self.per_gpu_pct

    @property
    def implied_pct(self) -> float:
        """The MFU under the reading the unit states."""
        return self.pct(self.stated_reading)

    @property
    def other_reading(self) -> str:
        return PER_GPU if self.stated_reading == AGGREGATE else AGGREGATE

    def _agrees(self, reading: str) -> bool:
        if self.stated_pct is None:  # nothing stated: nothing to agree with
            return False
        gap = abs(self.pct(reading) - self.stated_pct)
        return gap <= tolerance(self.stated_pct)

    @property
    def disagrees(self) -> bool:
        """The stated MFU is outside :func:`tolerance` of the implied one."""
        return self.stated_pct is not None and not self._agrees(self.stated_reading)

    @property
    def reconciling(self) -> str | None:
        """The reading that brings the implied MFU within tolerance of the stated
        one (``None``: neither does, or there is no stated MFU)."""
        if self.stated_pct is None:
            return None
        for reading in (self.stated_reading, self.other_reading):
            if self._agrees(reading):
                return reading
        return None

    def to_dict(self) -> dict:
        return {
            "measurement": self.index,
            "code": self.code,
            "gpus": self.gpus,
            "tokens_per_s": n(self.tokens_per_s),
            "throughput_read_as": self.stated_reading,
            "parameters": n(self.parameters),
            "use": self.use,
            "gpu": self.gpu,
            "peak_tflops_per_gpu": n(self.peak_tflops),
            "peak_of": self.peak_name,
            "peak_assumed": self.peak_assumed,
            "stated_mfu_pct": n(self.stated_pct),
            "implied_mfu_pct": n(self.implied_pct),
            "aggregate_mfu_pct": n(self.aggregate_pct),
            "per_gpu_mfu_pct": n(self.per_gpu_pct),
            "disagrees": self.disagrees,
            "reconciling_reading": self.reconciling,
        }


def tokens_per_second(throughput: float, unit: str, tokens_per_sample) -> float | None:
    """Tokens/s from a tokens/s or samples/s throughput (``None``: cannot tell). The
    unit is read in the five languages of :mod:`.units` ("jetons/s", "Bilder/s",
    "muestras por segundo"), else by its English stem ("tokens_per_sec")."""
    canonical = read_unit(unit).canonical
    if canonical == units.TOKENS:
        return throughput
    if canonical in (units.SAMPLES, units.IMAGES):
        return throughput * tokens_per_sample if tokens_per_sample else None
    if canonical == units.STEPS:
        return None
    if TOKENS_UNIT.search(unit or ""):
        return throughput
    if SAMPLES_UNIT.search(unit or "") and tokens_per_sample:
        return throughput * tokens_per_sample
    return None


def _checkable(proposal: Proposal):
    """``(index, measurement, code entry, tokens/s)`` of every measurement whose
    code entry states its parameters and whose unit gives tokens: those an MFU can
    be computed for once the peak of their GPU is known."""
    codes = proposal.codes
    for i, m in enumerate(proposal.scalability.measurements):
        if m.code is None or not 0 <= m.code < len(codes) or m.gpus <= 0:
            continue
        code = codes[m.code]
        tokens = tokens_per_second(m.throughput, m.unit, code.tokens_per_sample)
        if code.model_parameters and tokens:
            yield i, m, code, tokens


def check(
    proposal: Proposal,
    catalogue: Catalogue,
    target: Cluster | None,
    models: tuple[GpuModel, ...] | None = None,
) -> tuple[MfuReading, ...]:
    """Every measurement whose code entry states its parameters, whose unit gives
    tokens, and whose GPU's peak is known (``peak_for_hardware``)."""
    readings = []
    for i, m, code, tokens in _checkable(proposal):
        found = peak_for_hardware(m.hardware, catalogue, target, models)
        if found is None:
            continue
        peak = found.tflops
        use = code.model_use if code.model_use in FLOPS_PER_TOKEN else "training"
        flops = FLOPS_PER_TOKEN[use] * code.model_parameters * tokens
        per_gpu_unit = read_unit(m.unit).per_gpu or bool(PER_GPU_UNIT.search(m.unit))
        one_gpu = 100 * flops / (peak * 1e12)
        readings.append(
            MfuReading(
                index=i,
                code=m.code,
                gpus=m.gpus,
                tokens_per_s=tokens,
                stated_reading=PER_GPU if per_gpu_unit else AGGREGATE,
                parameters=code.model_parameters,
                use=use,
                gpu=m.hardware.strip() or found.name,
                peak_tflops=peak,
                stated_pct=m.mfu_pct,
                aggregate_pct=one_gpu / m.gpus,
                per_gpu_pct=one_gpu,
                peak_name=found.name,
                peak_assumed=found.assumed,
            )
        )
    return tuple(readings)


# Why a measurement's peak is not known (``Unchecked.reason``).
UNKNOWN_GPU = "unknown_gpu"  # it names a GPU model with no peak recorded
UNKNOWN_HARDWARE = "unknown_hardware"  # it names no GPU model or system known
NO_TARGET_PEAK = "no_target_peak"  # blank, and no target system with a peak


@dataclass(frozen=True)
class Unchecked:
    """A measurement whose stated MFU cannot be checked because the peak of the
    hardware it was taken on is not known; ``gpu``: the GPU model its text names
    ("TPU" is none: ""), ``reason``: one of the three above."""

    index: int
    gpus: int
    hardware: str
    stated_pct: float
    reason: str
    gpu: str = ""


def known_gpus(catalogue: Catalogue, models: tuple[GpuModel, ...] | None = None):
    """The GPU models whose peak is known, by family token, sorted: the variants'
    and those of the catalogue systems that record a peak."""
    found = {m.family for m in models or gpus.default_gpu_models()}
    found |= {
        gpu_token(c.gpu_model)
        for c in targets(catalogue).values()
        if c.peak_bf16_tflops
    }
    return [gpus.family_label(token) for token in sorted(found) if token]


def unchecked(
    proposal: Proposal,
    catalogue: Catalogue,
    target: Cluster | None,
    models: tuple[GpuModel, ...] | None = None,
) -> tuple[Unchecked, ...]:
    """Measurements that state an MFU which :func:`check` would compare with their
    throughput (their code entry states its parameters, their unit gives tokens)
    but for the peak of the hardware they name, which nothing records."""
    found = []
    for i, m, _code, _tokens in _checkable(proposal):
        if m.mfu_pct is None:
            continue
        if peak_for_hardware(m.hardware, catalogue, target, models) is not None:
            continue
        text = (m.hardware or "").strip()
        token = gpu_token(text)
        if not text:
            reason = NO_TARGET_PEAK
        elif token:
            reason = UNKNOWN_GPU
        else:
            reason = UNKNOWN_HARDWARE
        label = gpus.family_label(token) if token else ""
        found.append(Unchecked(i, m.gpus, text, m.mfu_pct, reason, label))
    return tuple(found)


def disagreements(readings: Iterable[MfuReading]) -> list[MfuReading]:
    return [r for r in readings if r.disagrees]
