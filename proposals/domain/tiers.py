"""Call tiers of the AI for Industrial Innovation calls.

The tier follows from the total GPU-hours alone, against the bounds of the call terms
(``terms.py``: data, inclusive bounds as in both guides); the *recommended* tier
applies the guides' quick-selection advice and can only be the same tier or a lower
one. This module names the tiers; their figures live in the terms only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import gettext as _
from .numbers import grouped
from .terms import FamilyTerms, default_terms

PLAYGROUND = "playground"
FAST_LANE = "fast_lane"
LARGE_SCALE = "large_scale"
TIERS = (PLAYGROUND, FAST_LANE, LARGE_SCALE)
INDUSTRIAL = "industrial_innovation"

TIER_LABELS = {
    PLAYGROUND: "Playground",
    FAST_LANE: "Fast Lane",
    LARGE_SCALE: "Large Scale",
}


def tier_for_hours(
    hours: float | None, family: FamilyTerms | None = None
) -> str | None:
    """Return the tier implied by ``hours``, or ``None`` when no positive total or
    when ``family`` (default: the industrial terms) has no tiers.

    With the guides' bounds 5,000 is Playground, 5,000.5 and 50,000 are Fast Lane,
    50,001 is Large Scale.
    """
    family = family or default_terms()[INDUSTRIAL]
    if not family.tiered:
        return None
    mode = family.mode_for_hours(hours)
    return mode.slug if mode else None


def tier_rank(tier: str | None) -> int:
    """Order tiers (``None`` lowest) so that recommendations can be compared."""
    return -1 if tier is None else TIERS.index(tier)


def tier_label(tier: str | None) -> str:
    """Human name of a tier ("no tier yet" for ``None``)."""
    label = TIER_LABELS.get(tier) if tier else None
    return label or _("no tier yet")


@dataclass(frozen=True)
class Recommendation:
    """The recommended tier and the sentences explaining it."""

    tier: str | None
    reasons: tuple[str, ...]


def recommend_tier(
    *,
    hours: float | None,
    hpc_experience: str,
    stack_demonstrated: bool | None,
    multi_node: bool,
    has_scaling_data: bool,
    high_throughput_evidence: bool,
    covers_target: bool,
    family: FamilyTerms | None = None,
    representative_below: tuple[int, int] | None = None,
) -> Recommendation:
    """Apply the quick-selection advice of both guides.

    ``multi_node``: some run needs more than one node. ``has_scaling_data``: at least
    two usable measurements. ``high_throughput_evidence``: a many-small-jobs workload
    with a runtime stability figure, jobs of at most 8 GPUs and a representative
    job measured at their size. ``covers_target``: the
    largest measurement reaches the target GPU count. ``family``: the call terms
    (default: the industrial ones); a family without tiers gets no recommendation.
    ``representative_below``: such a workload whose representative job was measured
    below the jobs' size, as (GPUs measured, GPUs per job): throughput data, but not
    at the size Large Scale asks for, so Fast Lane (where it can be measured), not
    Playground.
    """
    family = family or default_terms()[INDUSTRIAL]
    if not family.tiered:
        return Recommendation(
            None,
            (
                _("{family} has no tiers: one kind of allocation.").format(
                    family=family.label
                ),
            ),
        )
    implied = tier_for_hours(hours, family)
    evidence = (
        has_scaling_data or high_throughput_evidence or bool(representative_below)
    )
    playground = _playground_reasons(
        implied,
        family,
        evidence=evidence,
        stack_demonstrated=stack_demonstrated,
        multi_node=multi_node,
        hpc_experience=hpc_experience,
    )
    if playground:
        return Recommendation(PLAYGROUND, tuple(playground))
    if implied is None:
        return Recommendation(None, (_("Enter the total GPU-hours to get a tier."),))
    return _with_evidence(
        implied,
        hpc_experience=hpc_experience,
        covers_target=covers_target,
        high_throughput_evidence=high_throughput_evidence,
        representative_below=representative_below,
    )


def _playground_reasons(
    implied: str | None,
    family: FamilyTerms,
    *,
    evidence: bool,
    stack_demonstrated: bool | None,
    multi_node: bool,
    hpc_experience: str,
) -> list[str]:
    """Why Playground comes first (none: the evidence allows a larger tier)."""
    playground = []
    if stack_demonstrated is False:
        playground.append(
            _("The software stack has not yet been shown to run on the target system.")
        )
    if multi_node and not evidence:
        playground.append(
            _("Some runs need more than one node but there is no scaling data yet.")
        )
    if hpc_experience == "none":
        playground.append(_("This is a first HPC experience."))
    smallest = family.modes[0] if family.modes else None
    if implied == PLAYGROUND and smallest and smallest.max_hours is not None:
        playground.append(
            _("At most {hours} GPU-hours are needed.").format(
                hours=grouped(smallest.max_hours, 0)
            )
        )
    if implied in (FAST_LANE, LARGE_SCALE) and not evidence:
        playground.append(
            _(
                "There are no throughput measurements at two or more GPU counts yet; "
                "a Playground allocation can be used to collect them."
            )
        )
    return playground


def _with_evidence(
    implied: str,
    *,
    hpc_experience: str,
    covers_target: bool,
    high_throughput_evidence: bool,
    representative_below: tuple[int, int] | None,
) -> Recommendation:
    """Fast Lane or Large Scale for a workload with throughput evidence: Large Scale
    only where the evidence is at the size it asks for."""
    if implied == LARGE_SCALE and representative_below and not covers_target:
        measured, size = representative_below
        return Recommendation(
            FAST_LANE,
            (
                _(
                    "The representative job was measured at {measured} GPUs, below "
                    "the jobs' {size} GPUs: Large Scale needs it measured at the jobs' "
                    "size, with its runtime stability. Measure it there, in a Fast "
                    "Lane allocation first if needed."
                ).format(measured=grouped(measured, 0), size=grouped(size, 0)),
            ),
        )
    if implied == LARGE_SCALE and not (covers_target or high_throughput_evidence):
        return Recommendation(
            FAST_LANE,
            (
                _(
                    "Large Scale needs scaling data at the target GPU count (or a "
                    "high-throughput workload with stable per-job runtime); collect it "
                    "in a Fast Lane allocation first."
                ),
            ),
        )
    if implied == LARGE_SCALE:
        why = (
            _("A high volume of independent jobs with stable per-job runtime.")
            if high_throughput_evidence
            else _("Scaling data covers the target GPU count.")
        )
        return Recommendation(LARGE_SCALE, (why,))
    if hpc_experience in ("some", "proven"):
        why = _(
            "Prior HPC experience and throughput measurements support a Fast Lane "
            "request."
        )
    else:
        why = _(
            "Throughput measurements support a Fast Lane request; say how much HPC "
            "experience the team has."
        )
    return Recommendation(FAST_LANE, (why,))
