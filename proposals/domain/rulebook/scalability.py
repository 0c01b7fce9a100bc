"""SCAL rules: job plan, scaling measurements, projection and usage schedule.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..findings import ERROR, INFO, WARNING, Context, Hit, rule
from ..scaling import SUPERLINEAR_EFFICIENCY
from ..schedule import hours_match
from ..terms import ModeTerms
from ..tiers import tier_label
from .common import num

GPU_TOKEN = re.compile(r"[A-Za-z]+\d+[A-Za-z]*")


def _squash(text: str) -> str:
    """Lower case, letters and digits only: "MI 250X", "mi-250x" -> "mi250x"."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _initials(name: str) -> str:
    """ "MareNostrum 5 ACC" -> "mn5": capitals of the first word, then its number."""
    words = re.split(r"[\s-]+", name)
    caps = "".join(ch for ch in words[0] if ch.isupper())
    digits = words[1] if len(words) > 1 and words[1].isdigit() else ""
    return (caps + digits).lower() if len(caps) >= 2 and digits else ""


def hardware_names(cluster) -> set[str]:
    """Squashed ways people name the target hardware: the system's name, short name
    and initials ("lumig", "lumi", "marenostrum5", "mn5"), its slug, and the GPU model's
    type tokens ("mi250x", "h100", "gh200")."""
    names = {_squash(cluster.name), _squash(cluster.slug)}
    words = re.split(r"[\s-]+", cluster.name)
    if len(words[0]) >= 4:
        names.add(_squash(words[0]))
    if len(words) > 1 and words[1].isdigit():
        names.add(_squash(words[0] + words[1]))
    names.add(_initials(cluster.name))
    names |= {t.lower() for t in GPU_TOKEN.findall(cluster.gpu_model)}
    return {n for n in names if len(n) >= 3}


def names_target(text: str, names: set[str]) -> bool:
    """Whether ``text`` names the target: a name as a whole token ("LUMI-G",
    "8x H100", "MI250X GCDs"), compared without case, spaces or hyphens."""
    spaced = re.sub(r"(?<=[A-Za-z])[\s-]+(?=\d)", "", text)  # "MI 250X" -> "MI250X"
    spaced = re.sub(r"(?<=\d)[x×](?=[A-Za-z])", " ", spaced)  # "8xH100" -> "8 H100"
    tokens = [_squash(t) for t in re.split(r"[\s,;()/+-]+", spaced) if t]
    joined = ["".join(tokens[i : i + 3]) for i in range(len(tokens))]
    return any(
        token == name or token.startswith(name) and not token[len(name)].isdigit()
        for name in names
        for token in tokens + joined
        if token
    )


def requires(ctx: Context, evidence: str) -> bool:
    """Whether the terms of the request's mode ask for ``evidence`` (a ModeTerms
    flag such as ``job_plan_required``)."""
    return ctx.mode is not None and bool(getattr(ctx.mode, evidence))


def extrapolating(mode: ModeTerms | None) -> bool:
    """A mode that wants scaling data and accepts projections beyond it."""
    return bool(mode and mode.scaling_data_required and mode.extrapolation_allowed)


def name(ctx: Context) -> str:
    """The request's tier, or its family when the family has no tiers."""
    return tier_label(ctx.tier) if ctx.family.tiered else ctx.family.label


