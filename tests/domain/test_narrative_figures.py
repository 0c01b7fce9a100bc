"""Narrative against figures (PLAN-4): figures the tables contradict are found,
figures about something else (MFU, tests, other counts) are left alone."""

import pytest

from proposals.domain import Job, assess
from proposals.domain.narrative_figures import contradictions, sentences

from .builders import catalogue, edit, example, findings

LUMI = example("lumi-fast-lane")  # measured 4/8/16 GPUs: 100 / 95 / 88 %; 76-82 % at 32
LUMI_ASSESSMENT = assess(LUMI, catalogue())


def check(text, *, requested=18176.0, target=32, gcds=2, assessment=LUMI_ASSESSMENT):
    return contradictions(
        text,
        analysis=assessment.analysis,
        projection=assessment.projection,
        plan=assessment.plan,
        requested_gpu_hours=requested,
        target_gpus=target,
        gcds_per_gpu=gcds,
    )


@pytest.mark.parametrize(
    ("text", "kind", "computed"),
    [
        # A range that misses the projection altogether.
        (
            "Extrapolating from 88% efficiency, we expect 86-90% at 32 GPUs.",
            "efficiency",
            "76%-82% projected at 32 GPUs",
        ),
        # Bounds that do not hold.
        (
            "We expect over 90 % efficiency at 32 GPUs.",
            "efficiency",
            "76%-82% projected at 32 GPUs",
        ),
        ("Efficiency stays below 70 % at 16 GPUs.", "efficiency", "88% measured"),
        ("The speedup is more than 5x at 16 GPUs.", "speedup", "3.52x measured"),
        (
            "We expect a parallel efficiency of 90 % at 32 GPUs.",
            "efficiency",
            "76%-82% projected",
        ),
        ("Efficiency was 95% at 16 GPUs.", "efficiency", "88% measured at 16 GPUs"),
        (
            "We reach 99 % scaling efficiency on 8 GPUs.",
            "efficiency",
            "95% measured at 8 GPUs",
        ),
        ("Efficiency: 70 % at 32 GCDs.", "efficiency", "88% measured at 16 GPUs"),
        ("The speedup is 3.9x at 16 GPUs.", "speedup", "3.52x measured at 16 GPUs"),
        ("We project a 30x speedup at 32 GPUs.", "speedup", "projected at 32 GPUs"),
        ("Jobs use up to 64 GPUs.", "gpus", "32 GPUs per job at most"),
        ("Our training runs take 128 GPUs per job.", "gpus", "32 GPUs per job at most"),
        (
            "In total we request 20,000 GPU-hours.",
            "gpu_hours",
            "18,176 GPU-hours requested",
        ),
        ("The allocation of 25k GPU-hours covers it.", "gpu_hours", "18,176"),
        ("We ask for 18.500 GPU hours in total.", "gpu_hours", "18,176"),
    ],
)
def test_contradictions_found(text, kind, computed):
    (found,) = check(text)
    assert found.kind == kind
    assert computed in found.computed


