"""Applicant profiles through the call router (issue 38), table-driven.

Each profile is an applicant with only a need. What the router must answer is
derived here from the shipped data and the rules (the call terms' kinds, countries
and tiers, the catalogue's systems and peaks, the routes' cut-offs), never written
as a list of routes: the tier comes from ``tier_for_hours`` on the figures, the
country from the eligibility lists, the request of a node-hour route from the
system's GPUs per node, the next cut-off from the routes file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from proposals.domain.countries import eligible_countries
from proposals.domain.estimate import DEFAULT_MFU_PCT, FLOPS_PER_TOKEN, gpu_hours_for
from proposals.domain.router import (
    EXPERIENCE_ORDER,
    WORK_USE,
    Decision,
    Profile,
    route_profile,
    vendor,
)
from proposals.domain.routes import load_routes
from proposals.domain.terms import default_terms
from proposals.domain.tiers import INDUSTRIAL, tier_for_hours

from .builders import ROOT, catalogue

DATA = load_routes(ROOT / "fixtures" / "routes.json")
TERMS = default_terms()
NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
SCIENCE = "ai_for_science"


# --------------------------------------------------------------------------------
# What the data and the rules say, read independently of the router


def statuses(code: str) -> frozenset[str]:
    entry = eligible_countries().get(code)
    return entry.statuses if entry else frozenset()


def kind_may(route, kind: str) -> bool:
    family = TERMS.get(route.family) if route.family else None
    kinds = (
        family.eligible_kinds + family.conditional_kinds
        if family
        else route.eligible_kinds
    )
    return not kind or not kinds or kind in kinds


def country_may(route, code: str) -> bool:
    if not code:
        return True
    if route.countries:
        return code in route.countries
    family = TERMS.get(route.family) if route.family else None
    wanted = (
        family.eligible_country_statuses if family else route.eligible_country_statuses
    )
    return not wanted or bool(statuses(code) & set(wanted))


def hours_on(profile: Profile, slug: str) -> float | None:
    """The GPU-hours of ``profile`` on system ``slug``: given, else 6·N·D (2·N·D to
    infer) at the system's peak and the default MFU."""
    if profile.gpu_hours:
        return profile.gpu_hours
    if not (profile.params and profile.tokens):
        return None
    flops = FLOPS_PER_TOKEN[WORK_USE[profile.work]] * profile.params * profile.tokens
    return gpu_hours_for(flops, catalogue()[slug].peak_bf16_tflops, DEFAULT_MFU_PCT)


def in_bounds(route, hours: float | None, slug: str) -> bool:
    if hours is None:
        return True
    family = TERMS.get(route.family) if route.family else None
    if family is not None and family.tiered:
        return tier_for_hours(hours, family) == route.mode
    if family is not None:
        mode = family.mode(route.mode)
        low, high, unit = mode.min_hours, mode.max_hours, mode.request_unit
    else:
        low, high, unit = route.min_request, route.max_request, route.unit
    request = hours
    if unit == "node_hours":  # the call's unit, the family's or the route's
        request = hours / catalogue()[slug].gpus_per_node
    return (low is None or request >= low) and (high is None or request <= high)


def targets(route, profile: Profile) -> list[str]:
    """The route's systems in production, of the preferred vendor, that the need
    fits on."""
    live = [
        s for s in route.systems if s in catalogue() and catalogue()[s].in_production
    ]
    if profile.accelerator in ("nvidia", "amd"):
        live = [s for s in live if vendor(catalogue()[s]) == profile.accelerator]
    return [s for s in live if in_bounds(route, hours_on(profile, s), s)]


def cut_off_open(route, now: datetime) -> bool:
    cutoffs = DATA.cutoffs_of(route.slug)
    if route.continuous or not cutoffs or DATA.next_cutoff(route.slug, now):
        return True
    return route.recurring


