"""Calendar feasibility: average busy GPUs and nodes, against the job plan's
parallelism and the system's size (PLAN-3)."""

import dataclasses

import pytest

from proposals.domain import Job, Partition
from proposals.domain.calendar import (
    DAYS_PER_MONTH,
    MAX_MACHINE_SHARE,
    feasibility,
    system_nodes,
)
from proposals.domain.jobplan import job_plan

from .builders import catalogue, edit, example, findings

LUMI = catalogue()["lumi-g"]
HOURS_PER_MONTH = DAYS_PER_MONTH * 24  # 730.5


def calendar(hours, months, jobs=(), cluster=LUMI):
    return feasibility(
        requested_gpu_hours=hours,
        duration_months=months,
        plan=job_plan(tuple(jobs), cluster),
        cluster=cluster,
    )


def test_the_lumi_guide_example():
    cal = calendar(18176, 3, example("lumi-fast-lane").scalability.jobs)
    assert cal.calendar_hours == pytest.approx(3 * 730.5)
    assert cal.average_busy_gpus == pytest.approx(18176 / 2191.5)
    assert cal.average_busy_nodes == pytest.approx(18176 / 2191.5 / 4)
    assert cal.node_hours == 4544
    assert cal.plan_parallel_gpus == 8 * 120 + 32 + 32 * 16 + 4 * 160
    assert cal.system_nodes == 2978
    assert not cal.cannot_use_up and not cal.too_large_share
    assert cal.machine_share == pytest.approx(18176 / 2191.5 / 4 / 2978)


@pytest.mark.parametrize(
    ("hours", "months", "jobs", "cannot", "long", "share"),
    [
        # One node kept busy for a year: 35,064 GPU-hours on a 1-job plan of 4 GPUs.
        (4 * 12 * HOURS_PER_MONTH, 12, [Job("run", 4, 8766, 1)], False, False, False),
        # Twice that on the same plan: cannot be spent in time, and the job is long.
        (8 * 12 * HOURS_PER_MONTH, 12, [Job("run", 4, 17532, 1)], True, True, False),
        # Many parallel jobs make the same hours feasible.
        (8 * 12 * HOURS_PER_MONTH, 12, [Job("run", 4, 4383, 4)], False, False, False),
        # 400 nodes on average for 3 months is 13.4 % of LUMI-G's 2,978 GPU nodes.
        (1600 * 3 * HOURS_PER_MONTH, 3, [Job("x", 512, 48, 300)], False, False, True),
        # 200 nodes is 6.7 %: within the share, although above a tenth of
        # standard-g's per-job limit of 1,024 nodes (the old, wrong size).
        (800 * 3 * HOURS_PER_MONTH, 3, [Job("x", 512, 48, 300)], False, False, False),
        # Exactly the share allowed is still fine.
        (
            MAX_MACHINE_SHARE * 2978 * 4 * HOURS_PER_MONTH,
            1,
            [Job("x", 512, 48, 100)],
            False,
            False,
            False,
        ),
        # No job plan: only the share is judged.
        (1000, 1, [], False, False, False),
    ],
)
def test_cases(hours, months, jobs, cannot, long, share):
    cal = calendar(hours, months, jobs)
    assert cal.cannot_use_up is cannot
    assert bool(cal.long_jobs) is long
    assert cal.too_large_share is share


def test_nothing_to_judge_without_duration_or_hours():
    assert calendar(1000, None) is None
    assert calendar(None, 3) is None
    assert calendar(0, 3) is None


def test_the_job_plan_stands_in_for_a_missing_request():
    cal = calendar(None, 1, [Job("x", 8, 10, 10)])
    assert cal.basis == "job plan" and cal.gpu_hours == 800


def test_systems_without_a_recorded_size_get_no_share():
    # Partitions' node limits are per job: they never stand in for the size.
    booster = dataclasses.replace(catalogue()["leonardo-booster"], gpu_nodes=None)
    booster = dataclasses.replace(
        booster, partitions=(Partition("booster", max_nodes=256),)
    )
    assert system_nodes(booster) is None
    cal = calendar(10**7, 1, [], cluster=booster)
    assert cal.machine_share is None and not cal.too_large_share
    assert "of Leonardo" not in cal.summary()


def test_without_a_system_gpus_are_still_counted():
    cal = calendar(14610, 10, [Job("x", 1, 1, 1)], cluster=None)
    assert cal.average_busy_gpus == pytest.approx(2)
    assert cal.average_busy_nodes is None
    assert cal.cannot_use_up


