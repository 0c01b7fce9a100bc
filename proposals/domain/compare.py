"""Compare systems: "what if only system X is offered".

For every catalogue system, the request converted: nodes per job, the jobs that hit a
partition's node or walltime limit, and the GPU-hours rescaled from the reference
system (the target, else the hardware of the measurements). The rescaling uses the
measured throughput per GPU where the measurements were taken on both GPUs, else the
ratio of the datasheet peaks (an estimate, and marked as one); on the same GPU the
figures carry over unchanged. Job walltimes are rescaled by the same factor. Each
system's rescaled request falls into a tier of the call terms, shown beside it: 30,000
GPU-hours of H100 become about 77,000 of MI250X, a Large Scale request.

The ratio of peaks is optimistic between GPU generations of one vendor: measured
training speed-ups are usually smaller than the datasheet ratio (A100 to H100 is
x3.17 on paper), so an estimate towards a newer GPU says so (``PEAK_RATIO_CAVEAT``);
towards an older GPU of the same vendor the ratio overstates the gap instead
(``PEAK_RATIO_SLOWER_CAVEAT``), and equal peaks carry the figure over
(``PEAK_EQUAL_CAVEAT``). Between vendors the datasheets give peaks, not a direction:
nothing in them says whether a vendor's GPU reaches more or less of its peak than
another's, so the caveat says the figure may be off either way
(``PEAK_RATIO_VENDOR_CAVEAT``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import Labels, gettext, gettext_noop
from .jobplan import job_plan
from .mfu import cluster_for_hardware, gpu_token
from .numbers import json_number as n
from .terms import UNITS, FamilyTerms
from .tiers import tier_label
from .types import Catalogue, Cluster, Job, Proposal, targets

SAME_GPU = "same_gpu"
MEASURED = "measured"
PEAK_RATIO = "peak_ratio"
UNKNOWN = "unknown"
AS_REQUESTED = "as_requested"
BASIS_WORDS = Labels(
    {
        SAME_GPU: gettext_noop("same GPU as the reference"),
        MEASURED: gettext_noop("measured throughput per GPU"),
        PEAK_RATIO: gettext_noop("estimate from the ratio of peak BF16 throughput"),
        UNKNOWN: gettext_noop("no peak throughput recorded: not rescaled"),
        AS_REQUESTED: gettext_noop("no reference system: as requested"),
    }
)
PEAK_RATIO_CAVEAT = gettext_noop(
    "The ratio of datasheet peaks is optimistic between GPU generations: measured "
    "training speed-ups are usually smaller, so more GPU-hours than this may be "
    "needed. Measure on this system where you can."
)
# Towards an older GPU of the same vendor (H100 to A100: x3.17 on paper) the same
# fact points the other way: the datasheet ratio overstates the gap.
PEAK_RATIO_SLOWER_CAVEAT = gettext_noop(
    "The ratio of datasheet peaks overstates the gap between GPU generations: "
    "measured training speed-ups are usually smaller, so fewer GPU-hours than this "
    "may do. Measure on this system where you can."
)
# Between vendors (H100 to MI250X, MI300X to H100) the datasheets support no
# direction: each gives its own peak, not how much of it training reaches.
PEAK_RATIO_VENDOR_CAVEAT = gettext_noop(
    "The datasheet peaks of GPUs from different vendors do not say which way the "
    "real speed differs: how much of its peak a GPU reaches depends on the "
    "software stack and the code, so the figure may be too high or too low. "
    "Measure on this system where you can."
)
PEAK_EQUAL_CAVEAT = gettext_noop(
    "The datasheet peaks are equal, so the figure carries over; memory, interconnect "
    "and software can still change the speed. Measure on this system where you can."
)


@dataclass(frozen=True)
class JobOnSystem:
    title: str
    gpus: int
    nodes: int | None
    hours: float  # rescaled walltime
    fits_partition: bool | None
    walltime_ok: bool | None


@dataclass(frozen=True)
class SystemOption:
    """The request converted to one catalogue system."""

    slug: str
    name: str
    gpu_model: str
    gpus_per_node: int
    is_target: bool
    basis: str
    factor: float | None  # GPU-hours here / GPU-hours on the reference
    gpu_hours: float | None
    billing_unit: str
    billing_value: float | None
    jobs: tuple[JobOnSystem, ...]
    measured_here: bool = False  # some measurement ran on this system's GPU
    tier: str | None = None  # the tier the rescaled request falls into
    same_vendor: bool = False  # same GPU vendor as the reference system

    @property
    def tier_label(self) -> str:
        return tier_label(self.tier) if self.tier else ""

    @property
    def caveat(self) -> str:
        """What to keep in mind about the rescaled figure ("" when nothing)."""
        if self.basis != PEAK_RATIO or self.factor is None:
            return ""
        if abs(self.factor - 1) < 0.005:
            return gettext(PEAK_EQUAL_CAVEAT)
        if not self.same_vendor:
            return gettext(PEAK_RATIO_VENDOR_CAVEAT)
        if self.factor > 1:
            return gettext(PEAK_RATIO_SLOWER_CAVEAT)
        return gettext(PEAK_RATIO_CAVEAT)

    @property
    def estimated(self) -> bool:
        """Whether the GPU-hours are an estimate from datasheet peaks."""
        return self.basis == PEAK_RATIO

    @property
    def largest_job_nodes(self) -> int | None:
        return max((j.nodes for j in self.jobs if j.nodes), default=None)

    @property
    def walltime_hits(self) -> tuple[str, ...]:
        return tuple(
            j.title or gettext("(untitled)")
            for j in self.jobs
            if j.walltime_ok is False
        )

    @property
    def node_limit_hits(self) -> tuple[str, ...]:
        return tuple(
            j.title or gettext("(untitled)")
            for j in self.jobs
            if j.fits_partition is False
        )

    @property
    def basis_words(self) -> str:
        return BASIS_WORDS[self.basis]

    def to_dict(self) -> dict:
        return {
            "system": self.slug,
            "name": self.name,
            "gpu_model": self.gpu_model,
            "target": self.is_target,
            "basis": self.basis,
            "estimate": self.estimated,
            "factor": n(self.factor),
            "gpu_hours": n(self.gpu_hours),
            "tier": self.tier,
            "caveat": self.caveat or None,
            "billing_unit": self.billing_unit,
            "in_billing_unit": n(self.billing_value),
            "largest_job_nodes": self.largest_job_nodes,
            "walltime_limit_hit": list(self.walltime_hits),
            "node_limit_hit": list(self.node_limit_hits),
            "measured_here": self.measured_here,
        }


@dataclass(frozen=True)
class Comparison:
    reference: str  # the reference system's slug ("" when none)
    reference_from: str  # "target", "measurements" or ""
    base_gpu_hours: float | None
    options: tuple[SystemOption, ...]

    def to_dict(self) -> dict:
        return {
            "reference": self.reference,
            "reference_from": self.reference_from,
            "base_gpu_hours": n(self.base_gpu_hours),
            "systems": [o.to_dict() for o in self.options],
        }


def measured_per_gpu(proposal: Proposal, catalogue: Catalogue, target) -> dict:
    """(GPU model token, unit) -> throughput per GPU at the smallest GPU count
    measured on that GPU."""
    found: dict[tuple[str, str], tuple[int, float]] = {}
    for m in proposal.scalability.measurements:
        cluster = cluster_for_hardware(m.hardware, catalogue, target)
        if cluster is None or m.gpus <= 0 or m.throughput <= 0:
            continue
        key = (gpu_token(cluster.gpu_model), m.unit.strip().lower())
        if key not in found or m.gpus < found[key][0]:
            found[key] = (m.gpus, m.throughput / m.gpus)
    return {key: value[1] for key, value in found.items()}


def _reference(proposal: Proposal, catalogue: Catalogue, target):
    if target is not None:
        return target, "target"
    for m in proposal.scalability.measurements:
        if m.hardware.strip():
            cluster = cluster_for_hardware(m.hardware, catalogue, None)
            if cluster is not None:
                return cluster, "measurements"
    return None, ""


def _vendor(gpu_model: str) -> str:
    """ "NVIDIA" of "NVIDIA H100 64 GB", "AMD" of "AMD Instinct MI250X"."""
    return (gpu_model.split() or [""])[0].upper()


def _factor(reference: Cluster | None, cluster: Cluster, measured: dict):
    """(factor, basis): GPU-hours on ``cluster`` per GPU-hour on ``reference``."""
    if reference is None:
        return 1.0, AS_REQUESTED
    ref_gpu, gpu = gpu_token(reference.gpu_model), gpu_token(cluster.gpu_model)
    if ref_gpu and ref_gpu == gpu:
        return 1.0, SAME_GPU
    for (token, unit), per_gpu in sorted(measured.items()):
        if token == gpu and (ref_gpu, unit) in measured:
            return measured[(ref_gpu, unit)] / per_gpu, MEASURED
    if reference.peak_bf16_tflops and cluster.peak_bf16_tflops:
        return reference.peak_bf16_tflops / cluster.peak_bf16_tflops, PEAK_RATIO
    return None, UNKNOWN


def compare(
    proposal: Proposal,
    catalogue: Catalogue,
    plan_total: float = 0.0,
    family: FamilyTerms | None = None,
) -> Comparison:
    """Every catalogue system with the request converted (target system first), with
    the tier each converted request falls into under ``family``'s terms (none for
    a family without tiers, or without terms)."""
    slug = proposal.selection.system
    target = catalogue.get(slug) if slug else None
    reference, reference_from = _reference(proposal, catalogue, target)
    base = proposal.selection.total_gpu_hours or plan_total or None
    measured = measured_per_gpu(proposal, catalogue, target)
    measured_gpus = {token for token, _ in measured}
    options = []
    for cluster in targets(catalogue).values():
        factor, basis = _factor(reference, cluster, measured)
        jobs = proposal.scalability.jobs
        if factor is not None and factor != 1:
            jobs = tuple(Job(j.title, j.gpus, j.hours * factor, j.count) for j in jobs)
        plan = job_plan(jobs, cluster)
        hours = base * factor if base is not None and factor is not None else None
        mode = family.mode_for_hours(hours) if family and family.tiered else None
        options.append(
            SystemOption(
                slug=cluster.slug,
                name=cluster.name,
                gpu_model=cluster.gpu_model,
                gpus_per_node=cluster.gpus_per_node,
                is_target=cluster is target,
                basis=basis,
                factor=factor,
                gpu_hours=hours,
                billing_unit=UNITS.get(cluster.billing_unit, cluster.billing_unit),
                billing_value=cluster.in_billing_units(hours),
                measured_here=gpu_token(cluster.gpu_model) in measured_gpus,
                tier=mode.slug if mode else None,
                same_vendor=reference is not None
                and _vendor(reference.gpu_model) == _vendor(cluster.gpu_model),
                jobs=tuple(
                    JobOnSystem(
                        title=r.title,
                        gpus=r.gpus,
                        nodes=r.nodes,
                        hours=r.hours,
                        fits_partition=r.fits_partition,
                        walltime_ok=r.walltime_ok,
                    )
                    for r in plan.rows
                ),
            )
        )
    options.sort(key=lambda o: (not o.is_target, o.name))
    return Comparison(
        reference=reference.slug if reference else "",
        reference_from=reference_from,
        base_gpu_hours=base,
        options=tuple(options),
    )
