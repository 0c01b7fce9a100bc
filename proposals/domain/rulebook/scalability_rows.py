"""SCAL rules on the rows themselves: duplicate or implausible measurements,
walltimes, invalid schedule, measurement and job rows, units and stability.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import ERROR, INFO, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop
from ..numbers import percent
from ..scaling import SUPERLINEAR_EFFICIENCY
from .common import num
from .scalability import requires


@rule(
    "SCAL-11",
    severity=WARNING,
    title=gettext_noop("Implausible scaling data"),
    step="scalability",
)
def scal_check_data(ctx: Context) -> Iterator[Hit]:
    """Efficiency above 100% (super-linear scaling), or the same GPU count measured
    twice for one code entry."""
    for series in ctx.analysis.series:
        seen = set()
        for p in series.points:
            if p.gpus in seen:
                yield Hit(
                    f"scalability.measurements[{p.index}].gpus",
                    _(
                        "{gpus} GPUs is measured more than once; keep one row per GPU "
                        "count (the average is used for the projection)."
                    ).format(gpus=num(p.gpus)),
                )
            seen.add(p.gpus)
            if p.efficiency > SUPERLINEAR_EFFICIENCY:
                yield Hit(
                    f"scalability.measurements[{p.index}].throughput",
                    _(
                        "Efficiency {efficiency} is above 100%; check the throughput "
                        "figures and say why if it is real."
                    ).format(efficiency=percent(p.efficiency)),
                )


@rule(
    "SCAL-12",
    severity=WARNING,
    title=gettext_noop("Walltime above partition limit"),
    step="scalability",
)
def scal_walltime(ctx: Context) -> Iterator[Hit]:
    """A job type runs longer than any partition that fits its node count allows
    (partitions without a recorded limit are not judged)."""
    for row in ctx.plan.rows:
        if row.walltime_ok is False:
            # A walltime verdict needs the system and the job's nodes (jobplan).
            cluster, nodes = ctx.cluster, row.nodes
            assert cluster is not None and nodes is not None
            limit = max(
                p.max_walltime_hours
                for p in cluster.partitions
                if (p.max_nodes is None or nodes <= p.max_nodes)
                and p.max_walltime_hours is not None
            )
            yield Hit(
                f"scalability.jobs[{row.index}].hours",
                _(
                    "{hours} h is above the {limit} h limit for a {nodes}-node job on "
                    "{system}; split the job into checkpointed segments."
                ).format(
                    hours=num(row.hours),
                    limit=num(limit),
                    nodes=num(row.nodes),
                    system=cluster.name,
                ),
            )


@rule(
    "SCAL-13",
    severity=ERROR,
    title=gettext_noop("Invalid schedule row"),
    step="scalability",
)
def scal_schedule_rows(ctx: Context) -> Iterator[Hit]:
    """A schedule row starts before month 1, ends before it starts, or has negative
    GPU-hours."""
    for index, row in enumerate(ctx.proposal.scalability.schedule):
        path = f"scalability.schedule[{index}]"
        if row.from_month < 1:
            yield Hit(f"{path}.from_month", _("Months are counted from 1."))
        if row.to_month < row.from_month:
            yield Hit(f"{path}.to_month", _("The last month is before the first."))
        if row.gpu_hours < 0:
            yield Hit(f"{path}.gpu_hours", _("GPU-hours cannot be negative."))


@rule(
    "SCAL-14",
    severity=ERROR,
    title=gettext_noop("Unusable measurement"),
    step="scalability",
)
def scal_unusable(ctx: Context) -> Iterator[Hit]:
    """A measurement has no positive GPU count or throughput, or refers to a code
    entry that does not exist; it is left out of the table."""
    codes = len(ctx.proposal.codes)
    for index, m in enumerate(ctx.proposal.scalability.measurements):
        path = f"scalability.measurements[{index}]"
        if index in ctx.analysis.unusable:
            if not (isinstance(m.gpus, int) and m.gpus > 0):
                yield Hit(f"{path}.gpus", _("Enter a GPU count of at least 1."))
            else:
                yield Hit(f"{path}.throughput", _("Enter a throughput above zero."))
        if m.code is not None and not 0 <= m.code < codes:
            yield Hit(f"{path}.code", _("This measurement refers to no code entry."))


@rule(
    "SCAL-15",
    severity=INFO,
    title=gettext_noop("Measurements not in GPU order"),
    step="scalability",
)
def scal_unsorted(ctx: Context) -> Iterator[Hit]:
    """Measurements are not listed in ascending GPU count; tables show them sorted."""
    if ctx.analysis.unsorted:
        yield Hit(
            "scalability.measurements",
            _(
                "The measurements are shown sorted by GPU count; the smallest count is "
                "the base of speedup and efficiency."
            ),
        )


@rule(
    "SCAL-16",
    severity=WARNING,
    title=gettext_noop("Mixed throughput units"),
    step="scalability",
)
def scal_units(ctx: Context) -> Iterator[Hit]:
    """The measurements of one code entry use different throughput units, so their
    speedups are meaningless."""
    for series in ctx.analysis.series:
        if len(series.units) > 1:
            yield Hit(
                f"scalability.measurements[{series.points[0].index}].unit",
                _(
                    "Measurements of one code use different units ({units}); use one "
                    "unit."
                ).format(units=_(", ").join(u or _("none") for u in series.units)),
            )


@rule(
    "SCAL-17", severity=ERROR, title=gettext_noop("Invalid job row"), step="scalability"
)
def scal_job_rows(ctx: Context) -> Iterator[Hit]:
    """A job type has no positive GPU count, duration or number of jobs."""
    for index, job in enumerate(ctx.proposal.scalability.jobs):
        for name, value in (
            ("gpus", job.gpus),
            ("hours", job.hours),
            ("count", job.count),
        ):
            if not value > 0:
                yield Hit(
                    f"scalability.jobs[{index}].{name}", _("Enter a value above zero.")
                )


@rule(
    "SCAL-18",
    severity=WARNING,
    title=gettext_noop("Many small jobs without stability figure"),
    step="scalability",
)
def scal_stability(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require scaling data (Fast Lane, Large Scale): the workload
    is many small independent jobs but no runtime stability figure (for example ±5%)
    from a representative job is given. (Playground needs no scaling data.)"""
    scal = ctx.proposal.scalability
    if not requires(ctx, "scaling_data_required"):
        return
    if scal.workload == "many_small_jobs" and scal.runtime_stability_pct is None:
        yield Hit(
            "scalability.runtime_stability_pct",
            _(
                "Run a representative job several times and give the runtime spread "
                "(for example ±5%)."
            ),
        )