def expected_fitting(profile: Profile, now: datetime = NOW) -> set[str]:
    fitting = set()
    for route in DATA.routes:
        need = route.requires_experience
        if not (
            kind_may(route, profile.organisation_kind)
            and country_may(route, profile.country)
            and (
                not need
                or EXPERIENCE_ORDER.index(profile.experience)
                >= EXPERIENCE_ORDER.index(need)
            )
            and (profile.params or 0) >= (route.min_model_params or 0)
            and (not route.systems or targets(route, profile))
            and cut_off_open(route, now)
        ):
            continue
        fitting.add(route.slug)
    return fitting


def run(profile: Profile, now: datetime = NOW):
    return route_profile(
        profile, data=DATA, terms=TERMS, catalogue=catalogue(), now=now
    )


def by_slug(decisions) -> dict[str, Decision]:
    return {d.route.slug: d for d in decisions}


# --------------------------------------------------------------------------------
# The profiles


def an_eligible(family: str) -> str:
    wanted = set(TERMS[family].eligible_country_statuses)
    return next(
        c for c, e in sorted(eligible_countries().items()) if e.statuses & wanted
    )


def the_route(family: str, mode: str):
    return DATA.route_for(family, mode)


@dataclass(frozen=True)
class Case:
    name: str
    profile: Profile
    now: datetime = NOW
    check: Callable[[dict, dict, Profile], None] | None = None


def industrial_tiers_follow_the_figures(fits, others, profile):
    """Each industrial route fits on exactly the systems whose GPU-hours fall in
    its tier."""
    for decision in fits.values():
        if decision.route.family != INDUSTRIAL:
            continue
        for option in decision.systems:
            assert tier_for_hours(option.gpu_hours) == decision.route.mode
    assert any(d.route.family == INDUSTRIAL for d in fits.values())


def sme_finland_7b(fits, others, profile):
    industrial_tiers_follow_the_figures(fits, others, profile)
    # A small fine-tune is far below what AI for Science grants (node-hours).
    science = others["ai-for-science"]
    assert f"starts at {SCIENCE_MODE.min_hours:,} node-hours" in " ".join(
        science.reasons
    )
    assert "antenna" in others  # Finland hosts a factory, not an Antenna


def sme_partner(fits, others, profile):
    # An SME may take AI for Science only as the partner of an EU project.
    science = fits["ai-for-science"]
    assert any(TERMS[SCIENCE].conditional_note in r for r in science.reasons)


def university_spain(fits, others, profile):
    assert not [s for s in fits if s.startswith("af-")]
    science = fits["ai-for-science"]
    assert science.next_cutoff == DATA.next_cutoff("ai-for-science", NOW)
    assert science.next_cutoff is not None


def switzerland_company(fits, others, profile):
    # Switzerland is associated to the programmes the industrial call lists, and
    # hosts an Antenna.
    assert statuses("CH") & set(TERMS[INDUSTRIAL].eligible_country_statuses)
    assert "antenna" in fits


def serbia_startup(fits, others, profile):
    assert "antenna" in fits
    playground = the_route(INDUSTRIAL, "playground").slug
    assert (playground in fits) is bool(
        statuses("RS") & set(TERMS[INDUSTRIAL].eligible_country_statuses)
    )


def inference_only(fits, others, profile):
    for decision in list(fits.values()) + list(others.values()):
        for option in decision.systems:
            peak = catalogue()[option.slug].peak_bf16_tflops
            two_n_d = FLOPS_PER_TOKEN["inference"] * profile.params * profile.tokens
            assert option.gpu_hours == pytest.approx(
                gpu_hours_for(two_n_d, peak, DEFAULT_MFU_PCT)
            )
    industrial_tiers_follow_the_figures(fits, others, profile)


def node_hours(fits, others, profile):
    decision = {**fits, **others}["ai-data-intensive"]
    for option in decision.systems:
        gpus = catalogue()[option.slug].gpus_per_node
        assert option.unit == "node_hours"
        assert option.request == pytest.approx(profile.gpu_hours / gpus)
    last = DATA.cutoffs_of("ai-data-intensive")[-1]
    assert "ai-data-intensive" in others
    assert last.date.isoformat() in " ".join(decision.reasons)


def large_without_scaling(fits, others, profile):
    large = the_route(INDUSTRIAL, "large_scale").slug
    assert tier_for_hours(profile.gpu_hours) == "large_scale"
    assert large in others
    assert "do not have yet" in " ".join(others[large].reasons)


