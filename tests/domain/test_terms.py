"""Call terms as data: the tier, the rules and the texts follow the terms given."""

import dataclasses
import json

from proposals.domain import assess
from proposals.domain.reference import markdown
from proposals.domain.terms import default_terms, load_terms, problems
from proposals.domain.tiers import tier_for_hours

from .builders import ROOT, catalogue, edit, example

DEFAULT = ROOT / "fixtures" / "call_terms.json"


def with_mode(family="industrial_innovation", mode="playground", **changes):
    """The default terms with one mode's facts replaced."""
    terms = dict(default_terms())
    fam = terms[family]
    modes = tuple(
        dataclasses.replace(m, **changes) if m.slug == mode else m for m in fam.modes
    )
    terms[family] = dataclasses.replace(fam, modes=modes)
    return terms


def codes(proposal, terms=None):
    return {f.code for f in assess(proposal, catalogue(), terms).findings}


def test_defaults_are_the_guides_bounds():
    fam = default_terms()["industrial_innovation"]
    assert [(m.slug, m.min_hours, m.max_hours) for m in fam.modes] == [
        ("playground", 1, 5000),
        ("fast_lane", 5001, 50000),
        ("large_scale", 50001, None),
    ]
    for hours, tier in [
        (5000, "playground"),
        (5001, "fast_lane"),
        (50001, "large_scale"),
    ]:
        assert tier_for_hours(hours, fam) == tier


def test_every_fact_has_a_source_and_date():
    for row in json.loads(DEFAULT.read_text(encoding="utf-8")):
        assert problems(row) == []
        for mode in row["modes"]:
            assert mode["sources"], mode["slug"]


def test_problems_names_a_fact_without_date():
    row = {"slug": "x", "sources": {"max_hours": {"source": "guide", "checked": ""}}}
    assert problems(row) == ["family: “max_hours” needs a check date (YYYY-MM-DD)"]


def test_changing_a_bound_in_the_data_moves_the_tier():
    proposal = example("lumi-fast-lane")  # 18,176 GPU-hours: Fast Lane by the guides
    assert assess(proposal, catalogue()).tier == "fast_lane"
    terms = with_mode(max_hours=20000)  # Playground now up to 20,000
    result = assess(proposal, catalogue(), terms)
    assert result.tier == "playground"
    assert any(
        f.code == "TIER-1" and "18,176 GPU-hours is a Playground request" in f.message
        for f in result.findings
    )


def test_fast_lane_minimum_from_the_portal_leaves_a_gap():
    """Applicants report the portal asking for more than 10,000 for Fast Lane."""
    terms = with_mode(mode="fast_lane", min_hours=10001)
    proposal = edit(example("lumi-fast-lane"), selection__total_gpu_hours=7000)
    assert "TIER-6" in codes(proposal, terms)
    assert "TIER-6" not in codes(proposal)


def test_duration_rule_reads_the_terms():
    proposal = example("lumi-fast-lane")  # 3 months
    assert "TIER-5" not in codes(proposal)
    assert "TIER-5" in codes(
        proposal, with_mode(mode="fast_lane", durations_months=(6,))
    )


def test_ai_for_science_has_no_tiers_and_no_industrial_rules():
    """The 110,848 GPU-hour BSC example as an AI for Science proposal from a
    university in an eligible country: no tier, no Large Scale schedule error, no VAT
    check (the country check runs: a US university gets ELIG-3, see
    test_eligibility_lists)."""
    proposal = edit(
        example("bsc-large-scale"),
        call_family="ai_for_science",
        organisation__kind="academic",
        organisation__vat_number="",
        organisation__country="NL",
        scalability__schedule=(),
    )
    result = assess(proposal, catalogue())
    assert result.tier is None and result.recommended_tier is None
    assert result.mode == "ai_for_science"
    assert result.mode_label == "AI for Science and Collaborative EU Projects"
    found = {f.code for f in result.findings}
    assert not found & {"SCAL-8", "SCAL-7", "SCAL-9", "TIER-2", "TIER-3", "TIER-4"}
    assert not found & {"ELIG-1", "ELIG-2", "ELIG-3", "ELIG-4"}
    reminder = [f for f in result.findings if f.code == "ELIG-5"]
    assert "scope and plan document" in reminder[0].message
    assert "6 months" in reminder[0].message


def test_science_rule_applies_when_the_data_says_so():
    proposal = edit(
        example("bsc-large-scale"),
        call_family="ai_for_science",
        organisation__kind="academic",
        scalability__schedule=(),
    )
    terms = with_mode("ai_for_science", "ai_for_science", schedule_required=True)
    assert "SCAL-8" in codes(proposal, terms)
    assert "SCAL-8" not in codes(proposal)


def test_load_terms_from_rows_round_trip():
    rows = json.loads(DEFAULT.read_text(encoding="utf-8"))
    rows[0]["modes"][0]["max_hours"] = 7000
    terms = load_terms(rows)
    assert tier_for_hours(6000, terms["industrial_innovation"]) == "playground"


def test_reference_shows_the_terms_figures():
    assert "5,000" in markdown()
    changed = with_mode(max_hours=7500)
    text = markdown(changed)
    assert "7,500" in text and "| Playground | 1 | 5,000 |" not in text


# --- Units per system ---------------------------------------------------------------


def test_leonardo_counts_node_hours():
    """Leonardo Booster: one GPU-hour is a quarter node-hour, so a 5,000 GPU-hour
    Playground is 1,250 node-hours."""
    proposal = edit(
        example("playground"),
        selection__system="leonardo-booster",
        selection__total_gpu_hours=5000,
    )
    b = assess(proposal, catalogue()).billing
    assert (b.unit, b.requested, b.differs) == ("node_hours", 1250, True)
    assert "quarter node-hour" in b.source and b.checked == "2026-12-03"
    # No public document of CINECA was found stating the granted unit (issue 22).
    assert b.source.startswith("Unverified")


def test_karolina_job_plan_in_node_hours():
    proposal = edit(example("lumi-fast-lane"), selection__system="karolina-gpu")
    a = assess(proposal, catalogue())
    assert a.billing.jobs[0] == 3840 / 8
    assert a.billing.job_plan == 18176 / 8
    assert a.to_dict()["billing"]["job_plan"] == 2272
    assert "In the system's unit: 2,272 node-hours" in a.to_text()


def test_lumi_bills_gpu_hours():
    b = assess(example("lumi-fast-lane"), catalogue()).billing
    assert (b.unit, b.requested, b.differs) == ("gpu_hours", 18176, False)
