"""TIER rules: the tier the GPU-hours imply and what that tier expects.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import INFO, WARNING, Context, Hit, rule
from ..terms import REQUEST_UNITS, ModeTerms, months
from ..tiers import tier_label, tier_rank
from .common import num


def evidence(mode: ModeTerms) -> str:
    """What the mode's terms ask for, as a clause."""
    parts = []
    if mode.tests_description_required:
        parts.append(
            "describe the tests already done, or those this allocation enables"
        )
    if mode.job_plan_required:
        parts.append("a job plan")
    if mode.scaling_data_required:
        parts.append(
            "scaling measurements with the projected efficiency at your largest job "
            "size"
            if mode.extrapolation_allowed
            else "scaling measurements at the target size (no extrapolation)"
        )
    if mode.schedule_required:
        parts.append("a month-by-month usage schedule")
    if not parts:
        return "describe the work and the resources it needs"
    if not mode.tests_description_required:
        parts[0] = "give " + parts[0]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def bounds(ctx: Context) -> str:
    """The tiers' bounds from the terms: "Playground up to 5,000, ..."."""
    out = []
    for m in ctx.family.modes:
        if m.max_hours is not None:
            out.append(f"{tier_label(m.slug)} up to {num(m.max_hours)}")
        else:
            out.append(f"{tier_label(m.slug)} above")
    return ", ".join(out)


@rule("TIER-1", severity=INFO, title="Tier implied by the GPU-hours", step="selection")
def tier_implied(ctx: Context) -> Iterator[Hit]:
    """Always present: the tier that the total GPU-hours fall into under the call
    terms (see the call terms table) and what that tier expects; for a family without
    tiers, what its terms expect."""
    hours = ctx.proposal.selection.total_gpu_hours
    if not ctx.family.tiered:
        mode = ctx.mode
        what = evidence(mode) if mode else "describe the work"
        yield Hit(
            "selection.total_gpu_hours",
            f"{ctx.family.label} has no Playground, Fast Lane or Large Scale tiers: "
            f"{what}.",
        )
        return
    if ctx.tier is None:
        yield Hit(
            "selection.total_gpu_hours",
            f"Enter the total GPU-hours: the call tier follows from it ({bounds(ctx)}).",
        )
        return
    yield Hit(
        "selection.total_gpu_hours",
        f"{num(hours)} GPU-hours is a {tier_label(ctx.tier)} request: "
        f"{evidence(ctx.mode)}.",
    )


@rule(
    "TIER-2",
    severity=WARNING,
    title="Job size above the tier's guidance",
    step="selection",
)
def tier_job_size(ctx: Context) -> Iterator[Hit]:
    """The largest job (maximum GPUs per job, else the largest job row) is above the
    GPUs-per-job guidance of the tier's terms (see the call terms below)."""
    limit = ctx.mode.max_gpus_per_job if ctx.mode else None
    if limit is None or ctx.target_gpus is None or ctx.target_gpus <= limit:
        return
    field = "selection.max_gpus_per_job"
    if ctx.proposal.selection.max_gpus_per_job is None:
        row = max(ctx.plan.rows, key=lambda r: r.gpus)
        field = f"scalability.jobs[{row.index}].gpus"
    yield Hit(
        field,
        f"{tier_label(ctx.tier)} is meant for jobs of up to {limit} GPUs; "
        f"{ctx.target_gpus} GPUs per job needs a strong justification or a larger "
        "tier.",
    )


@rule(
    "TIER-3",
    severity=WARNING,
    title="Recommended tier lower than requested",
    step="selection",
)
def tier_recommended_lower(ctx: Context) -> Iterator[Hit]:
    """The guides' quick selection points to a lower tier than the hours imply; the
    reasons are listed in the message."""
    recommended = ctx.recommendation.tier
    if recommended is None or tier_rank(recommended) >= tier_rank(ctx.tier):
        return
    reasons = " ".join(ctx.recommendation.reasons)
    yield Hit(
        "selection.total_gpu_hours",
        f"Quick selection suggests {tier_label(recommended)} rather than "
        f"{tier_label(ctx.tier)}. {reasons} Consider a smaller request first to "
        "collect the missing evidence.",
    )


