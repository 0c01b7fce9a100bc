"""The engine's entry point: ``assess(proposal, catalogue) -> Assessment``.

``assess`` computes tier, recommendation, job plan, scaling table, projection,
schedule and energy once, then runs every registered rule on them. It never raises on
odd input: problems in the data come back as findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from .call_unit import CallRequest, call_request
from .compare import Comparison, compare
from .countries import Countries
from .energy import EnergyEstimate, estimate
from .estimate import ComputeEstimate
from .estimate import estimate as compute_estimate
from .findings import SEVERITIES, Context, Finding, run_rules
from .gpus import GpuModel
from .jobplan import JobPlan, job_plan
from .mfu import MfuReading
from .mfu import check as mfu_check
from .numbers import grouped, hours, percent, points, ratio
from .numbers import json_number as n
from .scaling import (
    Projection,
    ScalingAnalysis,
    ScalingPoint,
    analyse,
    project,
    projection_series,
)
from .schedule import ScheduleSummary, summarise
from .terms import UNITS, CallTerms, family_terms
from .tiers import recommend_tier, tier_label
from .types import Catalogue, Proposal


@dataclass(frozen=True)
class Billing:
    """The request in the target system's own billing unit (node-hours on Leonardo
    Booster), beside the GPU-hours the calls count in."""

    unit: str
    label: str
    gpu_hours_per_unit: float
    requested: float | None
    job_plan: float
    jobs: tuple[float, ...]
    source: str
    checked: str

    @property
    def differs(self) -> bool:
        """Whether the system bills in something other than GPU-hours."""
        return self.unit != "gpu_hours" or self.gpu_hours_per_unit != 1

    def to_dict(self) -> dict:
        return {
            "unit": self.unit,
            "gpu_hours_per_unit": n(self.gpu_hours_per_unit),
            "requested": n(self.requested),
            "job_plan": n(self.job_plan),
            "jobs": [n(v) for v in self.jobs],
            "source": self.source,
            "checked": self.checked,
        }


def billing(cluster, hours: float | None, plan: JobPlan) -> Billing | None:
    """The request and the job plan in ``cluster``'s billing unit."""
    if cluster is None:
        return None
    return Billing(
        unit=cluster.billing_unit,
        label=UNITS.get(cluster.billing_unit, cluster.billing_unit),
        gpu_hours_per_unit=cluster.billing_unit_gpu_hours,
        requested=cluster.in_billing_units(hours),
        job_plan=cluster.in_billing_units(plan.total_gpu_hours) or 0.0,
        jobs=tuple(cluster.in_billing_units(r.gpu_hours) or 0.0 for r in plan.rows),
        source=cluster.billing_unit_source,
        checked=cluster.billing_unit_checked,
    )


