"""Input types of the proposal engine and the cluster catalogue.

Every input dataclass is frozen and has defaults, so ``Proposal()`` is a valid (blank)
draft: the engine reports what is missing as findings instead of refusing the input.
Field names follow the JSON format ``aifactory-proposal/1`` (see ``jsonformat``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .i18n import Labels, gettext, gettext_noop

# How people read each choice; the models' choices are built from these.
# The call families' names are the calls' own, the same in every language: marked
# for the catalogues, which keep each as it is (a name, not English to translate).
CALL_FAMILY_LABELS = {
    "industrial_innovation": gettext_noop("AI for Industrial Innovation"),
    "ai_for_science": gettext_noop("AI for Science and Collaborative EU Projects"),
}
ORGANISATION_KIND_LABELS = Labels(
    {
        "startup": gettext_noop("Startup"),
        "sme": gettext_noop("SME"),
        "industry": gettext_noop("Other industrial organisation"),
        "academic": gettext_noop("Academic or research organisation"),
        "public": gettext_noop("Public sector organisation"),
    }
)
CALL_FAMILIES = tuple(CALL_FAMILY_LABELS)
ORGANISATION_KINDS = tuple(ORGANISATION_KIND_LABELS)
EXPERIENCE_LEVELS = ("none", "some", "proven")
# A code entry's role, as the wizard's choice and the summaries name it.
CODE_ROLE_LABELS = Labels(
    {
        "main": gettext_noop("Main training or inference loop"),
        "preprocessing": gettext_noop("Compute-intensive pre-processing"),
        "evaluation": gettext_noop("Separate evaluation or inference phase"),
        "simulation": gettext_noop("Simulation that generates data"),
        "other": gettext_noop("Other component"),
    }
)
CODE_ROLES = tuple(CODE_ROLE_LABELS)
WORKLOADS = ("single_large_job", "many_small_jobs")
# What a code entry's model does, for the compute estimate: 6·N·D FLOPs to train,
# 2·N per token for inference.
MODEL_USE_LABELS = Labels(
    {
        "training": gettext_noop("Training (6·N FLOPs per token)"),
        "inference": gettext_noop("Inference (2·N FLOPs per token)"),
    }
)
MODEL_USES = tuple(MODEL_USE_LABELS)


@dataclass(frozen=True)
class Organisation:
    """The applying organisation (eligibility for the industrial call family)."""

    name: str = ""
    kind: str = ""  # one of ORGANISATION_KINDS, or "" when not answered
    country: str = ""  # ISO 3166-1 alpha-2
    vat_number: str = ""
    ongoing_eurohpc_project: bool = False


@dataclass(frozen=True)
class Experience:
    """The applicant's HPC experience (drives the recommended tier)."""

    hpc_experience: str = ""  # one of EXPERIENCE_LEVELS, or ""
    stack_demonstrated_on_target: bool | None = None


@dataclass(frozen=True)
class Selection:
    """The portal section "AI Factory selection"."""

    system: str = ""  # catalogue slug
    libraries: str = ""
    total_gpu_hours: float | None = None
    max_gpus_per_job: int | None = None
    storage_tb: float | None = None
    storage_justification: str = ""
    transfer_in_tb: float | None = None
    transfer_out_tb: float | None = None
    transfer_justification: str = ""
    extra_cpu_hours: float | None = None
    auxiliary_services: str = ""
    duration_months: int | None = None


@dataclass(frozen=True)
class Measurement:
    """One scaling measurement; ``code`` is an index into ``Proposal.codes``."""

    code: int | None = None
    gpus: int = 0
    throughput: float = 0.0
    unit: str = ""
    mfu_pct: float | None = None
    comm_overhead_pct: float | None = None
    hardware: str = ""
    source: str = ""  # where a row read from a training log came from


@dataclass(frozen=True)
class Job:
    """One job type of the job plan: ``count`` jobs of ``gpus`` GPUs for ``hours``."""

    title: str = ""
    gpus: int = 0
    hours: float = 0.0
    count: int = 1
    source: str = ""  # where a row read from sacct output came from


@dataclass(frozen=True)
class UsagePeriod:
    """One row of the usage schedule: months ``from_month``..``to_month`` inclusive."""

    from_month: int = 1
    to_month: int = 1
    gpu_hours: float = 0.0
    activity: str = ""


@dataclass(frozen=True)
class Scalability:
    """Section d: narrative plus measurements, job plan and usage schedule."""

    narrative: str = ""
    workload: str = ""  # one of WORKLOADS, or ""
    runtime_stability_pct: float | None = None
    measurements: tuple[Measurement, ...] = ()
    jobs: tuple[Job, ...] = ()
    schedule: tuple[UsagePeriod, ...] = ()


@dataclass(frozen=True)
class Proposal:
    """A whole proposal as the engine sees it."""

    title: str = ""
    call_family: str = "industrial_innovation"
    organisation: Organisation = field(default_factory=Organisation)
    experience: Experience = field(default_factory=Experience)
    selection: Selection = field(default_factory=Selection)
    # codeentry.CodeEntry: built from the vocabulary, which reads this module (an
    # import here would be a cycle); to the type checker it is Any all the same.
    codes: tuple[Any, ...] = ()
    scalability: Scalability = field(default_factory=Scalability)
    optimisation_narrative: str = ""
    # The people of its team as the JSON format lists them (names only; an import
    # never makes anybody a member).
    team: tuple[str, ...] = ()