@rule(
    "TIER-4",
    severity=WARNING,
    title="Multi-node runs without scaling data",
    step="scalability",
)
def tier_multi_node_without_data(ctx: Context) -> Iterator[Hit]:
    """Some run needs more than one node of the target system, the tier's terms
    require scaling data, and there are no scaling measurements (and no
    high-throughput evidence) to back it. Quiet in Playground: the guides send
    multi-node tests without scaling data there."""
    if not ctx.multi_node or ctx.has_scaling_data or ctx.high_throughput_evidence:
        return
    if ctx.mode is None or not ctx.mode.scaling_data_required:
        return
    per_node = ctx.cluster.gpus_per_node
    field = "selection.max_gpus_per_job"
    if (ctx.proposal.selection.max_gpus_per_job or 0) <= per_node:
        row = next(r for r in ctx.plan.rows if r.gpus > per_node)
        field = f"scalability.jobs[{row.index}].gpus"
    yield Hit(
        field,
        f"Runs above one node ({per_node} GPUs on {ctx.cluster.name}) need scaling "
        "measurements at two or more GPU counts; add them, keep jobs to one node, or "
        "request Playground to measure first.",
    )


@rule(
    "TIER-5",
    severity=WARNING,
    title="Duration outside the call's terms",
    step="selection",
)
def tier_duration(ctx: Context) -> Iterator[Hit]:
    """The allocation duration is not one the terms list for the tier (or, for a
    family without tiers, for the family; see the call terms below). The advice
    names a tier whose terms list the duration, when there is one; a family without
    tiers is only asked to adjust the duration."""
    duration = ctx.proposal.selection.duration_months
    mode = ctx.mode
    if duration is None or mode is None or not mode.durations_months:
        return
    if duration in mode.durations_months:
        return
    advice = "Adjust the duration."
    if ctx.family.tiered:
        name = tier_label(ctx.tier)
        fitting = [m for m in ctx.family.modes if duration in m.durations_months]
        if fitting:
            other = fitting[0]
            advice = (
                f"Adjust the duration, or the request to {tier_label(other.slug)} "
                f"({months(other.durations_months)}) if the work fits that tier."
            )
    else:
        name = ctx.family.label
    yield Hit(
        "selection.duration_months",
        f"{name} allocations last {months(mode.durations_months)}; "
        f"{duration} months is outside those terms. {advice}",
    )


@rule(
    "TIER-6",
    severity=WARNING,
    title="Request below the tier's minimum",
    step="selection",
)
def tier_gap(ctx: Context) -> Iterator[Hit]:
    """The requested hours are above the smaller tier's bound but below the minimum
    the terms give for the tier they fall into, only when the terms leave such a
    gap between two tiers: a minimum more than one whole GPU-hour above the smaller
    tier's bound. The guides' bounds (up to 5,000, from 5,001) leave none, so
    5,000.5 GPU-hours is simply Fast Lane."""
    mode = ctx.mode
    hours = ctx.proposal.selection.total_gpu_hours
    if not ctx.family.tiered or mode is None or hours is None:
        return
    if mode is ctx.family.modes[0] or mode.min_hours is None or hours >= mode.min_hours:
        return
    smaller = ctx.family.modes[ctx.family.modes.index(mode) - 1]
    if smaller.max_hours is not None and mode.min_hours <= smaller.max_hours + 1:
        return
    unit = REQUEST_UNITS.get(mode.request_unit, "GPU-hours")
    yield Hit(
        "selection.total_gpu_hours",
        f"{tier_label(ctx.tier)} requests start at {num(mode.min_hours)} {unit}; "
        f"{num(hours)} is below that. Request at least the minimum, or reduce the "
        "request to the smaller tier.",
    )