@dataclass(frozen=True)
class Assessment:
    """Everything computed for one proposal; ``to_dict()`` is the command's JSON."""

    tier: str | None
    mode: str | None
    mode_label: str
    recommended_tier: str | None
    reasons: tuple[str, ...]
    requested_gpu_hours: float | None
    target_gpus: int | None
    plan: JobPlan
    analysis: ScalingAnalysis
    projection: Projection | None
    schedule: ScheduleSummary
    energy: EnergyEstimate | None
    findings: tuple[Finding, ...]
    billing: Billing | None = None
    call_request: CallRequest | None = None  # in the call's unit (node-hours)
    # Compute planning (issue 14): 6·N·D estimate, MFU cross-check, other systems.
    compute_estimate: ComputeEstimate | None = None
    mfu_check: tuple[MfuReading, ...] = ()
    # (proposal, catalogue, job plan total): the comparison is computed when read.
    comparison_input: tuple = field(default=(), repr=False, compare=False)

    @cached_property
    def systems_comparison(self) -> Comparison | None:
        """Every catalogue system with the request converted (computed on first
        use: the live sidebar does not need it)."""
        return compare(*self.comparison_input) if self.comparison_input else None

    @property
    def scaling_points(self) -> tuple[ScalingPoint, ...]:
        """The scaling table rows (all code entries, each sorted by GPU count)."""
        return self.analysis.points

    @property
    def counts(self) -> dict[str, int]:
        """Number of findings per severity."""
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}

    @property
    def has_errors(self) -> bool:
        """Whether any finding is an error (the command then exits with 1)."""
        return self.counts["error"] > 0

    def to_dict(self) -> dict:
        """The JSON shape of the ``assess`` command (floats rounded to 6 places)."""
        several = len(self.analysis.series) > 1
        return {
            "tier": self.tier,
            "call_mode": self.mode,
            "recommended_tier": self.recommended_tier,
            "reasons": list(self.reasons),
            "totals": {
                "requested_gpu_hours": n(self.requested_gpu_hours),
                "job_plan_gpu_hours": n(self.plan.total_gpu_hours),
                "largest_job_gpus": self.plan.largest_job_gpus,
                "largest_job_nodes": self.plan.largest_job_nodes,
            },
            "billing": self.billing.to_dict() if self.billing else None,
            "call_request": self.call_request.to_dict() if self.call_request else None,
            "jobs": [
                {
                    "title": row.title,
                    "gpus": row.gpus,
                    "hours": n(row.hours),
                    "count": row.count,
                    "gpu_hours": n(row.gpu_hours),
                    "nodes": row.nodes,
                    "walltime_ok": row.walltime_ok,
                }
                for row in self.plan.rows
            ],
            "scaling": [_point(p, several) for p in self.scaling_points],
            "projection": _projection(self.projection),
            "schedule": {
                "total_gpu_hours": n(self.schedule.total_gpu_hours),
                "last_month": self.schedule.last_month,
                "matches_total": self.schedule.matches_total,
                "within_duration": self.schedule.within_duration,
                "rows": [
                    {
                        "from_month": row.from_month,
                        "to_month": row.to_month,
                        "gpu_hours": n(row.gpu_hours),
                        "activity": row.activity,
                    }
                    for row in self.schedule.rows
                ],
            },
            "energy": _energy(self.energy),
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.counts,
            "compute_estimate": (
                self.compute_estimate.to_dict() if self.compute_estimate else None
            ),
            "mfu_check": [r.to_dict() for r in self.mfu_check],
            "systems_comparison": (
                self.systems_comparison.to_dict() if self.systems_comparison else None
            ),
        }

    def to_text(self) -> str:
        """A short plain-text report for people (``assess --format text``)."""
        lines = [
            f"Tier: {self.mode_label}",
            f"Recommended tier: {tier_label(self.recommended_tier)}",
        ]
        lines += [f"  - {reason}" for reason in self.reasons]
        b = self.billing
        if b and b.differs and b.requested is not None:
            lines.append(
                f"In the system's unit: {grouped(b.requested, 0)} {b.label} "
                f"(1 {b.label[:-1]} = {grouped(b.gpu_hours_per_unit, 6)} GPU-hours)"
            )
        c = self.call_request
        if c and c.requested is not None:
            lines.append(f"In the call's unit: {c.amount(self.requested_gpu_hours)}")
        if self.plan.rows:
            lines.append(
                f"Job plan: {grouped(self.plan.total_gpu_hours, 0)} GPU-hours in "
                f"{len(self.plan.rows)} job type(s)"
            )
        if self.scaling_points:
            lines.append("Scaling:")
            lines += [
                f"  {grouped(p.gpus, 0):>6} GPUs  {grouped(p.throughput, 0):>12} "
                f"{p.unit}  {grouped(p.speedup, 2, trim=False)}x  "
                f"{percent(p.efficiency)}"
                for p in self.scaling_points
            ]
        if self.projection and not self.projection.needed:
            lines.append(self.projection.not_needed_text)
        elif self.projection:
            p = self.projection
            lines.append(
                f"Projection at {grouped(p.target_gpus, 0)} GPUs: "
                f"{percent(p.efficiency_low)} to {percent(p.efficiency_high)} "
                f"efficiency ({grouped(p.extrapolation_factor, 6)}x the largest "
                "measurement"
                + (
                    "; the log-linear fit falls below zero there)"
                    if p.log2_below_zero
                    else ")"
                )
            )
        if self.energy:
            e = self.energy
            lines.append(
                f"Energy: {grouped(e.energy_mwh, 1, trim=False)} MWh, "
                f"{grouped(e.carbon_t_co2e, 1, trim=False)} t CO2e"
            )
        lines += compute_lines(self)
        counts = self.counts
        lines.append(
            f"Findings: {counts['error']} errors, {counts['warning']} warnings, "
            f"{counts['info']} notes"
        )
        lines += [
            f"  {f.severity.upper():7} {f.code:8} {f.field}: {f.message}"
            for f in self.findings
        ]
        return "\n".join(lines) + "\n"


