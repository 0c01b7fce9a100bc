"""TIER rules: the tier the GPU-hours imply and what that tier expects.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..call_unit import call_request, in_request_unit
from ..findings import INFO, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop, join_and, ngettext
from ..terms import REQUEST_UNITS, ModeTerms, months, unit_label
from ..tiers import tier_label, tier_rank
from .common import num


def evidence(mode: ModeTerms) -> str:
    """What the mode's terms ask for, as a clause."""
    parts = []
    if mode.job_plan_required:
        parts.append(_("a job plan"))
    if mode.scaling_data_required:
        parts.append(
            _(
                "scaling measurements with the projected efficiency at your largest "
                "job size"
            )
            if mode.extrapolation_allowed
            else _("scaling measurements at the target size (no extrapolation)")
        )
    if mode.schedule_required:
        parts.append(_("a month-by-month usage schedule"))
    if mode.tests_description_required:
        tests = _("describe the tests already done, or those this allocation enables")
        return join_and([tests, *parts])
    if not parts:
        return _("describe the work and the resources it needs")
    return _("give {evidence}").format(evidence=join_and(parts))


def bounds(ctx: Context) -> str:
    """The tiers' bounds from the terms: "Playground up to 5,000, ..."."""
    out = []
    for m in ctx.family.modes:
        if m.max_hours is not None:
            out.append(
                _("{tier} up to {hours}").format(
                    tier=tier_label(m.slug), hours=num(m.max_hours)
                )
            )
        else:
            out.append(_("{tier} above").format(tier=tier_label(m.slug)))
    return _(", ").join(out)


@rule(
    "TIER-1",
    severity=INFO,
    title=gettext_noop("Tier implied by the GPU-hours"),
    step="selection",
)
def tier_implied(ctx: Context) -> Iterator[Hit]:
    """Always present: the tier that the total GPU-hours fall into under the call
    terms (see the call terms table) and what that tier expects; for a family without
    tiers, what its terms expect."""
    hours = ctx.proposal.selection.total_gpu_hours
    if not ctx.family.tiered:
        mode = ctx.mode
        what = evidence(mode) if mode else _("describe the work")
        yield Hit(
            "selection.total_gpu_hours",
            _(
                "{family} has no Playground, Fast Lane or Large Scale tiers: {what}."
            ).format(family=ctx.family.label, what=what),
        )
        return
    if ctx.tier is None:
        yield Hit(
            "selection.total_gpu_hours",
            _(
                "Enter the total GPU-hours: the call tier follows from it ({bounds})."
            ).format(bounds=bounds(ctx)),
        )
        return
    assert ctx.mode is not None  # a tier comes with its terms
    yield Hit(
        "selection.total_gpu_hours",
        _("{hours} GPU-hours is a {tier} request: {what}.").format(
            hours=num(hours), tier=tier_label(ctx.tier), what=evidence(ctx.mode)
        ),
    )


@rule(
    "TIER-2",
    severity=WARNING,
    title=gettext_noop("Job size above the tier's guidance"),
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
        _(
            "{tier} is meant for jobs of up to {limit} GPUs; {gpus} GPUs per job "
            "needs a strong justification or a larger tier."
        ).format(
            tier=tier_label(ctx.tier), limit=num(limit), gpus=num(ctx.target_gpus)
        ),
    )


@rule(
    "TIER-3",
    severity=WARNING,
    title=gettext_noop("Recommended tier lower than requested"),
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
        _(
            "Quick selection suggests {recommended} rather than {tier}. {reasons} "
            "Consider a smaller request first to collect the missing evidence."
        ).format(
            recommended=tier_label(recommended),
            tier=tier_label(ctx.tier),
            reasons=reasons,
        ),
    )


