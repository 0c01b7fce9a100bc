"""Issue 22's "still open" list, each from an applicant-like input: numbers in a
business motivation, a stability figure without a measurement, a blank HPC
experience, a projection below zero, site-provided and pip-installed code."""

import pytest

from proposals.domain import Measurement, assess
from proposals.domain.scaling import analyse, project, projection_series

from .builders import catalogue, edit, example, findings

LUMI = example("lumi-fast-lane")
MANY = example("bsc-many-small-jobs")  # Large Scale, 5,000 jobs of 8 GPUs, ±5 %


# CODE-7: an applicant's business pitch full of figures is still motivation.
@pytest.mark.parametrize(
    ("text", "fires"),
    [
        (
            "Our platform will transform the European market, serving 10,000 "
            "customers and cutting their costs by 30% within 2 years, with a "
            "business impact of EUR 5 million.",
            True,
        ),
        (
            "Fine-tuning a 7B model on 300B tokens with PyTorch 2.4; 64 GB per GPU, "
            "which benefits our customers.",
            False,
        ),
        ("Inference server: vLLM 0.6.3 serving 8 GPUs.", False),
    ],
)
def test_code_7_numbers_of_a_business_are_not_technical(text, fires):
    p = edit(LUMI, **{"codes[1]__description": text})
    assert bool(findings(p, "CODE-7")) is fires


# CODE-9: simulation code the site provides, or a service installed with pip.
@pytest.mark.parametrize(
    ("name", "text", "fires"),
    [
        (
            "GROMACS",
            "Molecular dynamics to generate training data: module load "
            "GROMACS/2024.1 on LUMI-G.",
            False,
        ),
        (
            "Label Studio",
            "Annotation service, pip install label-studio, run in "
            "a container on the login node.",
            False,
        ),
        ("CFD", "Computational fluid dynamics solver generating training data.", True),
        # Compiled code still says how it is built; Python code need not.
        ("CFD", "Our CFD solver in Fortran 2008, depends on MPI and HDF5.", True),
        ("ETL", "Data cleaning scripts in Python using pandas and numpy.", False),
    ],
)
def test_code_9_build_steps_only_if_required(name, text, fires):
    p = edit(
        LUMI,
        **{
            "codes[1]__role": "simulation",
            "codes[1]__name": name,
            "codes[1]__description": text,
        },
    )
    assert bool(findings(p, "CODE-9")) is fires


def test_a_stability_figure_without_a_measurement_is_no_throughput_evidence():
    """Large Scale, many small jobs, ±5 %, but no measurement: SCAL-5 fires and the
    recommended tier is not Large Scale."""
    p = edit(MANY, scalability__measurements=())
    a = assess(p, catalogue())
    assert a.tier == "large_scale"
    assert [f.field for f in a.findings if f.code == "SCAL-5"] == [
        "scalability.measurements"
    ]
    assert a.recommended_tier != "large_scale"
    # The shipped example (one representative 8-GPU job measured) passes.
    good = assess(MANY, catalogue())
    assert not [f for f in good.findings if f.code == "SCAL-5"]
    assert good.recommended_tier == "large_scale"


def test_a_representative_job_smaller_than_the_jobs_is_not_enough():
    one_gpu = (Measurement(code=0, gpus=1, throughput=120, unit="samples/s"),)
    a = assess(edit(MANY, scalability__measurements=one_gpu), catalogue())
    assert a.recommended_tier != "large_scale"
    assert any(f.code == "SCAL-5" for f in a.findings)


@pytest.mark.parametrize(
    ("experience", "says_prior"), [("", False), ("some", True), ("proven", True)]
)
def test_fast_lane_reason_speaks_of_experience_only_when_given(experience, says_prior):
    p = edit(LUMI, experience__hpc_experience=experience)
    a = assess(p, catalogue())
    assert a.recommended_tier == "fast_lane"
    text = " ".join(a.reasons)
    assert ("Prior HPC experience" in text) is says_prior


def test_projection_is_clamped_at_zero_and_says_why():
    # Throughput that stops growing: 1,000 / 1,400 / 1,500 samples/s at 8/16/32
    # GPUs. Efficiency 100 / 70 / 37.5 % at log2(N) = 3, 4, 5; the least-squares
    # line is 1.9417 - 0.3125·log2(N), -0.871 at 512 GPUs (log2 = 9).
    m = tuple(
        Measurement(code=0, gpus=g, throughput=t, unit="samples/s")
        for g, t in ((8, 1000), (16, 1400), (32, 1500))
    )
    p = project(projection_series(analyse(m), (0,)), 512, None)
    assert p.log2_slope == pytest.approx((0.375 - 1) / 2)
    assert p.log2_efficiency == pytest.approx(1.94167 - 0.3125 * 9, abs=1e-4)
    assert p.log2_below_zero
    assert p.efficiency_low == 0.0 and p.efficiency_high > 0
    from proposals.exports.tables import projection_sentence

    a = assess(
        edit(LUMI, scalability__measurements=m, selection__max_gpus_per_job=512),
        catalogue(),
    )
    text = projection_sentence(a)
    assert text.startswith("Projected 0-")
    assert "-87" not in text and "falls below zero" in text
    assert "falls below zero" in a.to_text()
    assert a.to_dict()["projection"]["log2_below_zero"] is True
