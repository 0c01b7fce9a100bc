"""SCAL rules: job plan, scaling measurements, projection and usage schedule.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TypeGuard

from ..findings import ERROR, INFO, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop, join_and, ngettext
from ..numbers import grouped, percent
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
    tokens = _tokens(text)
    return any(
        token == name or token.startswith(name) and not token[len(name)].isdigit()
        for name in names
        for token in tokens
    )


@functools.lru_cache(maxsize=256)
def _tokens(text: str) -> tuple[str, ...]:
    """The squashed tokens of a hardware text and each run of three, read once per
    text (every evaluation reads every measurement's hardware again)."""
    spaced = re.sub(r"(?<=[A-Za-z])[\s-]+(?=\d)", "", text)  # "MI 250X" -> "MI250X"
    spaced = re.sub(r"(?<=\d)[x×](?=[A-Za-z])", " ", spaced)  # "8xH100" -> "8 H100"
    tokens = [_squash(t) for t in re.split(r"[\s,;()/+-]+", spaced) if t]
    joined = ["".join(tokens[i : i + 3]) for i in range(len(tokens))]
    return tuple(token for token in tokens + joined if token)


def requires(ctx: Context, evidence: str) -> bool:
    """Whether the terms of the request's mode ask for ``evidence`` (a ModeTerms
    flag such as ``job_plan_required``)."""
    return ctx.mode is not None and bool(getattr(ctx.mode, evidence))


def extrapolating(mode: ModeTerms | None) -> TypeGuard[ModeTerms]:
    """A mode that wants scaling data and accepts projections beyond it."""
    return bool(mode and mode.scaling_data_required and mode.extrapolation_allowed)


def name(ctx: Context) -> str:
    """The request's tier, or its family when the family has no tiers."""
    return tier_label(ctx.tier) if ctx.family.tiered else ctx.family.label


@rule(
    "SCAL-1",
    severity=WARNING,
    title=gettext_noop("Playground without test description"),
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
            _(
                "Describe the tests you have run (any hardware), or the measurements "
                "this allocation will let you make."
            ),
        )


@rule("SCAL-2", severity=ERROR, title=gettext_noop("No job plan"), step="scalability")
def scal_job_plan(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require a job plan (Fast Lane, Large Scale): no job types
    are listed."""
    if requires(ctx, "job_plan_required") and not ctx.proposal.scalability.jobs:
        yield Hit(
            "scalability.jobs",
            _(
                "List the job types (title, GPUs, hours, number of jobs): the job plan "
                "is the main justification of the requested hours."
            ),
        )


@rule(
    "SCAL-3",
    severity=(ERROR, WARNING),
    title=gettext_noop("Job plan total differs from request"),
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
        _(
            "The job plan adds up to {planned} GPU-hours but {requested} are requested "
            "(difference {difference}); make them agree."
        ).format(
            planned=num(planned),
            requested=num(requested),
            difference=num(planned - requested),
        ),
        WARNING if ctx.mode is not None and not ctx.mode.job_plan_required else None,
    )


@rule(
    "SCAL-4",
    severity=ERROR,
    title=gettext_noop("Job above the max GPUs per job"),
    step="scalability",
)
def scal_job_above_max(ctx: Context) -> Iterator[Hit]:
    """A job type uses more GPUs than the declared maximum GPUs per job."""
    limit = ctx.proposal.selection.max_gpus_per_job
    for row in ctx.plan.rows:
        if limit is not None and row.gpus > limit:
            yield Hit(
                f"scalability.jobs[{row.index}].gpus",
                _(
                    "This job uses {gpus} GPUs, more than the declared maximum of "
                    "{limit}; raise the maximum or shrink the job."
                ).format(gpus=num(row.gpus), limit=num(limit)),
            )


@rule(
    "SCAL-5",
    severity=ERROR,
    title=gettext_noop("Too few scaling measurements"),
    step="scalability",
)
def scal_measurements(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require scaling data (Fast Lane, Large Scale): fewer than
    two usable measurements at distinct GPU counts, unless the workload is many small
    jobs with a runtime stability figure and a representative job measured at the
    jobs' size (a stability figure without a measurement is no throughput data). A
    representative job measured below the jobs' size is named as such."""
    if requires(ctx, "scaling_data_required") and not (
        ctx.has_scaling_data or ctx.high_throughput_evidence
    ):
        if ctx.representative_below:
            measured, size = ctx.representative_below
            yield Hit(
                "scalability.measurements",
                _(
                    "The representative job was measured at {measured} GPUs, below "
                    "the jobs' {size} GPUs: measure it at {size} GPUs, or add "
                    "throughput measurements at two or more GPU counts."
                ).format(measured=num(measured), size=num(size)),
            )
            return
        yield Hit(
            "scalability.measurements",
            _(
                "Add throughput measurements at two or more GPU counts (for example 1, 2 "
                "and 4 GPUs), or, for many independent small jobs, a representative job "
                "and its runtime stability."
            ),
        )


@rule(
    "SCAL-6",
    severity=WARNING,
    title=gettext_noop("Extrapolation beyond the data"),
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
            _(
                "{target} GPUs is {factor} times the largest measurement ({largest})"
            ).format(
                target=num(p.target_gpus),
                factor=grouped(p.extrapolation_factor, 1, trim=False),
                largest=num(p.largest_measured_gpus),
            )
        )
    if band_limit is not None and p.band_width > band_limit:
        problems.append(
            _("the projected efficiency ranges from {low} to {high}").format(
                low=percent(p.efficiency_low), high=percent(p.efficiency_high)
            )
        )
    yield Hit(
        "selection.max_gpus_per_job",
        _(
            "The data does not support this extrapolation: {problems}. Measure closer "
            "to the target size."
        ).format(problems=join_and(problems)),
    )


@rule(
    "SCAL-7",
    severity=ERROR,
    title=gettext_noop("Large Scale target above measured scale"),
    step="scalability",
)
def scal_large_scale_extrapolation(ctx: Context) -> Iterator[Hit]:
    """Tiers whose terms require scaling data without extrapolation (Large Scale):
    the target GPU count is above the largest measured count."""
    points = ctx.analysis.points
    mode = ctx.mode
    if (
        mode is None  # requires() is False without a mode
        or not requires(ctx, "scaling_data_required")
        or mode.extrapolation_allowed
    ):
        return
    if not points or not ctx.target_gpus:
        return
    largest = max(p.gpus for p in points)
    if ctx.target_gpus > largest:
        yield Hit(
            "selection.max_gpus_per_job",
            _(
                "{name} needs measurements at the target size, but the largest is "
                "{largest} GPUs for a target of {target}. Measure at the target size, "
                "or request Fast Lane first to collect the data."
            ).format(name=name(ctx), largest=num(largest), target=num(ctx.target_gpus)),
        )


@rule(
    "SCAL-8",
    severity=ERROR,
    title=gettext_noop("Usage schedule missing or inconsistent"),
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
            _("Add a usage schedule: GPU-hours per month or range of months."),
        )
        return
    if summary.matches_total is False:
        yield Hit(
            "scalability.schedule",
            _(
                "The schedule adds up to {total} GPU-hours, not the {requested} "
                "requested."
            ).format(
                total=num(summary.total_gpu_hours),
                requested=num(ctx.proposal.selection.total_gpu_hours),
            ),
        )
    duration = ctx.proposal.selection.duration_months
    if duration is None:
        yield Hit(
            "selection.duration_months",
            _("Enter the allocation duration so the schedule can be checked."),
        )
        return
    for index, row in enumerate(summary.rows):
        if max(row.from_month, row.to_month) > duration:
            yield Hit(
                f"scalability.schedule[{index}].to_month",
                _(
                    "Month {month} is after the end of the {duration}-month allocation."
                ).format(
                    month=num(max(row.from_month, row.to_month)), duration=num(duration)
                ),
            )


@rule(
    "SCAL-9",
    severity=WARNING,
    title=gettext_noop("No MFU or communication overhead"),
    step="scalability",
)
def scal_mfu(ctx: Context) -> Iterator[Hit]:
    """Single large jobs in tiers whose terms require scaling data at the target
    size (Large Scale): no measurement gives MFU or communication overhead."""
    scal = ctx.proposal.scalability
    mode = ctx.mode
    if (
        mode is None  # requires() is False without a mode
        or not requires(ctx, "scaling_data_required")
        or mode.extrapolation_allowed
    ):
        return
    if scal.workload == "many_small_jobs":
        return
    if not any(
        m.mfu_pct is not None or m.comm_overhead_pct is not None
        for m in scal.measurements
    ):
        yield Hit(
            "scalability.measurements",
            _(
                "Large single jobs are expected to report MFU (model FLOPs utilisation) "
                "and communication overhead per measured size."
            ),
        )


@rule(
    "SCAL-10",
    severity=(WARNING, INFO),
    title=gettext_noop("Measured on other hardware"),
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
        if hardware:
            message = ngettext(
                "This measurement ran on hardware “{hardware}”, not the {gpu} of "
                "{system}; results on the target GPU carry more weight.",
                "{count} measurements ran on hardware “{hardware}”, not the {gpu} of "
                "{system}; results on the target GPU carry more weight.",
                len(indices),
            )
        else:
            message = ngettext(
                "This measurement ran on hardware not stated, not the {gpu} of "
                "{system}; results on the target GPU carry more weight.",
                "{count} measurements ran on hardware not stated, not the {gpu} of "
                "{system}; results on the target GPU carry more weight.",
                len(indices),
            )
        yield Hit(
            f"scalability.measurements[{indices[0]}].hardware",
            message.format(
                count=num(len(indices)),
                hardware=hardware,
                gpu=ctx.cluster.gpu_model,
                system=ctx.cluster.name,
            ),
            severity,
        )