def compute_lines(a: Assessment) -> list[str]:
    """The compute estimate, MFU check and system comparison, for people."""
    lines = []
    e = a.compute_estimate
    if e:
        lines.append(f"Compute estimate on {e.system or 'no system'}:")
        for entry in e.entries:
            shown = (
                f"{hours(entry.gpu_hours)} GPU-hours"
                if entry.gpu_hours
                else "incomplete"
            )
            lines.append(
                f"  {entry.name or 'code ' + str(entry.code + 1)}: {entry.formula} "
                f"({entry.mfu_from}): {shown}"
                + (f"; needs {', '.join(entry.missing)}" if entry.missing else "")
            )
        if e.ratio is not None:
            lines.append(
                f"  Job plan {e.plan_rows_from}: {hours(e.plan_training_gpu_hours)} "
                f"GPU-hours, {ratio(e.ratio)} the estimate"
            )
    if a.mfu_check:
        lines.append("MFU check (implied from throughput, 6·N per token):")
        lines += [
            f"  {grouped(r.gpus, 0):>6} GPUs  stated "
            + (points(r.stated_pct, 6) if r.stated_pct is not None else "-")
            + f"  implied {points(r.aggregate_pct, 1, trim=False)} in all, "
            f"{points(r.per_gpu_pct, 1, trim=False)} per GPU"
            for r in a.mfu_check
        ]
    c = a.systems_comparison
    if c and c.base_gpu_hours:
        lines.append(
            "Other systems (GPU-hours rescaled; * estimate from the peak ratio: "
            "optimistic towards a newer GPU of the same vendor, overstated towards "
            "an older one, off either way between vendors):"
        )
        for o in c.options:
            shown = f"{hours(o.gpu_hours):>12}" if o.gpu_hours is not None else " " * 12
            limits = ", ".join(
                [f"walltime: {t}" for t in o.walltime_hits]
                + [f"nodes: {t}" for t in o.node_limit_hits]
            )
            lines.append(
                f"  {o.name:<20} {shown}{'*' if o.estimated else ' '}  "
                f"{o.tier_label or '-':<12} "
                f"{o.largest_job_nodes or '-'} nodes/job"
                + (" (target)" if o.is_target else "")
                + (f"  limit hit: {limits}" if limits else "")
            )
    return lines


def _point(p: ScalingPoint, with_code: bool) -> dict:
    row = {
        "gpus": p.gpus,
        "throughput": n(p.throughput),
        "unit": p.unit,
        "speedup": n(p.speedup),
        "efficiency": n(p.efficiency),
        "mfu_pct": n(p.mfu_pct),
        "comm_overhead_pct": n(p.comm_overhead_pct),
    }
    if with_code:
        row = {"code": p.code, **row}
    return row


def _projection(p: Projection | None) -> dict | None:
    if p is None:
        return None
    return {
        "target_gpus": p.target_gpus,
        "largest_measured_gpus": p.largest_measured_gpus,
        "extrapolation_factor": n(p.extrapolation_factor),
        "models": {
            "amdahl": {
                "serial_fraction": n(p.serial_fraction),
                "speedup": n(p.amdahl_speedup),
                "efficiency": n(p.amdahl_efficiency),
            },
            "log2_linear": {
                "slope": n(p.log2_slope),
                "intercept": n(p.log2_intercept),
                "efficiency": n(p.log2_efficiency),
            },
        },
        "efficiency_low": n(p.efficiency_low),
        "efficiency_high": n(p.efficiency_high),
        "log2_below_zero": p.log2_below_zero,
        "extrapolation_allowed": p.extrapolation_allowed,
    }


def _energy(e: EnergyEstimate | None) -> dict | None:
    if e is None:
        return None
    return {
        "gpu_hours": n(e.gpu_hours),
        "gpu_power_w": n(e.gpu_power_w),
        "utilisation": n(e.utilisation),
        "energy_mwh": n(e.energy_mwh),
        "carbon_intensity_g_per_kwh": n(e.carbon_intensity_g_per_kwh),
        "carbon_t_co2e": n(e.carbon_t_co2e),
        "assumptions": list(e.assumptions),
    }


def mode_label(family, tier: str | None) -> str:
    """What the sidebar calls the request: the tier, or the family without tiers."""
    return tier_label(tier) if family.tiered else family.label


def target_gpus(proposal: Proposal, plan: JobPlan) -> int | None:
    """Maximum GPUs per job when given, else the largest job row."""
    declared = proposal.selection.max_gpus_per_job
    if declared is not None and declared > 0:
        return declared
    largest = plan.largest_job_gpus
    return largest if largest and largest > 0 else None


class _Evidence(NamedTuple):
    """What the measurements show for the tier: scaling data at two or more GPU
    counts, high-throughput evidence, a representative job measured below the
    jobs' size as (GPUs measured, GPUs per job), and whether the largest
    measurement reaches the target GPU count."""

    has_data: bool
    high_throughput: bool
    below: tuple[int, int] | None
    covers_target: bool


