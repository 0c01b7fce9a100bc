"""Issue 32, smaller items: the tier recommended for many small jobs whose
representative job was measured below the jobs' size, the AI for Science duration
note where the source says "about", and no projection where the target is not
above the measured range."""

import pytest

from proposals.domain import Measurement, assess
from proposals.domain.terms import FactSource

from .builders import catalogue, edit, example, findings

MANY = example("bsc-many-small-jobs")  # 80,000 GPU-hours: 5,000 jobs of 8 GPUs


def _measured_at(gpus):
    return edit(
        MANY,
        scalability__measurements=(
            Measurement(
                code=0,
                gpus=gpus,
                throughput=950,
                unit="samples/s",
                hardware="NVIDIA H100 (MareNostrum 5 ACC)",
            ),
        ),
    )


def test_a_representative_job_below_the_job_size_is_fast_lane_not_playground():
    # Measured at 4 GPUs, jobs of 8: there is throughput data and a stability
    # figure, only not at the size Large Scale asks for. Playground (for porting
    # and first measurements, up to 5,000 GPU-hours) was recommended, because "no
    # throughput measurements at two or more GPU counts" were found.
    a = assess(_measured_at(4), catalogue())
    assert a.recommended_tier == "fast_lane"
    (reason,) = a.reasons
    assert "measured at 4 GPUs, below the jobs' 8 GPUs" in reason
    (tier_3,) = findings(_measured_at(4), "TIER-3")
    assert "suggests Fast Lane rather than Large Scale" in tier_3.message
    (scal_5,) = findings(_measured_at(4), "SCAL-5")
    assert "measured at 4 GPUs, below the jobs' 8 GPUs: measure it at 8 GPUs" in (
        scal_5.message
    )


def test_a_representative_job_at_the_job_size_stays_large_scale():
    a = assess(_measured_at(8), catalogue())
    assert a.recommended_tier == "large_scale"
    assert not findings(_measured_at(8), "SCAL-5")


def test_without_a_stability_figure_nothing_changes():
    p = edit(_measured_at(4), scalability__runtime_stability_pct=None)
    assert assess(p, catalogue()).recommended_tier == "playground"


# AI for Science: the only source of its 6-month allocations says "about 6-month
# allocations" (unverified, second-hand): another duration is a note, not a warning.
SCIENCE = edit(
    example("bsc-large-scale"),
    call_family="ai_for_science",
    organisation__kind="academic",
    organisation__country="NL",
    organisation__vat_number="",
)


@pytest.mark.parametrize("months", [3, 9, 12])
def test_ai_for_science_duration_is_a_note_where_the_source_says_about(months):
    (hit,) = findings(edit(SCIENCE, selection__duration_months=months), "TIER-5")
    assert hit.severity == "info"
    assert "last about 6 months" in hit.message and f"{months} months" in hit.message
    assert "Check the current call text" in hit.message


def test_a_duration_the_terms_state_exactly_stays_a_warning():
    # Fast Lane's 1-3 months come from no "about": 6 months is still a warning.
    (hit,) = findings(
        edit(example("lumi-fast-lane"), selection__duration_months=6), "TIER-5"
    )
    assert hit.severity == "warning"


@pytest.mark.parametrize(
    ("text", "approximate"),
    [
        ("Product specification §2 (about 6-month allocations, peer review)", True),
        ("approximately 12 months", True),
        ("~6 months", True),
        ("EuroHPC call text, §3: 3, 6 or 12 months", False),
        ("Tell us about your project in 2 pages", False),
    ],
)
def test_a_source_that_gives_a_figure_roughly(text, approximate):
    assert FactSource(text, "2026-12-05").approximate is approximate


# The LUMI guide's example measured 4, 8 and 16 GPUs. A largest job of 4 GPUs
# (the base) or 2 was "Projected 100 %-100 % ... (0.25x beyond the data)".
@pytest.mark.parametrize(
    ("jobs", "words"),
    [
        (4, "the largest job, 4 GPUs, is within the measured range (4 to 16 GPUs)"),
        (8, "the largest job, 8 GPUs, is within the measured range (4 to 16 GPUs)"),
        (2, "the largest job, 2 GPUs, is below the measured range (4 to 16 GPUs)"),
    ],
)
def test_no_projection_is_needed_at_or_below_the_measured_range(jobs, words):
    p = edit(example("lumi-fast-lane"), selection__max_gpus_per_job=jobs)
    a = assess(p, catalogue())
    assert not a.projection.needed
    assert a.projection.not_needed_text == "No projection is needed: " + words + "."
    text = a.to_text()
    assert "No projection is needed: " + words in text
    assert "x the largest measurement" not in text


def test_a_projection_above_the_measured_range_is_still_given():
    a = assess(example("lumi-fast-lane"), catalogue())  # 32 GPUs, measured to 16
    assert a.projection.needed and a.projection.not_needed_text == ""
    assert "Projection at 32 GPUs" in a.to_text()