def test_report_and_summary():
    cal = calendar(18176, 3, example("lumi-fast-lane").scalability.jobs)
    report = cal.to_dict()
    assert report["max_machine_share"] == MAX_MACHINE_SHARE
    assert report["system_nodes"] == 2978 and report["cannot_use_up"] is False
    assert report["average_busy_gpus"] == pytest.approx(8.294, abs=1e-3)
    assert cal.summary().startswith("18,176 GPU-hours over 3 months (91 days)")


@pytest.mark.parametrize(
    ("changes", "fields"),
    [
        (
            {
                "selection__duration_months": 1,
                "scalability__jobs": (Job("Run", gpus=4, hours=4544.0, count=1),),
            },
            ["scalability.jobs", "scalability.jobs[0].hours"],
        ),
        (
            {
                "selection__total_gpu_hours": 1_000_000.0,
                "selection__duration_months": 1,
            },
            ["selection.total_gpu_hours"],
        ),
        ({}, []),
    ],
)
def test_plan_3(changes, fields):
    found = findings(edit(example("lumi-fast-lane"), **changes), "PLAN-3")
    assert sorted(f.field for f in found) == sorted(fields)
    assert all(f.severity == "warning" for f in found)
    if "selection.total_gpu_hours" in fields:
        message = next(
            f.message for f in found if f.field == "selection.total_gpu_hours"
        )
        assert "10%" in message and "LUMI-G" in message


def test_the_rule_reference_states_the_share_the_code_uses():
    from proposals.domain.findings import REGISTRY

    assert (
        f"{MAX_MACHINE_SHARE:.0%}".replace("%", " %") in REGISTRY["PLAN-3"].description
    )


def test_a_small_allocation_says_how_soon_one_node_uses_it_up():
    cal = calendar(2000, 3, [Job("x", 4, 2, 250)])
    assert cal.days_for_one_node == pytest.approx(2000 / 4 / 24)
    assert "one node kept busy around the clock would use it all in 21 days" in (
        cal.summary()
    )
    assert "under 0.1% of LUMI-G" in cal.summary()


# The cases, computed by hand: GPU-hours / (months x 730.5 h) / 4 GPUs per
# node, against 10 % of each system's GPU nodes.
@pytest.mark.parametrize(
    ("slug", "hours", "months", "nodes", "share"),
    [
        # 1.5 M GPU-hours in 3 months: 171.1 nodes busy, 5.7 % of LUMI-G's 2,978
        # (the old size, standard-g's 1,024-node job limit, gave a false 16.7 %).
        ("lumi-g", 1_500_000, 3, 2978, False),
        # 2.7 M: 308.0 nodes, 10.3 % of 2,978.
        ("lumi-g", 2_700_000, 3, 2978, True),
        # JUPITER Booster (about 6,000 nodes): 4 M GPU-hours in 1 month keep 1,369
        # nodes busy, 23 %; it passed before because no size was recorded.
        ("jupiter-booster", 4_000_000, 1, 6000, True),
        # Leonardo Booster (3,456 nodes): 3 M in 3 months, 342.2 nodes, 9.9 %.
        ("leonardo-booster", 3_000_000, 3, 3456, False),
        # 3.1 M: 353.7 nodes, 10.2 %.
        ("leonardo-booster", 3_100_000, 3, 3456, True),
    ],
)
def test_plan_3_uses_the_whole_system(slug, hours, months, nodes, share):
    cluster = catalogue()[slug]
    cal = calendar(hours, months, [], cluster=cluster)
    assert cal.system_nodes == nodes
    busy_nodes = hours / (months * 730.5) / 4
    assert cal.average_busy_nodes == pytest.approx(busy_nodes)
    assert cal.too_large_share is share
    assert (busy_nodes / nodes > 0.10) is share


def test_every_system_records_its_size_with_a_source_and_a_date():
    """Every system in production; an announced one may not have published its size
    yet (tests/web/test_systems_catalogue.py holds those to a source or
    "unverified")."""
    import datetime

    for cluster in catalogue().values():
        if not cluster.in_production:
            continue
        assert cluster.gpu_nodes and cluster.gpu_nodes > 0, cluster.slug
        assert cluster.gpu_nodes_source, cluster.slug
        datetime.date.fromisoformat(cluster.gpu_nodes_checked)
        # A per-job limit is never larger than the machine.
        assert all(
            p.max_nodes is None or p.max_nodes <= cluster.gpu_nodes
            for p in cluster.partitions
        ), cluster.slug
