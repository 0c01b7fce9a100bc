"""Invariants of the engine, checked on generated data."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proposals.domain import (
    CodeEntry,
    Experience,
    Job,
    Measurement,
    Organisation,
    Proposal,
    Scalability,
    Selection,
    UsagePeriod,
    assess,
)
from proposals.domain.jobplan import job_plan
from proposals.domain.scaling import amdahl_speedup, analyse, project
from proposals.domain.tiers import TIERS, tier_for_hours

from .builders import catalogue

hours = st.floats(min_value=0.01, max_value=1e7, allow_nan=False)


@pytest.mark.parametrize(
    "value, tier",
    [
        (None, None),
        (0, None),
        (1, "playground"),
        (5000, "playground"),
        (5000.5, "fast_lane"),
        (5001, "fast_lane"),
        (50000, "fast_lane"),
        (50000.01, "large_scale"),
        (50001, "large_scale"),
    ],
)
def test_tier_boundaries(value, tier):
    assert tier_for_hours(value) == tier


@given(hours, hours)
def test_tier_is_monotonic_in_hours(a, b):
    low, high = sorted((a, b))
    assert TIERS.index(tier_for_hours(low)) <= TIERS.index(tier_for_hours(high))


jobs = st.lists(
    st.builds(
        Job,
        gpus=st.integers(1, 2048),
        hours=st.floats(0.25, 200, allow_nan=False),
        count=st.integers(1, 10000),
    ),
    max_size=30,
)


@given(jobs)
def test_job_plan_totals_are_sums(rows):
    plan = job_plan(tuple(rows), catalogue()["lumi-g"])
    assert plan.total_gpu_hours == pytest.approx(
        sum(j.gpus * j.hours * j.count for j in rows)
    )
    for job, row in zip(rows, plan.rows, strict=True):
        assert row.gpu_hours == job.gpus * job.hours * job.count
        assert row.nodes == math.ceil(job.gpus / 4)
    assert plan.largest_job_gpus == max((j.gpus for j in rows), default=None)


measurements = st.lists(
    st.builds(
        Measurement,
        gpus=st.integers(1, 4096),
        throughput=st.floats(0.001, 1e9, allow_nan=False),
    ),
    min_size=1,
    max_size=20,
)


@given(measurements)
def test_base_point_efficiency_is_exactly_one(rows):
    series = analyse(tuple(rows)).series[0]
    base = series.points[0]
    assert base.gpus == min(r.gpus for r in rows)
    assert base.speedup == 1.0 and base.efficiency == 1.0


@settings(max_examples=150, deadline=None)
@given(
    f=st.floats(0.0, 0.3),
    base=st.sampled_from([1, 2, 4, 8]),
    doublings=st.integers(1, 5),
    target_doublings=st.integers(0, 4),
    rate=st.floats(1.0, 1e5),
)
def test_projection_band_contains_amdahl_value_for_amdahl_data(
    f, base, doublings, target_doublings, rate
):
    counts = [base * 2**k for k in range(doublings + 1)]
    rows = tuple(
        Measurement(gpus=n, throughput=rate * amdahl_speedup(n / base, f))
        for n in counts
    )
    target = counts[-1] * 2**target_doublings
    p = project(analyse(rows).series[0], target, "fast_lane")
    truth = amdahl_speedup(target / base, f) / (target / base)
    assert p.efficiency_low - 1e-6 <= truth <= p.efficiency_high + 1e-6
    assert p.amdahl_efficiency == pytest.approx(truth, abs=1e-6)


text = st.text(max_size=40)
maybe = st.none() | st.floats(-1e6, 1e7, allow_nan=False)
small_int = st.integers(-5, 5000)


def proposals():
    return st.builds(
        Proposal,
        title=text,
        call_family=st.sampled_from(["industrial_innovation", "ai_for_science"]),
        organisation=st.builds(
            Organisation,
            kind=st.sampled_from(["", "startup", "academic", "x"]),
            country=st.sampled_from(["", "FI", "GR", "AM", "US", "zz"]),
            vat_number=text,
            ongoing_eurohpc_project=st.booleans(),
        ),
        experience=st.builds(
            Experience,
            hpc_experience=st.sampled_from(["", "none", "some", "proven"]),
            stack_demonstrated_on_target=st.none() | st.booleans(),
        ),
        selection=st.builds(
            Selection,
            system=st.sampled_from(["", "lumi-g", "karolina-gpu", "nope"]),
            total_gpu_hours=maybe,
            max_gpus_per_job=st.none() | small_int,
            storage_tb=maybe,
            duration_months=st.none() | st.integers(-2, 24),
        ),
        codes=st.lists(
            st.builds(
                CodeEntry,
                role=st.sampled_from(["main", "other", "simulation"]),
                name=text,
                description=text,
            ),
            max_size=3,
        ).map(tuple),
        scalability=st.builds(
            Scalability,
            narrative=text,
            workload=st.sampled_from(["", "single_large_job", "many_small_jobs"]),
            runtime_stability_pct=maybe,
            measurements=st.lists(
                st.builds(
                    Measurement,
                    code=st.none() | st.integers(-1, 4),
                    gpus=small_int,
                    throughput=st.floats(allow_nan=True, allow_infinity=True),
                    mfu_pct=maybe,
                    hardware=text,
                ),
                max_size=6,
            ).map(tuple),
            jobs=st.lists(
                st.builds(
                    Job,
                    gpus=small_int,
                    hours=st.floats(-10, 500, allow_nan=False),
                    count=small_int,
                ),
                max_size=5,
            ).map(tuple),
            schedule=st.lists(
                st.builds(
                    UsagePeriod,
                    from_month=st.integers(-1, 30),
                    to_month=st.integers(-1, 30),
                    gpu_hours=st.floats(-1e5, 1e6, allow_nan=False),
                ),
                max_size=4,
            ).map(tuple),
        ),
        optimisation_narrative=text,
    )


@settings(max_examples=300, deadline=None)
@given(proposals())
def test_assess_never_raises_and_output_is_json_ready(proposal):
    a = assess(proposal, catalogue())
    d = a.to_dict()
    assert d["counts"]["info"] >= 1  # TIER-1 is always there
    assert all(f["severity"] in ("error", "warning", "info") for f in d["findings"])
