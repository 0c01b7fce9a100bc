"""TIER rules: the tier the GPU-hours imply and what that tier expects.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import INFO, WARNING, Context, Hit, rule
from ..tiers import (
    FAST_LANE,
    LARGE_SCALE,
    MAX_GPUS_GUIDANCE,
    PLAYGROUND,
    tier_label,
    tier_rank,
)
from .common import num

TIER_EVIDENCE = {
    PLAYGROUND: "describe the tests already done, or those this allocation enables",
    FAST_LANE: "give a job plan and scaling measurements with the projected "
    "efficiency at your largest job size",
    LARGE_SCALE: "give a job plan, scaling measurements at the target size (no "
    "extrapolation) and a month-by-month usage schedule",
}


@rule("TIER-1", severity=INFO, title="Tier implied by the GPU-hours", step="selection")
def tier_implied(ctx: Context) -> Iterator[Hit]:
    """Always present: the tier that the total GPU-hours fall into (Playground up to
    5,000, Fast Lane up to 50,000, Large Scale above) and what that tier expects."""
    hours = ctx.proposal.selection.total_gpu_hours
    if ctx.tier is None:
        yield Hit(
            "selection.total_gpu_hours",
            "Enter the total GPU-hours: the call tier follows from it (Playground up "
            "to 5,000, Fast Lane up to 50,000, Large Scale above).",
        )
        return
    yield Hit(
        "selection.total_gpu_hours",
        f"{num(hours)} GPU-hours is a {tier_label(ctx.tier)} request: "
        f"{TIER_EVIDENCE[ctx.tier]}.",
    )


@rule(
    "TIER-2",
    severity=WARNING,
    title="Job size above the tier's guidance",
    step="selection",
)
def tier_job_size(ctx: Context) -> Iterator[Hit]:
    """The largest job (maximum GPUs per job, else the largest job row) is above the
    tier's guidance: 8 GPUs for Playground, 64 for Fast Lane."""
    limit = MAX_GPUS_GUIDANCE.get(ctx.tier) if ctx.tier else None
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
    """Some run needs more than one node of the target system, but there are no
    scaling measurements (and no high-throughput evidence) to back it."""
    if not ctx.multi_node or ctx.has_scaling_data or ctx.high_throughput_evidence:
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
