"""PLAN rules (planning): the request on the calendar, and the narrative's figures
against the tables. PLAN-1 and PLAN-2 (the compute estimate) live in ``compute``.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..calendar import feasibility
from ..findings import WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop, ngettext
from ..narrative_figures import contradictions
from ..numbers import percent
from .common import num


def calendar_of(ctx: Context):
    """The calendar of the assessed proposal (see :mod:`..calendar`)."""
    selection = ctx.proposal.selection
    return feasibility(
        requested_gpu_hours=selection.total_gpu_hours,
        duration_months=selection.duration_months,
        plan=ctx.plan,
        cluster=ctx.cluster,
    )


@rule(
    "PLAN-3",
    severity=WARNING,
    title=gettext_noop("Request does not fit the calendar"),
    step="scalability",
)
def plan_calendar(ctx: Context) -> Iterator[Hit]:
    """Spread over the allocation's duration, the request needs more GPUs busy on
    average than the job plan ever runs at once (all its jobs in parallel), so it
    cannot be used up in time; a single job runs longer than the whole allocation;
    or the average number of busy nodes is more than the share of the target
    system one project can sensibly expect: 10 % of all its GPU nodes as the
    catalogue records them with a source (see "Systems" below;
    ``MAX_MACHINE_SHARE`` in ``proposals/domain/calendar.py``). A partition's node
    limit is a per-job limit and is never taken for the size."""
    cal = calendar_of(ctx)
    if cal is None:
        return
    months = ngettext("{n} month", "{n} months", cal.duration_months).format(
        n=num(cal.duration_months)
    )
    if cal.cannot_use_up:
        yield Hit(
            "scalability.jobs",
            _(
                "{hours} GPU-hours over {months} keep {busy} GPUs busy around the "
                "clock on average, but the job plan runs at most {parallel} GPUs at "
                "once, even with all its jobs in parallel: it cannot be used up in "
                "time. Plan more or larger jobs, ask for a longer allocation, or "
                "request fewer GPU-hours."
            ).format(
                hours=num(cal.gpu_hours),
                months=months,
                busy=num(cal.average_busy_gpus),
                parallel=num(cal.plan_parallel_gpus),
            ),
        )
    for job in cal.long_jobs:
        yield Hit(
            f"scalability.jobs[{job.index}].hours",
            _(
                "One job of this type runs {hours} hours, longer than the whole "
                "allocation ({calendar} hours in {months}): split it into shorter jobs "
                "that restart from checkpoints."
            ).format(
                hours=num(job.hours),
                calendar=num(round(cal.calendar_hours)),
                months=months,
            ),
        )
    if cal.too_large_share:
        yield Hit(
            "selection.total_gpu_hours",
            _(
                "Keeping {nodes} nodes busy on average for {months} is {share} of "
                "{system} ({system_nodes} GPU nodes in all), more than the {most} one "
                "project can expect: spread the work over a longer allocation or "
                "request fewer GPU-hours."
            ).format(
                nodes=num(round(cal.average_busy_nodes, 1)),
                months=months,
                share=percent(cal.machine_share, 1),
                system=cal.system_name,
                system_nodes=num(cal.system_nodes),
                most=percent(cal.max_share),
            ),
        )


@rule(
    "PLAN-4",
    severity=WARNING,
    title=gettext_noop("Narrative contradicts the computed figures"),
    step="scalability",
)
def plan_narrative_figures(ctx: Context) -> Iterator[Hit]:
    """The scalability narrative states an efficiency, a speedup, a throughput, a
    GPU count per job, a total of GPU-hours or the allocation's duration that the
    tables contradict: an efficiency, speedup or throughput at a measured GPU count
    that the measurement does not give (2 points, 5 % slack for rounding; a
    throughput only in the same unit), one at the target GPU count whose range does
    not overlap the projected band, a maximum job size other than the declared one,
    a GPU-hour total other than the requested one (and the job plan's), or an
    allocation of other months than the declared duration. Claims are read in
    English, German, French, Italian and Spanish (decimal commas, "GPU-Stunden",
    "heures GPU", "ore GPU", "horas de GPU", "Beschleunigung", "accélération") and
    in either word order ("92 % at 64 GPUs", "At 64 GPUs we reach 92 %"), and a
    speedup or efficiency over a range of counts ("from 8 to 64 GPUs ... 7.5x") is
    judged from the first count to the last when both were measured. A claim is
    compared only when the sentence pairs it with one GPU count unambiguously.
    Consistent, and never flagged: a range that overlaps the computed one, a bound
    that holds ("over 70 %"), a number that agrees in either of its readings
    ("1,200" is 1.2 in German), a part of the total ("Of the total, 12,288
    GPU-hours are for ablations", one job type's or one schedule period's hours), a
    phase of the allocation ("the first 2 months") and a figure in a sentence about
    another or an earlier allocation or system. A speedup over a named baseline
    ("3.5x over 4 GPUs") is judged at the count it is about, against that
    baseline's measurement."""
    for item in contradictions(
        ctx.proposal.scalability.narrative,
        analysis=ctx.analysis,
        projection=ctx.projection,
        plan=ctx.plan,
        requested_gpu_hours=ctx.proposal.selection.total_gpu_hours,
        target_gpus=ctx.target_gpus,
        gcds_per_gpu=ctx.cluster.gcds_per_gpu if ctx.cluster else 1,
        schedule_hours=tuple(
            period.gpu_hours for period in ctx.proposal.scalability.schedule
        ),
        duration_months=ctx.proposal.selection.duration_months,
    ):
        yield Hit(
            "scalability.narrative",
            _(
                "Your text says “{quote}”, but the tables give {computed}: make the "
                "text and the figures agree."
            ).format(quote=item.quote, computed=item.computed),
        )
