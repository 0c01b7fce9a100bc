"""AI for Science and Collaborative EU Projects, and the tier bounds (issue 22):
advice that fits a family without tiers, the same severity for an optional job plan
in every family that does not require one, no TIER-6 between the guides' bounds."""

import pytest

from proposals.domain import Job
from proposals.domain.fields import field
from proposals.domain.terms import figures

from .builders import edit, example, findings

# A university's 6-month AI for Science request: the BSC Large Scale example as a
# Dutch university's proposal (the family's terms: 6 months, peer review).
SCIENCE = edit(
    example("bsc-large-scale"),
    call_family="ai_for_science",
    organisation__kind="academic",
    organisation__country="NL",
    organisation__vat_number="",
    selection__duration_months=6,
)


@pytest.mark.parametrize("months", [3, 12])
def test_tier_5_advice_names_no_tier_for_a_family_without_tiers(months):
    (hit,) = findings(edit(SCIENCE, selection__duration_months=months), "TIER-5")
    assert "6 months" in hit.message and f"{months} months" in hit.message
    assert "tier" not in hit.message.lower()
    # Its source says "about 6-month allocations": a note (issue 32).
    assert hit.severity == "info"
    assert hit.message.endswith(
        "Check the current call text for the durations it allows."
    )


def test_tier_5_names_the_tier_whose_terms_list_the_duration():
    # 18,176 GPU-hours (Fast Lane: 1-3 months) for 6 months: Large Scale lists 6.
    (hit,) = findings(
        edit(example("lumi-fast-lane"), selection__duration_months=6), "TIER-5"
    )
    assert "Large Scale (3, 6 or 12 months)" in hit.message
    # 5 months fits no tier: only the duration is to adjust.
    (hit,) = findings(
        edit(example("lumi-fast-lane"), selection__duration_months=5), "TIER-5"
    )
    assert hit.message.endswith("Adjust the duration.")


def test_an_optional_job_plan_that_disagrees_is_a_warning_in_both_families():
    plan = (Job(title="Fine-tuning runs", gpus=8, hours=24, count=10),)  # 1,920
    science = edit(SCIENCE, scalability__jobs=plan, selection__total_gpu_hours=5000)
    playground = edit(
        example("playground"), scalability__jobs=plan, selection__total_gpu_hours=3000
    )
    for proposal in (science, playground):
        (hit,) = findings(proposal, "SCAL-3")
        assert hit.severity == "warning"
        assert "1,920" in hit.message


def test_the_organisation_help_does_not_turn_academics_away():
    kind = field("organisation_kind").help_for(None)
    assert "AI for Science" in kind and "not eligible" not in kind
    country = field("organisation_country").help_for(None, figures())
    assert "associated to Horizon Europe" in country
    assert "Åland" in country and "{" not in country


# TIER-6 with the guides' bounds (Playground up to 5,000, Fast Lane from 5,001, Large
# Scale from 50,001): a fractional request between two whole bounds is in the upper
# tier, not in a gap.
@pytest.mark.parametrize(
    ("hours", "tier"),
    [
        (5000, "playground"),
        (5000.01, "fast_lane"),
        (5000.5, "fast_lane"),
        (5000.99, "fast_lane"),
        (5001, "fast_lane"),
        (50000.01, "large_scale"),
        (50000.99, "large_scale"),
    ],
)
def test_no_tier_6_between_the_guides_bounds(hours, tier):
    from proposals.domain import assess

    from .builders import catalogue

    proposal = edit(example("lumi-fast-lane"), selection__total_gpu_hours=hours)
    assert assess(proposal, catalogue()).tier == tier
    assert findings(proposal, "TIER-6") == []