def large_with_scaling(fits, others, profile):
    large = the_route(INDUSTRIAL, "large_scale").slug
    assert fits[large].next_cutoff == DATA.next_cutoff(large, NOW)
    # A route with a dated cut-off comes after those open all year.
    order = list(fits)
    assert all(
        order.index(s) < order.index(large)
        for s, d in fits.items()
        if d.route.continuous
    )


def needed_before_the_cut_off(fits, others, profile):
    assert fits["ai-for-science"].late
    # Routes in time come first; the late ones after them.
    late = [d.late for d in fits.values()]
    assert late == sorted(late)


def needed_after_the_cut_off(fits, others, profile):
    assert not fits["ai-for-science"].late


def after_the_last_listed_cut_off(fits, others, profile):
    """A call whose cut-offs recur stays open after the last one listed: the next
    is awaited, not the call closed."""
    for slug in ("ai-for-science",):
        route = DATA.route(slug)
        assert route.recurring
        assert slug in fits and fits[slug].next_cutoff is None


def amd_preference(fits, others, profile):
    assert fits
    for decision in fits.values():
        assert all(vendor(catalogue()[o.slug]) == "amd" for o in decision.systems)


def outside_the_lists(fits, others, profile):
    assert not fits


def frontier_model(fits, others, profile):
    challenge = others["frontier-ai-grand-challenge"]
    (cutoff,) = DATA.cutoffs_of("frontier-ai-grand-challenge")
    assert cutoff.date.isoformat() in " ".join(challenge.reasons)


def above_every_tier_but_large(fits, others, profile):
    for mode in TERMS[INDUSTRIAL].modes[:-1]:
        decision = others[the_route(INDUSTRIAL, mode.slug).slug]
        assert f"{mode.max_hours:,}" in " ".join(decision.reasons)


def public_body(fits, others, profile):
    assert "ai-for-science" in fits
    assert not any(
        TERMS[SCIENCE].conditional_note in r for r in fits["ai-for-science"].reasons
    )


SCIENCE_NEXT = DATA.next_cutoff("ai-for-science", NOW)
SCIENCE_MODE = TERMS[SCIENCE].modes[0]
# GPU-hours inside AI for Science's node-hour bounds on every system it lists: its
# minimum on the widest nodes is twice it on nodes of half the GPUs.
SCIENCE_GPU_HOURS = SCIENCE_MODE.min_hours * max(
    catalogue()[s].gpus_per_node for s in DATA.route("ai-for-science").systems
)
LAST_SCIENCE = DATA.cutoffs_of("ai-for-science")[-1]
LARGE = TERMS[INDUSTRIAL].mode("large_scale")
FAST = TERMS[INDUSTRIAL].mode("fast_lane")