@pytest.mark.parametrize(
    "text",
    [
        # The figures agree (within rounding).
        "88% efficiency at 16 GPUs (4 nodes).",
        "We expect 78-82 % efficiency at 32 GPUs.",
        "Efficiency of 94 % at 8 GPUs.",
        "The speedup is 3.5x at 16 GPUs.",
        "In total we request 18,176 GPU-hours.",
        "We request 18.2k GPU-hours in total.",
        "Jobs use up to 32 GPUs.",
        "Jobs use up to 64 GCDs.",
        "Each job uses 8 GPUs per job for sweeps.",
        # The LUMI guide's own model sentence: 80-85 % overlaps the 76-82 % projected.
        "Extrapolating from 88% efficiency, we expect 80-85% at 32 GPUs.",
        "Based on these results, we project 80–85% scaling efficiency up to 32 GPUs.",
        # Bounds that hold.
        "We expect over 70 % efficiency at 32 GPUs.",
        "Efficiency stays above 85% at 16 GPUs.",
        "Parallel efficiency is at least 75 % at 32 GPUs.",
        "Efficiency is below 90 % at 16 GPUs.",
        "The speedup is over 3x at 16 GPUs.",
        # Parts of the total (the LUMI guide's job table: ablations 12,288).
        "Of the total, 12,288 GPU-hours are for ablation training.",
        "The request includes 3,840 GPU-hours for the hyperparameter sweep.",
        "Of the 18,176 GPU-hours requested, 768 are for the full-scale run.",
        "Ablations take 12,288 GPU-hours of the total request.",
        # Other or earlier allocations.
        "Our previous Playground allocation of 2,000 GPU-hours was used for porting.",
        "We were granted 5,000 GPU-hours in total on Leonardo last year.",
        "An earlier allocation of 4,000 GPU-hours on LUMI covered the tests.",
        "In our previous project we reached 97 % efficiency at 16 GPUs.",
        "On another system the speedup was 3.9x at 16 GPUs.",
        # Figures about something else.
        "MFU is 38 % at 32 GPUs and efficiency will be fine.",
        "Efficiency matters; 45 % of the step is data loading at 16 GPUs.",
        "Communication overhead grows to 18% at 16 GPUs, efficiency stays high.",
        "We tested up to 16 GPUs; scaling tests continue.",
        "A 2x larger model fits in memory.",
        "The pre-training needs 5,000 GPU-hours of the 18,176.",
        "5,000 x 8 x 2 = 80,000 GPU-hours.",
        # No GPU count to compare with, or one nothing was computed for.
        "We expect 80-85 % efficiency.",
        "Efficiency of 60 % at 64 GPUs on another system.",
        "",
    ],
)
def test_no_false_alarm(text):
    assert check(text) == []


def test_sentences_keep_decimals_and_split_on_stops():
    assert sentences("Speedup 3.52x at 16 GPUs. Next; then (more).\nNew line") == [
        "Speedup 3.52x at 16 GPUs.",
        "Next; then (more).",
        "New line",
    ]


def test_without_a_projection_only_measured_counts_are_compared():
    blank = assess(edit(LUMI, scalability__measurements=()), catalogue())
    assert check("We expect 99 % efficiency at 32 GPUs.", assessment=blank) == []


def test_gpu_hours_that_match_the_job_plan_are_fine():
    plan_total = LUMI_ASSESSMENT.plan.total_gpu_hours
    text = f"The job plan totals {plan_total:,.0f} GPU-hours."
    assert check(text, requested=10.0) == []


def test_plan_4_shows_both_figures():
    wrong = edit(
        LUMI,
        scalability__narrative="We measured 88% efficiency at 16 GPUs and expect "
        "86-90% at 32 GPUs.",
    )
    (finding,) = findings(wrong, "PLAN-4")
    assert "86-90%" in finding.message and "76%-82%" in finding.message
    fixed = edit(
        LUMI,
        scalability__narrative="We measured 88% efficiency at 16 GPUs and expect "
        "76-82% at 32 GPUs.",
    )
    assert findings(fixed, "PLAN-4") == []


def test_plan_4_job_count_from_the_plan():
    proposal = edit(
        LUMI,
        scalability__jobs=(Job("x", 32, 24, 1),),
        scalability__narrative="Each job uses 64 GPUs per job.",
    )
    assert [f.field for f in findings(proposal, "PLAN-4")] == ["scalability.narrative"]


def test_the_lumi_example_is_consistent():
    """The shipped example (the LUMI guide's model sentence) has no PLAN-4."""
    assert findings(LUMI, "PLAN-4") == []


def test_a_schedule_period_is_a_part_of_the_total():
    from proposals.domain import UsagePeriod

    proposal = edit(
        LUMI,
        scalability__schedule=(
            UsagePeriod(1, 1, 6000.0, "porting"),
            UsagePeriod(2, 3, 12176.0, "training"),
        ),
        scalability__narrative="We request 12,176 GPU-hours in total for months 2-3.",
    )
    assert findings(proposal, "PLAN-4") == []