@dataclass(frozen=True)
class Partition:
    """A batch partition and its per-job limits; ``None`` limits mean "not recorded
    in the catalogue". ``max_nodes`` is the most one job may use, not the size of
    the system (``Cluster.gpu_nodes``)."""

    name: str
    max_nodes: int | None = None
    max_walltime_hours: float | None = None


@dataclass(frozen=True)
class Cluster:
    """A catalogue entry: one GPU system and the facts the engine needs about it."""

    slug: str
    name: str
    site: str = ""
    country: str = ""
    # An announced system not yet in production: in the catalogue with what is
    # public about it (figures ``None`` where no document states them), never a
    # target; ``expected_in_production`` is "2027", "2027-01" or a date ("" when
    # no document states it).
    in_production: bool = True
    expected_in_production: str = ""
    production_source: str = ""
    production_checked: str = ""
    gpus_per_node: int = 4
    gpu_model: str = ""
    gpu_memory_gb: int = 0
    gpu_power_w: int = 0
    gcds_per_gpu: int = 1
    partitions: tuple[Partition, ...] = ()
    default_partition: str = ""
    carbon_intensity_g_per_kwh: float = 0.0
    carbon_source: str = ""
    site_carbon_intensity_g_per_kwh: float | None = None
    site_carbon_note: str = ""
    billing_note: str = ""
    source_url: str = ""
    # How the system bills: the unit and how many GPU-hours one unit stands for
    # (LUMI-G: GPU-hours, 1; Leonardo Booster: node-hours, 4), with its source.
    billing_unit: str = "gpu_hours"
    billing_unit_gpu_hours: float = 1.0
    billing_unit_source: str = ""
    billing_unit_checked: str = ""
    # Peak throughput of one physical GPU (one MI250X, not one GCD) from the vendor's
    # datasheet: dense BF16/FP16 tensor (matrix) and FP32 vector TFLOP/s, with source.
    peak_bf16_tflops: float | None = None
    peak_fp32_tflops: float | None = None
    peak_source: str = ""
    peak_checked: str = ""
    # The size of the whole GPU system (all its GPU nodes), with its source: PLAN-3
    # compares a request with it. The partitions' ``max_nodes`` are per-job limits.
    gpu_nodes: int | None = None
    gpu_nodes_source: str = ""
    gpu_nodes_checked: str = ""
    # How a job script asks for GPUs (the scaling kit, issue 37): cores per Slurm
    # GPU (per GCD on LUMI-G), the QoS a job needs, srun's CPU binding, and where
    # these come from; without a checked date the scripts say they are unverified.
    cores_per_task: int | None = None
    qos: str = ""
    cpu_bind: str = ""
    job_facts_source: str = ""
    job_facts_checked: str = ""

    def expected_text(self) -> str:
        """ "in production from 2027", or that the date is not published."""
        if self.expected_in_production:
            return gettext("in production from {date}").format(
                date=self.expected_in_production
            )
        return gettext("in production from a date not yet published")

    def not_a_target(self) -> str:
        """Why the system cannot be chosen as a target ("": it can)."""
        if self.in_production:
            return ""
        return gettext("{system} is not in production yet: {expected}.").format(
            system=self.name, expected=self.expected_text()
        )

    def in_billing_units(self, gpu_hours: float | None) -> float | None:
        """``gpu_hours`` in the system's billing unit."""
        if gpu_hours is None or not self.billing_unit_gpu_hours:
            return None
        return gpu_hours / self.billing_unit_gpu_hours

    @classmethod
    def from_dict(cls, row: Mapping) -> Cluster:
        """Build a cluster from a catalogue row (``fixtures/catalogue.json`` keys)."""
        partitions = tuple(
            Partition(
                name=str(p.get("name", "")),
                max_nodes=p.get("max_nodes"),
                max_walltime_hours=p.get("max_walltime_hours"),
            )
            for p in row.get("partitions") or ()
        )
        known = {f for f in cls.__dataclass_fields__ if f != "partitions"}
        values = {k: v for k, v in row.items() if k in known}
        for key in (
            "site_carbon_note",
            "default_partition",
            "billing_note",
            "billing_unit_source",
            "peak_source",
            "gpu_nodes_source",
            "qos",
            "cpu_bind",
            "job_facts_source",
            "expected_in_production",
            "production_source",
            "gpu_model",
        ):
            if values.get(key) is None:
                values[key] = ""
        for key in (
            "billing_unit_checked",
            "peak_checked",
            "gpu_nodes_checked",
            "job_facts_checked",
            "production_checked",
        ):
            checked = values.get(key)
            values[key] = "" if checked is None else str(checked)
        for key in ("peak_bf16_tflops", "peak_fp32_tflops"):
            if values.get(key) is not None:
                values[key] = float(values[key])
        if values.get("billing_unit_gpu_hours") is not None:
            values["billing_unit_gpu_hours"] = float(values["billing_unit_gpu_hours"])
        return cls(partitions=partitions, **values)


Catalogue = Mapping[str, Cluster]


def load_catalogue(source: str | Path | Iterable[Mapping]) -> dict[str, Cluster]:
    """Return the catalogue keyed by slug, from a JSON file path or a list of rows."""
    if isinstance(source, str | Path):
        rows = json.loads(Path(source).read_text(encoding="utf-8"))
    else:
        rows = source
    clusters = (Cluster.from_dict(row) for row in rows)
    return {cluster.slug: cluster for cluster in clusters}


def targets(catalogue: Catalogue) -> dict[str, Cluster]:
    """The systems of ``catalogue`` that may be chosen as a target (in
    production): the ones the engine compares, matches and computes with."""
    return {slug: c for slug, c in catalogue.items() if c.in_production}