CASES = [
    Case(
        "sme-finland-7b-fine-tune",
        Profile("sme", "FI", "fine_tuning", params=7e9, tokens=2e9, experience="some"),
        check=sme_finland_7b,
    ),
    Case(
        "sme-partner-of-an-eu-project",
        Profile("sme", "FI", "research", gpu_hours=SCIENCE_GPU_HOURS),
        check=sme_partner,
    ),
    Case(
        "university-spain-pretraining",
        Profile("academic", "ES", "pretraining", params=1.3e10, tokens=1e12),
        check=university_spain,
    ),
    Case(
        "company-switzerland",
        Profile("industry", "CH", "fine_tuning", gpu_hours=3_000),
        check=switzerland_company,
    ),
    Case(
        "startup-serbia",
        Profile("startup", "RS", "fine_tuning", gpu_hours=1_000),
        check=serbia_startup,
    ),
    Case(
        "inference-only",
        Profile("sme", "DE", "inference", params=7e10, tokens=5e9, experience="some"),
        check=inference_only,
    ),
    Case(
        "node-hour-route",
        Profile("public", "IT", "research", gpu_hours=40_000, experience="proven"),
        check=node_hours,
    ),
    Case(
        "large-model-without-scaling-data",
        Profile(
            "sme", "NL", "pretraining", gpu_hours=LARGE.min_hours * 4, experience="some"
        ),
        check=large_without_scaling,
    ),
    Case(
        "large-model-with-scaling-data",
        Profile(
            "sme",
            "NL",
            "pretraining",
            gpu_hours=LARGE.min_hours * 4,
            experience="proven",
        ),
        check=large_with_scaling,
    ),
    Case(
        "fast-lane-fine-tune",
        Profile(
            "sme", "PL", "fine_tuning", gpu_hours=FAST.min_hours * 2, experience="some"
        ),
        check=industrial_tiers_follow_the_figures,
    ),
    Case(
        "needed-before-the-next-cut-off",
        Profile(
            "academic",
            "FR",
            "research",
            gpu_hours=SCIENCE_GPU_HOURS,
            needed_by=SCIENCE_NEXT.date - timedelta(days=1),
        ),
        check=needed_before_the_cut_off,
    ),
    Case(
        "needed-after-the-next-cut-off",
        Profile(
            "academic",
            "FR",
            "research",
            gpu_hours=SCIENCE_GPU_HOURS,
            needed_by=SCIENCE_NEXT.date + timedelta(days=30),
        ),
        check=needed_after_the_cut_off,
    ),
    Case(
        "after-the-last-listed-cut-off",
        Profile("academic", "PT", "research", gpu_hours=SCIENCE_GPU_HOURS),
        now=LAST_SCIENCE.moment + timedelta(days=2),
        check=after_the_last_listed_cut_off,
    ),
    Case(
        "amd-preference",
        Profile("startup", "EE", "fine_tuning", gpu_hours=500, accelerator="amd"),
        check=amd_preference,
    ),
    Case(
        "outside-the-lists",
        Profile("startup", "US", "fine_tuning", gpu_hours=500),
        check=outside_the_lists,
    ),
    Case(
        "frontier-model",
        Profile(
            "industry",
            "DE",
            "pretraining",
            params=5e11,
            tokens=1e13,
            experience="proven",
        ),
        check=frontier_model,
    ),
    Case(
        "above-the-fast-lane",
        Profile(
            "sme", "AT", "fine_tuning", gpu_hours=FAST.max_hours + 1, experience="some"
        ),
        check=above_every_tier_but_large,
    ),
    Case(
        "public-body-italy",
        Profile("public", "IT", "research", gpu_hours=SCIENCE_GPU_HOURS),
        check=public_body,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_profile(case):
    fitting, others = run(case.profile, now=case.now)
    assert {d.route.slug for d in fitting} == expected_fitting(case.profile, case.now)
    assert {d.route.slug for d in fitting} | {d.route.slug for d in others} == {
        r.slug for r in DATA.routes
    }
    for decision in fitting:
        # Every fitting route names a system in production to start on, or has
        # none listed (an Antenna or a challenge without a system in the data).
        assert decision.systems or not decision.route.systems
        assert decision.reasons
    for decision in others:
        assert decision.reasons  # why not, always
    if case.check:
        case.check(by_slug(fitting), by_slug(others), case.profile)


def test_the_profiles_cover_the_routes():
    """Across the profiles every route fits at least once and fails at least
    once, so each rule is exercised."""
    fit, failed = set(), set()
    for case in CASES:
        fitting, others = run(case.profile, now=case.now)
        fit |= {d.route.slug for d in fitting}
        failed |= {d.route.slug for d in others}
    every = {r.slug for r in DATA.routes}
    closed = {
        r.slug
        for r in DATA.routes
        if not r.continuous
        and not r.recurring
        and DATA.cutoffs_of(r.slug)
        and DATA.next_cutoff(r.slug, NOW) is None
    }
    assert fit == every - closed
    assert failed == every


def test_needed_on_the_day_of_the_cut_off_is_in_time():
    profile = Profile(
        "academic",
        "BE",
        "research",
        gpu_hours=SCIENCE_GPU_HOURS,
        needed_by=SCIENCE_NEXT.date,
    )
    assert not by_slug(run(profile)[0])["ai-for-science"].late