@rule(
    "TIER-4",
    severity=WARNING,
    title=gettext_noop("Multi-node runs without scaling data"),
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
    cluster = ctx.cluster
    assert cluster is not None  # multi_node: above one node of the target system
    per_node = cluster.gpus_per_node
    field = "selection.max_gpus_per_job"
    if (ctx.proposal.selection.max_gpus_per_job or 0) <= per_node:
        row = next(r for r in ctx.plan.rows if r.gpus > per_node)
        field = f"scalability.jobs[{row.index}].gpus"
    yield Hit(
        field,
        _(
            "Runs above one node ({per_node} GPUs on {system}) need scaling "
            "measurements at two or more GPU counts; add them, keep jobs to one node, "
            "or request Playground to measure first."
        ).format(per_node=num(per_node), system=cluster.name),
    )


@rule(
    "TIER-5",
    severity=(WARNING, INFO),
    title=gettext_noop("Duration outside the call's terms"),
    step="selection",
)
def tier_duration(ctx: Context) -> Iterator[Hit]:
    """The allocation duration is not one the terms list for the tier (or, for a
    family without tiers, for the family; see the call terms below). The advice
    names a tier whose terms list the duration, when there is one; a family without
    tiers is only asked to adjust the duration. A note, not a warning, where the
    terms' source gives the duration only roughly ("about 6-month allocations", the
    AI for Science figure): the request is asked to be checked against the call
    text."""
    duration = ctx.proposal.selection.duration_months
    mode = ctx.mode
    if duration is None or mode is None or not mode.durations_months:
        return
    if duration in mode.durations_months:
        return
    source = mode.source("durations_months")
    if source is not None and source.approximate:
        name = tier_label(ctx.tier) if ctx.family.tiered else ctx.family.label
        yield Hit(
            "selection.duration_months",
            ngettext(
                "{name} allocations last about {durations}, by a source that gives "
                "no exact figure; {duration} month differs from that. Check the "
                "current call text for the durations it allows.",
                "{name} allocations last about {durations}, by a source that gives "
                "no exact figure; {duration} months differs from that. Check the "
                "current call text for the durations it allows.",
                duration,
            ).format(
                name=name,
                durations=months(mode.durations_months),
                duration=num(duration),
            ),
            severity=INFO,
        )
        return
    advice = _("Adjust the duration.")
    if ctx.family.tiered:
        name = tier_label(ctx.tier)
        fitting = [m for m in ctx.family.modes if duration in m.durations_months]
        if fitting:
            other = fitting[0]
            advice = _(
                "Adjust the duration, or the request to {tier} ({durations}) if the "
                "work fits that tier."
            ).format(
                tier=tier_label(other.slug), durations=months(other.durations_months)
            )
    else:
        name = ctx.family.label
    yield Hit(
        "selection.duration_months",
        ngettext(
            "{name} allocations last {durations}; {duration} month is outside those "
            "terms. {advice}",
            "{name} allocations last {durations}; {duration} months is outside those "
            "terms. {advice}",
            duration,
        ).format(
            name=name,
            durations=months(mode.durations_months),
            duration=num(duration),
            advice=advice,
        ),
    )


@rule(
    "TIER-6",
    severity=WARNING,
    title=gettext_noop("Request below the tier's minimum"),
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
    unit = REQUEST_UNITS.get(mode.request_unit) or _("GPU-hours")
    yield Hit(
        "selection.total_gpu_hours",
        _(
            "{tier} requests start at {minimum} {unit}; {hours} is below that. Request "
            "at least the minimum, or reduce the request to the smaller tier."
        ).format(
            tier=tier_label(ctx.tier),
            minimum=num(mode.min_hours),
            unit=unit,
            hours=num(hours),
        ),
    )


@rule(
    "TIER-7",
    severity=WARNING,
    title=gettext_noop("Request outside the call's bounds"),
    step="selection",
)
def call_bounds(ctx: Context) -> Iterator[Hit]:
    """In a family without tiers whose terms give a minimum or a maximum request,
    the total requested, in the unit the call counts (node-hours: the GPU-hours
    over the target system's GPUs per node), is below that minimum or above that
    maximum. A node-hour call is checked once the target system is chosen."""
    mode, hours, cluster = ctx.mode, ctx.proposal.selection.total_gpu_hours, ctx.cluster
    if ctx.family.tiered or mode is None or hours is None or hours <= 0:
        return
    gpus = cluster.gpus_per_node if cluster else None
    request = in_request_unit(hours, mode.request_unit, gpus)
    low, high = mode.min_hours, mode.max_hours
    if request is None or (
        (low is None or request >= low) and (high is None or request <= high)
    ):
        return
    unit = unit_label(mode.request_unit)
    found = call_request(mode, cluster, hours, ctx.plan)
    amount = found.amount(hours) if found else f"{num(hours)} {unit}"
    if high is not None and request > high:
        bound = _("at most {high} {unit} per project").format(high=num(high), unit=unit)
    else:
        bound = _("at least {low} {unit} per project").format(low=num(low), unit=unit)
    yield Hit(
        "selection.total_gpu_hours",
        _("{family} grants {bound}; you request {amount}.").format(
            family=ctx.family.label, bound=bound, amount=amount
        ),
    )
