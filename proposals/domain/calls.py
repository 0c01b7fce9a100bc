"""The three calls at a glance, for people who have not applied before.

The GPU-hour ranges and job-size guidance are read from the call terms (the same
bounds that decide a proposal's tier, see :mod:`.terms`); only the sentences are
written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import Labels, gettext_noop
from .i18n import gettext as _
from .numbers import grouped
from .sections import SECTIONS
from .terms import CallTerms, ModeTerms, default_terms, family_terms
from .tiers import FAST_LANE, INDUSTRIAL, LARGE_SCALE, PLAYGROUND, TIER_LABELS, TIERS

_FOR_WHOM = Labels(
    {
        PLAYGROUND: gettext_noop(
            "A first project on a supercomputer, or a first try of your code on "
            "the system: porting, small tests, measuring."
        ),
        FAST_LANE: gettext_noop(
            "Teams with some HPC experience and throughput measured at a few GPU "
            "counts, for training or fine-tuning up to a few dozen GPUs."
        ),
        LARGE_SCALE: gettext_noop(
            "Proven experience and scaling data at the size you ask for, or a "
            "large volume of independent jobs such as sweeps."
        ),
    }
)
_EVIDENCE = Labels(
    {
        PLAYGROUND: gettext_noop(
            "A description of the tests you did (on any hardware) or plan to do."
        ),
        FAST_LANE: gettext_noop(
            "A job plan, and throughput measured at two or more GPU counts with "
            "the efficiency projected to your target."
        ),
        LARGE_SCALE: gettext_noop(
            "As Fast Lane, with measurements at the target size (no "
            "extrapolation) and a month-by-month usage schedule."
        ),
    }
)
_MINUTES = {PLAYGROUND: 15, FAST_LANE: 45, LARGE_SCALE: 90}


@dataclass(frozen=True)
class Call:
    """One call tier as the landing page and the guide show it."""

    tier: str
    label: str
    hours: str  # "up to 5,000 GPU-hours"
    gpus: str  # "up to 8 GPUs per job (guidance)"
    for_whom: str
    evidence: str
    minutes: int  # about how long the wizard takes with the material at hand


def _modes(terms: CallTerms | None) -> dict[str, ModeTerms]:
    family = family_terms(terms or default_terms(), INDUSTRIAL)
    return {mode.slug: mode for mode in family.modes}


def hours_range(tier: str, terms: CallTerms | None = None) -> str:
    """The tier's total GPU-hours in words, from the call terms (inclusive)."""
    modes = _modes(terms)
    order = [slug for slug in TIERS if slug in modes]
    index = order.index(tier)
    upper = modes[tier].max_hours
    lower = modes[order[index - 1]].max_hours if index > 0 else None
    if lower is None:
        return _("up to {upper} GPU-hours").format(upper=grouped(upper))
    if upper is None:
        return _("more than {lower} GPU-hours").format(lower=grouped(lower))
    return _("more than {lower}, up to {upper} GPU-hours").format(
        lower=grouped(lower), upper=grouped(upper)
    )


def gpus_guidance(tier: str, terms: CallTerms | None = None) -> str:
    """The largest job the tier is meant for, in words."""
    limit = _modes(terms)[tier].max_gpus_per_job
    if limit is None:
        return _("jobs of any size the system allows")
    return _("typically up to {limit} GPUs per job").format(limit=grouped(limit))


def calls(terms: CallTerms | None = None) -> tuple[Call, ...]:
    """The three tiers, smallest first (``terms``: the call terms in force; the
    shipped defaults when not given)."""
    return tuple(
        Call(
            tier=tier,
            label=TIER_LABELS[tier],
            hours=hours_range(tier, terms),
            gpus=gpus_guidance(tier, terms),
            for_whom=_FOR_WHOM[tier],
            evidence=_EVIDENCE[tier],
            minutes=_MINUTES[tier],
        )
        for tier in TIERS
    )


# What to have at hand for each section (the titles come from the vocabulary).
_TO_HAVE = Labels(
    {
        "organisation": gettext_noop(
            "Your organisation's legal name, country and VAT number, and "
            "how much experience the team has with supercomputers."
        ),
        "selection": gettext_noop(
            "The system you want, the main libraries, an estimate of the total "
            "GPU-hours, and the storage and data transfer you need."
        ),
        "codes": gettext_noop(
            "For each significant piece of software: its name, version and a link "
            "or reference."
        ),
        "scalability": gettext_noop(
            "What you have tested: on how many GPUs, for how long, at what "
            "throughput. Fast Lane and Large Scale also need the throughput at two or more "
            "GPU counts and a plan of the jobs you will run."
        ),
        "optimisation": gettext_noop(
            "What you plan to test or improve in the code during the "
            "allocation, if anything."
        ),
    }
)


def preparation() -> tuple[tuple[str, str], ...]:
    """``(section title, what to have at hand)`` for every section, in wizard order."""
    return tuple((section.title, _TO_HAVE[section.slug]) for section in SECTIONS)