def _throughput_evidence(scal, analysis, target, family) -> _Evidence:
    has_data = any(len(s.distinct_gpus) >= 2 for s in analysis.series)
    largest_measured = max((p.gpus for p in analysis.points), default=0)
    # High-throughput evidence is a representative job measured (at the jobs' size)
    # with its runtime stability: a stability figure alone is no throughput data.
    # One measured below the jobs' size is said as such (``representative_below``).
    small_jobs = (
        scal.workload == "many_small_jobs"
        and scal.runtime_stability_pct is not None
        and (target or 0) <= (family.small_job_max_gpus or 0)
        and largest_measured > 0
    )
    high_throughput = small_jobs and largest_measured >= (target or 0)
    below = (largest_measured, target) if small_jobs and not high_throughput else None
    return _Evidence(
        has_data, high_throughput, below, bool(target) and largest_measured >= target
    )


def _needs_several_nodes(selection, plan, cluster) -> bool:
    """Whether some run (the declared largest job or a job row) needs more GPUs
    than one node of the target system has."""
    sizes = [selection.max_gpus_per_job or 0] + [row.gpus for row in plan.rows]
    return cluster is not None and max(sizes) > cluster.gpus_per_node


def assess(
    proposal: Proposal,
    catalogue: Catalogue,
    terms: CallTerms | None = None,
    countries: Countries | None = None,
    gpu_models: tuple[GpuModel, ...] | None = None,
) -> Assessment:
    """Assess ``proposal`` against the cluster ``catalogue`` (a slug -> Cluster map),
    the call ``terms`` (a family slug -> FamilyTerms map; default: the guides' terms
    of ``fixtures/call_terms.json``), the eligible ``countries`` (default: the
    shipped ``countries.json``) and the GPU variants' peaks (default: the shipped
    ``fixtures/gpu_models.json``)."""
    selection = proposal.selection
    scal = proposal.scalability
    cluster = catalogue.get(selection.system) if selection.system else None
    hours = selection.total_gpu_hours
    family = family_terms(terms, proposal.call_family)
    mode = family.mode_for_hours(hours)
    tier = mode.slug if mode and family.tiered else None
    plan = job_plan(scal.jobs, cluster)
    target = target_gpus(proposal, plan)
    analysis = analyse(scal.measurements)
    main_codes = tuple(i for i, c in enumerate(proposal.codes) if c.role == "main")
    projection = project(projection_series(analysis, main_codes), target, mode)
    multi_node = _needs_several_nodes(selection, plan, cluster)
    evidence = _throughput_evidence(scal, analysis, target, family)
    recommendation = recommend_tier(
        hours=hours,
        hpc_experience=proposal.experience.hpc_experience,
        stack_demonstrated=proposal.experience.stack_demonstrated_on_target,
        multi_node=multi_node,
        has_scaling_data=evidence.has_data,
        high_throughput_evidence=evidence.high_throughput,
        covers_target=evidence.covers_target,
        representative_below=evidence.below,
        family=family,
    )
    schedule = summarise(scal.schedule, hours, selection.duration_months)
    energy_hours = hours if hours is not None else plan.total_gpu_hours or None
    context = Context(
        proposal=proposal,
        catalogue=catalogue,
        cluster=cluster,
        family=family,
        mode=mode,
        tier=tier,
        recommendation=recommendation,
        plan=plan,
        analysis=analysis,
        projection=projection,
        schedule=schedule,
        target_gpus=target,
        multi_node=multi_node,
        has_scaling_data=evidence.has_data,
        high_throughput_evidence=evidence.high_throughput,
        representative_below=evidence.below,
        countries=countries,
        gpu_models=gpu_models,
    )
    return Assessment(
        tier=tier,
        mode=mode.slug if mode else None,
        mode_label=mode_label(family, tier),
        recommended_tier=recommendation.tier,
        reasons=recommendation.reasons,
        requested_gpu_hours=hours,
        target_gpus=target,
        plan=plan,
        analysis=analysis,
        projection=projection,
        schedule=schedule,
        energy=estimate(energy_hours, cluster),
        findings=tuple(run_rules(context)),
        billing=billing(cluster, hours, plan),
        call_request=call_request(mode, cluster, hours, plan),
        compute_estimate=compute_estimate(proposal, cluster, plan),
        mfu_check=mfu_check(proposal, catalogue, cluster, gpu_models),
        comparison_input=(proposal, catalogue, plan.total_gpu_hours, family),
    )