@rule(
    "SCAL-1",
    severity=WARNING,
    title="Playground without test description",
    step="scalability",
)
def scal_playground_tests(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms ask for a description of tests (Playground): the
    scalability text is empty or too short to describe the tests already done or
    planned."""
    narrative = ctx.proposal.scalability.narrative.strip()
    if requires(ctx, "tests_description_required") and len(narrative) < 40:
        yield Hit(
            "scalability.narrative",
            "Describe the tests you have run (any hardware), or the measurements "
            "this allocation will let you make.",
        )


@rule("SCAL-2", severity=ERROR, title="No job plan", step="scalability")
def scal_job_plan(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require a job plan (Fast Lane, Large Scale): no job types
    are listed."""
    if requires(ctx, "job_plan_required") and not ctx.proposal.scalability.jobs:
        yield Hit(
            "scalability.jobs",
            "List the job types (title, GPUs, hours, number of jobs): the job plan "
            "is the main justification of the requested hours.",
        )


@rule(
    "SCAL-3",
    severity=(ERROR, WARNING),
    title="Job plan total differs from request",
    step="scalability",
)
def scal_total(ctx: Context) -> Iterator[Hit]:
    """The job plan's GPU-hours do not add up to the requested total: an error where
    the terms require a job plan (Fast Lane, Large Scale), a warning where they ask
    for none (Playground, AI for Science: one given should still agree)."""
    requested = ctx.proposal.selection.total_gpu_hours
    planned = ctx.plan.total_gpu_hours
    if requested is None or not ctx.plan.rows or hours_match(planned, requested):
        return
    yield Hit(
        "scalability.jobs",
        f"The job plan adds up to {num(planned)} GPU-hours but {num(requested)} are "
        f"requested (difference {num(planned - requested)}); make them agree.",
        WARNING if ctx.mode is not None and not ctx.mode.job_plan_required else None,
    )


@rule(
    "SCAL-4", severity=ERROR, title="Job above the max GPUs per job", step="scalability"
)
def scal_job_above_max(ctx: Context) -> Iterator[Hit]:
    """A job type uses more GPUs than the declared maximum GPUs per job."""
    limit = ctx.proposal.selection.max_gpus_per_job
    for row in ctx.plan.rows:
        if limit is not None and row.gpus > limit:
            yield Hit(
                f"scalability.jobs[{row.index}].gpus",
                f"This job uses {row.gpus} GPUs, more than the declared maximum of "
                f"{limit}; raise the maximum or shrink the job.",
            )


@rule(
    "SCAL-5", severity=ERROR, title="Too few scaling measurements", step="scalability"
)
def scal_measurements(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require scaling data (Fast Lane, Large Scale): fewer than
    two usable measurements at distinct GPU counts, unless the workload is many small
    jobs with a runtime stability figure and a representative job measured at the
    jobs' size (a stability figure without a measurement is no throughput data)."""
    if requires(ctx, "scaling_data_required") and not (
        ctx.has_scaling_data or ctx.high_throughput_evidence
    ):
        yield Hit(
            "scalability.measurements",
            "Add throughput measurements at two or more GPU counts (for example 1, 2 "
            "and 4 GPUs), or, for many independent small jobs, a representative job "
            "and its runtime stability.",
        )


@rule(
    "SCAL-6",
    severity=WARNING,
    title="Extrapolation beyond the data",
    step="scalability",
)
def scal_fast_lane_extrapolation(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms allow extrapolation within limits (Fast Lane: a largest
    factor over the largest measured GPU count, and a widest band between the two
    models at the target; see the call terms below): the projection goes beyond
    those limits."""
    p = ctx.projection
    if not extrapolating(ctx.mode) or p is None or p.extrapolation_allowed:
        return
    factor_limit = ctx.mode.max_extrapolation_factor
    band_limit = ctx.mode.max_projection_band
    problems = []
    if factor_limit is not None and p.extrapolation_factor > factor_limit:
        problems.append(
            f"{p.target_gpus} GPUs is {p.extrapolation_factor:.1f} times the largest "
            f"measurement ({p.largest_measured_gpus})"
        )
    if band_limit is not None and p.band_width > band_limit:
        problems.append(
            f"the projected efficiency ranges from {p.efficiency_low:.0%} to "
            f"{p.efficiency_high:.0%}"
        )
    yield Hit(
        "selection.max_gpus_per_job",
        "The data does not support this extrapolation: "
        + " and ".join(problems)
        + ". Measure closer to the target size.",
    )


@rule(
    "SCAL-7",
    severity=ERROR,
    title="Large Scale target above measured scale",
    step="scalability",
)
def scal_large_scale_extrapolation(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require scaling data without extrapolation (Large Scale):
    the target GPU count is above the largest measured count."""
    points = ctx.analysis.points
    mode = ctx.mode
    if not requires(ctx, "scaling_data_required") or mode.extrapolation_allowed:
        return
    if not points or not ctx.target_gpus:
        return
    largest = max(p.gpus for p in points)
    if ctx.target_gpus > largest:
        yield Hit(
            "selection.max_gpus_per_job",
            f"{name(ctx)} needs measurements at the target size, but the largest "
            f"is {largest} GPUs for a target of {ctx.target_gpus}. Measure at the "
            "target size, or request Fast Lane first to collect the data.",
        )


@rule(
    "SCAL-8",
    severity=ERROR,
    title="Usage schedule missing or inconsistent",
    step="scalability",
)
def scal_schedule(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require a usage schedule (Large Scale): no usage schedule,
    its sum differs from the requested total, or it runs past the allocation's
    duration."""
    if not requires(ctx, "schedule_required"):
        return
    summary = ctx.schedule
    if not summary.rows:
        yield Hit(
            "scalability.schedule",
            "Add a usage schedule: GPU-hours per month or range of months.",
        )
        return
    if summary.matches_total is False:
        yield Hit(
            "scalability.schedule",
            f"The schedule adds up to {num(summary.total_gpu_hours)} GPU-hours, not "
            f"the {num(ctx.proposal.selection.total_gpu_hours)} requested.",
        )
    duration = ctx.proposal.selection.duration_months
    if duration is None:
        yield Hit(
            "selection.duration_months",
            "Enter the allocation duration so the schedule can be checked.",
        )
        return
    for index, row in enumerate(summary.rows):
        if max(row.from_month, row.to_month) > duration:
            yield Hit(
                f"scalability.schedule[{index}].to_month",
                f"Month {max(row.from_month, row.to_month)} is after the end of the "
                f"{duration}-month allocation.",
            )


@rule(
    "SCAL-9",
    severity=WARNING,
    title="No MFU or communication overhead",
    step="scalability",
)
def scal_mfu(ctx: Context) -> Iterator[Hit]:
    """Single large jobs in tiers whose terms require scaling data at the target
    size (Large Scale): no measurement gives MFU or communication overhead."""
    scal = ctx.proposal.scalability
    mode = ctx.mode
    if not requires(ctx, "scaling_data_required") or mode.extrapolation_allowed:
        return
    if scal.workload == "many_small_jobs":
        return
    if not any(
        m.mfu_pct is not None or m.comm_overhead_pct is not None
        for m in scal.measurements
    ):
        yield Hit(
            "scalability.measurements",
            "Large single jobs are expected to report MFU (model FLOPs utilisation) "
            "and communication overhead per measured size.",
        )


@rule(
    "SCAL-10",
    severity=(WARNING, INFO),
    title="Measured on other hardware",
    step="scalability",
)
def scal_hardware(ctx: Context) -> Iterator[Hit]:
    """Measurements whose hardware names neither the target system (name, short
    name, initials such as MN5) nor its GPU model (MI250X, H100, ...; spacing, case
    and hyphens do not matter), one finding per distinct hardware (info in
    Playground, where other hardware is fine; warning above)."""
    if ctx.cluster is None:
        return
    names = hardware_names(ctx.cluster)
    severity = WARNING if requires(ctx, "scaling_data_required") else INFO
    other: dict[str, list[int]] = {}
    for index, m in enumerate(ctx.proposal.scalability.measurements):
        if names and not names_target(m.hardware, names):
            other.setdefault(m.hardware.strip(), []).append(index)
    for hardware, indices in other.items():
        what = f"“{hardware}”" if hardware else "not stated"
        rows = (
            "This measurement"
            if len(indices) == 1
            else (f"{len(indices)} measurements")
        )
        yield Hit(
            f"scalability.measurements[{indices[0]}].hardware",
            f"{rows} ran on hardware {what}, not the {ctx.cluster.gpu_model} of "
            f"{ctx.cluster.name}; results on the target GPU carry more weight.",
            severity,
        )


@rule("SCAL-11", severity=WARNING, title="Implausible scaling data", step="scalability")
def scal_check_data(ctx: Context) -> Iterator[Hit]:
    """Efficiency above 100% (super-linear scaling), or the same GPU count measured
    twice for one code entry."""
    for series in ctx.analysis.series:
        seen = set()
        for p in series.points:
            if p.gpus in seen:
                yield Hit(
                    f"scalability.measurements[{p.index}].gpus",
                    f"{p.gpus} GPUs is measured more than once; keep one row per GPU "
                    "count (the average is used for the projection).",
                )
            seen.add(p.gpus)
            if p.efficiency > SUPERLINEAR_EFFICIENCY:
                yield Hit(
                    f"scalability.measurements[{p.index}].throughput",
                    f"Efficiency {p.efficiency:.0%} is above 100%; check the "
                    "throughput figures and say why if it is real.",
                )


@rule(
    "SCAL-12",
    severity=WARNING,
    title="Walltime above partition limit",
    step="scalability",
)
def scal_walltime(ctx: Context) -> Iterator[Hit]:
    """A job type runs longer than any partition that fits its node count allows
    (partitions without a recorded limit are not judged)."""
    for row in ctx.plan.rows:
        if row.walltime_ok is False:
            limit = max(
                p.max_walltime_hours
                for p in ctx.cluster.partitions
                if (p.max_nodes is None or row.nodes <= p.max_nodes)
                and p.max_walltime_hours is not None
            )
            yield Hit(
                f"scalability.jobs[{row.index}].hours",
                f"{num(row.hours)} h is above the {num(limit)} h limit for a "
                f"{row.nodes}-node job on {ctx.cluster.name}; split the job into "
                "checkpointed segments.",
            )


@rule("SCAL-13", severity=ERROR, title="Invalid schedule row", step="scalability")
def scal_schedule_rows(ctx: Context) -> Iterator[Hit]:
    """A schedule row starts before month 1, ends before it starts, or has negative
    GPU-hours."""
    for index, row in enumerate(ctx.proposal.scalability.schedule):
        path = f"scalability.schedule[{index}]"
        if row.from_month < 1:
            yield Hit(f"{path}.from_month", "Months are counted from 1.")
        if row.to_month < row.from_month:
            yield Hit(f"{path}.to_month", "The last month is before the first.")
        if row.gpu_hours < 0:
            yield Hit(f"{path}.gpu_hours", "GPU-hours cannot be negative.")


@rule("SCAL-14", severity=ERROR, title="Unusable measurement", step="scalability")
def scal_unusable(ctx: Context) -> Iterator[Hit]:
    """A measurement has no positive GPU count or throughput, or refers to a code
    entry that does not exist; it is left out of the table."""
    codes = len(ctx.proposal.codes)
    for index, m in enumerate(ctx.proposal.scalability.measurements):
        path = f"scalability.measurements[{index}]"
        if index in ctx.analysis.unusable:
            if not (isinstance(m.gpus, int) and m.gpus > 0):
                yield Hit(f"{path}.gpus", "Enter a GPU count of at least 1.")
            else:
                yield Hit(f"{path}.throughput", "Enter a throughput above zero.")
        if m.code is not None and not 0 <= m.code < codes:
            yield Hit(f"{path}.code", "This measurement refers to no code entry.")


@rule(
    "SCAL-15", severity=INFO, title="Measurements not in GPU order", step="scalability"
)
def scal_unsorted(ctx: Context) -> Iterator[Hit]:
    """Measurements are not listed in ascending GPU count; tables show them sorted."""
    if ctx.analysis.unsorted:
        yield Hit(
            "scalability.measurements",
            "The measurements are shown sorted by GPU count; the smallest count is "
            "the base of speedup and efficiency.",
        )


@rule("SCAL-16", severity=WARNING, title="Mixed throughput units", step="scalability")
def scal_units(ctx: Context) -> Iterator[Hit]:
    """The measurements of one code entry use different throughput units, so their
    speedups are meaningless."""
    for series in ctx.analysis.series:
        if len(series.units) > 1:
            yield Hit(
                f"scalability.measurements[{series.points[0].index}].unit",
                f"Measurements of one code use different units "
                f"({', '.join(u or 'none' for u in series.units)}); use one unit.",
            )


@rule("SCAL-17", severity=ERROR, title="Invalid job row", step="scalability")
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
                    f"scalability.jobs[{index}].{name}", "Enter a value above zero."
                )


@rule(
    "SCAL-18",
    severity=WARNING,
    title="Many small jobs without stability figure",
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
            "Run a representative job several times and give the runtime spread "
            "(for example ±5%).",
        )
