"""The call router (issue 38), decided from the shipped data: every expected answer
below is derived from the call terms, the catalogue, the country lists and the
routes file, never written down."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from proposals.domain.countries import eligible_countries, names
from proposals.domain.estimate import DEFAULT_MFU_PCT, FLOPS_PER_TOKEN
from proposals.domain.router import (
    Profile,
    decide,
    in_unit,
    proposal_route,
    route_profile,
    vendor,
)
from proposals.domain.routes import Cutoff, RouteData, load_routes
from proposals.domain.terms import default_terms, unverified
from proposals.domain.tiers import INDUSTRIAL, tier_for_hours

from .builders import ROOT, catalogue

DATA = load_routes(ROOT / "fixtures" / "routes.json")
TERMS = default_terms()
NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
INDUSTRIAL_MODES = TERMS[INDUSTRIAL].modes


def run(profile, data=DATA, now=NOW):
    return route_profile(
        profile, data=data, terms=TERMS, catalogue=catalogue(), now=now
    )


def slugs(decisions):
    return [d.route.slug for d in decisions]


def an_eligible_country(statuses):
    return next(
        code
        for code, entry in sorted(eligible_countries().items())
        if entry.statuses & set(statuses)
    )


def an_ineligible_country(statuses):
    listed = eligible_countries()
    return next(
        code
        for code in sorted(names())
        if code not in listed or not listed[code].statuses & set(statuses)
    )


def company(**changes):
    family = TERMS[INDUSTRIAL]
    base = Profile(
        organisation_kind=family.eligible_kinds[0],
        country=an_eligible_country(family.eligible_country_statuses),
        experience="proven",
    )
    return replace(base, **changes)


def test_every_route_fact_has_a_source_or_says_unverified():
    for route in DATA.routes:
        assert route.sources, route.slug
        for fact, source in route.sources.items():
            assert source.source.strip(), (route.slug, fact)
            date.fromisoformat(source.checked)
    for cutoff in DATA.cutoffs:
        assert cutoff.source and date.fromisoformat(cutoff.checked)
        ZoneInfo(cutoff.zone)


def test_routes_of_the_wizard_families_name_existing_modes():
    for route in DATA.routes:
        if route.family:
            assert TERMS[route.family].mode(route.mode) is not None, route.slug


@pytest.mark.parametrize("mode", INDUSTRIAL_MODES, ids=lambda m: m.slug)
def test_the_tier_from_the_hours_picks_the_route(mode):
    # Both bounds of each tier, from the call terms.
    for hours in {mode.min_hours, mode.max_hours} - {None}:
        fitting, _ = run(company(gpu_hours=hours))
        industrial = [d for d in fitting if d.route.family == INDUSTRIAL]
        assert [d.route.mode for d in industrial] == [tier_for_hours(hours)]


def test_hours_above_a_tier_say_its_bound():
    playground = INDUSTRIAL_MODES[0]
    hours = playground.max_hours + 1
    _, others = run(company(gpu_hours=hours))
    (decision,) = [d for d in others if d.route.mode == playground.slug]
    assert f"{playground.max_hours:,}" in " ".join(decision.reasons)


def test_an_academic_goes_to_the_science_family_not_industry():
    science = TERMS["ai_for_science"]
    kind = science.eligible_kinds[0]
    assert (
        kind
        not in TERMS[INDUSTRIAL].eligible_kinds + TERMS[INDUSTRIAL].conditional_kinds
    )
    profile = company(
        organisation_kind=kind,
        country=an_eligible_country(science.eligible_country_statuses),
    )
    fitting, others = run(profile)
    assert "ai-for-science" in slugs(fitting)
    assert {"af-playground", "af-fast-lane", "af-large-scale"} <= set(slugs(others))


def test_country_off_the_lists_is_refused_with_its_name():
    family = TERMS[INDUSTRIAL]
    code = an_ineligible_country(family.eligible_country_statuses)
    fitting, others = run(company(country=code, gpu_hours=100))
    assert not [d for d in fitting if d.route.family == INDUSTRIAL]
    (decision,) = [d for d in others if d.route.mode == INDUSTRIAL_MODES[0].slug]
    assert any(names()[code] in r for r in decision.reasons)


def test_antenna_route_follows_its_country_list():
    antenna = DATA.route("antenna")
    inside, outside = (
        antenna.countries[0],
        next(c for c in sorted(names()) if c not in antenna.countries),
    )
    assert "antenna" in slugs(run(company(country=inside))[0])
    assert "antenna" in slugs(run(company(country=outside))[1])


def test_no_scaling_data_rules_out_the_tiers_that_need_it():
    fast = INDUSTRIAL_MODES[1]
    _, others = run(company(experience="none", gpu_hours=fast.max_hours))
    (decision,) = [d for d in others if d.route.mode == fast.slug]
    assert "do not have yet" in " ".join(decision.reasons)


def test_accelerator_preference_filters_the_systems():
    for preference in ("amd", "nvidia"):
        fitting, _ = run(company(gpu_hours=100, accelerator=preference))
        for decision in fitting:
            assert all(
                vendor(catalogue()[o.slug]) == preference for o in decision.systems
            )
        expected = {
            s
            for s, c in catalogue().items()
            if vendor(c) == preference and c.in_production
        } & set(DATA.route("af-playground").systems)
        (playground,) = [d for d in fitting if d.route.slug == "af-playground"]
        assert {o.slug for o in playground.systems} == expected


def test_model_size_and_tokens_give_the_gpu_hours_per_system():
    params, tokens = 7e9, 2e8
    fitting, others = run(company(params=params, tokens=tokens, work="fine_tuning"))
    decisions = fitting + others
    for decision in decisions:
        for option in decision.systems:
            peak = catalogue()[option.slug].peak_bf16_tflops
            expected = (
                FLOPS_PER_TOKEN["training"]
                * params
                * tokens
                / (peak * 1e12 * DEFAULT_MFU_PCT / 100)
                / 3600
            )
            assert option.gpu_hours == pytest.approx(expected)
            assert decision.route.mode in ("", tier_for_hours(option.gpu_hours)) or (
                not TERMS.get(decision.route.family, TERMS[INDUSTRIAL]).tiered
            )


def test_node_hour_route_converts_with_the_gpus_per_node():
    route = DATA.route("ai-data-intensive")
    assert route.unit == "node_hours"
    hours = 12_000
    decision = decide(
        route,
        company(organisation_kind=route.eligible_kinds[0], gpu_hours=hours),
        data=DATA,
        terms=TERMS,
        catalogue=catalogue(),
        now=NOW,
    )
    assert decision.systems
    for option in decision.systems:
        cluster = catalogue()[option.slug]
        assert option.request == hours / cluster.gpus_per_node
        assert option.request == in_unit(hours, "node_hours", cluster)


def test_a_route_whose_only_cut_off_passed_does_not_fit():
    (cutoff,) = [c for c in DATA.cutoffs if c.route == "frontier-ai-grand-challenge"]
    route = DATA.route(cutoff.route)
    big = company(params=route.min_model_params, tokens=1e12)
    before = datetime.combine(cutoff.date, time(0), ZoneInfo(cutoff.zone))
    assert cutoff.route in slugs(run(big, now=before)[0])
    _, others = run(big, now=NOW)
    (decision,) = [d for d in others if d.route.slug == cutoff.route]
    assert cutoff.date.isoformat() in " ".join(decision.reasons)


def test_ranking_puts_routes_in_time_first():
    route = DATA.route("ai-for-science")
    soon, late = date(2027, 1, 10), date(2027, 3, 1)
    data = RouteData(
        routes=DATA.routes,
        cutoffs=(Cutoff(route=route.slug, date=late, time=time(10), source="test"),),
    )
    science = TERMS["ai_for_science"]
    profile = company(
        organisation_kind=science.eligible_kinds[0],
        country=an_eligible_country(science.eligible_country_statuses),
    )
    fitting, _ = run(replace(profile, needed_by=soon), data=data)
    assert fitting[-1].route.slug == route.slug and fitting[-1].late
    fitting, _ = run(replace(profile, needed_by=late), data=data)
    assert not [d for d in fitting if d.route.slug == route.slug][0].late


def test_a_proposal_is_on_the_route_of_its_family_and_tier():
    for mode in INDUSTRIAL_MODES:
        route = proposal_route(
            DATA, family=INDUSTRIAL, hours=mode.max_hours or mode.min_hours, terms=TERMS
        )
        assert (route.family, route.mode) == (INDUSTRIAL, mode.slug)
    assert proposal_route(DATA, family="ai_for_science", hours=None, terms=TERMS)


def test_unverified_facts_are_marked():
    marked = [
        (r.slug, fact)
        for r in DATA.routes
        for fact, s in r.sources.items()
        if unverified(s.source)
    ]
    # The Large Scale cut-offs are second-hand: the data says so.
    assert ("af-large-scale", "continuous") in marked


# A cut-off in late March across the change to summer time (28 March 2027 in the EU).
@pytest.mark.parametrize(
    ("day", "zone", "expected"),
    [
        (26, "Europe/Lisbon", ("16:00", "WET")),
        (26, "Europe/Brussels", ("17:00", "CET")),
        (26, "Europe/Helsinki", ("18:00", "EET")),
        (30, "Europe/Lisbon", ("16:00", "WEST")),
        (30, "Europe/Brussels", ("17:00", "CEST")),
        (30, "Europe/Helsinki", ("18:00", "EEST")),
    ],
)
def test_cut_off_across_the_daylight_saving_change(day, zone, expected):
    cutoff = Cutoff(route="x", date=date(2027, 3, day), time=time(17), source="t")
    local = cutoff.moment.astimezone(ZoneInfo(zone))
    assert (local.strftime("%H:%M"), local.tzname()) == expected
    # Seen the day before the change, in each zone, the day count is the calendar's.
    before = datetime(2027, 3, 27, 12, tzinfo=UTC)
    assert cutoff.days_from(before, ZoneInfo(zone)) == day - 27


def test_cut_off_without_a_time_counts_the_whole_day():
    cutoff = Cutoff(route="x", date=date(2027, 3, 28), source="t")
    zone = ZoneInfo(cutoff.zone)
    late_that_day = datetime(2027, 3, 28, 23, 30, tzinfo=zone)
    assert cutoff.moment > late_that_day
    start = datetime(2027, 3, 28, 0, 0, tzinfo=zone)
    # 23 hours: the clocks go forward that night.
    assert cutoff.moment.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=23)


def test_docs_list_every_route_cut_off_and_source():
    text = (ROOT / "docs" / "calls.md").read_text(encoding="utf-8")
    for route in DATA.routes:
        assert f"`{route.slug}`" in text
        for source in route.sources.values():
            assert source.source in text, (route.slug, source.source)
    for cutoff in DATA.cutoffs:
        assert cutoff.source in text and cutoff.date.isoformat() in text


def test_unverified_terms_say_so_where_shown():
    fitting, _ = run(company(gpu_hours=100))
    shown = [d for d in fitting if d.route.continuous]
    assert shown
    for decision in shown:
        source = decision.route.sources.get("continuous")
        (note,) = [r for r in decision.reasons if "Open all year" in r]
        assert ("(unverified)" in note) is (source is None or not source.verified)
