"""A call family that counts node-hours (AI for Science and Collaborative EU
Projects: 20,000 to 90,000 node-hours per project, EuroCC Turkey's documentation of
the 2025 cut-offs). The request stays in GPU-hours; the call's figure is it over the
target system's GPUs per node. Expected figures come from the terms and the
catalogue, not written down."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from proposals.domain import assess
from proposals.domain.fields import field
from proposals.domain.router import Profile, decide
from proposals.domain.routes import load_routes
from proposals.domain.terms import default_terms, figures

from .builders import ROOT, catalogue, edit, example

TERMS = default_terms()
NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
SCIENCE = TERMS["ai_for_science"].modes[0]
TRUBA = "https://github.com/TRUBA-HPC/Belgeler/blob/30b58fdb1f8e724c42c71bbaaf82b652acbcea0c/"


def science(system: str, gpu_hours: float):
    return edit(
        example("bsc-large-scale"),
        call_family="ai_for_science",
        organisation__kind="academic",
        organisation__vat_number="",
        organisation__country="NL",
        scalability__schedule=(),
        selection__system=system,
        selection__total_gpu_hours=gpu_hours,
    )


def test_the_terms_count_node_hours_with_the_sources_bounds():
    assert (SCIENCE.request_unit, SCIENCE.min_hours, SCIENCE.max_hours) == (
        "node_hours",
        20000,
        90000,
    )
    for fact in ("request_unit", "min_hours", "max_hours"):
        source = SCIENCE.source(fact)
        assert source.verified and TRUBA in source.source, fact
        assert source.checked == "2026-12-05"


def test_the_request_and_the_job_plan_in_node_hours():
    proposal = science("marenostrum5-acc", 110848)
    per_node = catalogue()["marenostrum5-acc"].gpus_per_node
    a = assess(proposal, catalogue())
    c = a.call_request
    assert (c.unit, c.gpus_per_node) == ("node_hours", per_node)
    assert c.requested == 110848 / per_node
    assert c.job_plan == a.plan.total_gpu_hours / per_node
    assert a.to_dict()["call_request"]["requested"] == 110848 / per_node
    assert a.to_dict()["call_request"]["max"] == SCIENCE.max_hours
    assert "In the call's unit: 27,712 node-hours (110,848 GPU-hours" in a.to_text()


def test_a_family_in_gpu_hours_has_no_call_figure():
    a = assess(example("lumi-fast-lane"), catalogue())
    assert a.call_request is None and a.to_dict()["call_request"] is None


def codes(proposal):
    return {f.code: f for f in assess(proposal, catalogue()).findings}


def test_bounds_are_checked_in_node_hours_on_the_system():
    lumi = catalogue()["lumi-g"].gpus_per_node
    above = SCIENCE.max_hours * lumi + lumi  # just above the maximum on LUMI-G
    found = codes(science("lumi-g", above))["TIER-7"]
    assert found.severity == "warning"
    assert "at most 90,000 node-hours per project" in found.message
    assert f"({above:,} GPU-hours on LUMI-G, {lumi} GPUs per node)" in found.message
    # The same GPU-hours are fewer node-hours on a node of 8 GPUs (Karolina GPU).
    karolina = catalogue()["karolina-gpu"].gpus_per_node
    assert karolina > lumi and above / karolina <= SCIENCE.max_hours
    assert "TIER-7" not in codes(science("karolina-gpu", above))
    below = SCIENCE.min_hours * lumi - lumi
    assert (
        "at least 20,000 node-hours"
        in codes(science("lumi-g", below))["TIER-7"].message
    )
    assert "TIER-7" not in codes(science("lumi-g", SCIENCE.min_hours * lumi))
    assert "TIER-7" not in codes(science(None, above))  # no system: no node-hours


def test_the_request_help_names_the_unit_and_bounds():
    text = field("total_gpu_hours").help_for(None, figures(TERMS), "lumi-g", False)
    assert "This call counts node-hours" in text
    assert "It grants 20,000 to 90,000 node-hours per project." in text
    tiered = field("total_gpu_hours").help_for("playground", figures(TERMS), None, True)
    assert "node-hours" not in tiered


def test_the_router_compares_node_hours_per_system():
    data = load_routes(ROOT / "fixtures" / "routes.json")
    route = data.route("ai-for-science")
    lumi = catalogue()["lumi-g"].gpus_per_node
    hours = (SCIENCE.max_hours + 1000) * lumi  # too much on LUMI-G, not on 8-GPU nodes
    profile = Profile(organisation_kind="academic", country="NL", gpu_hours=hours)
    profile = replace(profile, experience="proven")
    decision = decide(
        route, profile, data=data, terms=TERMS, catalogue=catalogue(), now=NOW
    )
    offered = {o.slug: o.request for o in decision.systems}
    assert "lumi-g" not in offered
    for slug, request in offered.items():
        assert request == hours / catalogue()[slug].gpus_per_node
        assert SCIENCE.min_hours <= request <= SCIENCE.max_hours
