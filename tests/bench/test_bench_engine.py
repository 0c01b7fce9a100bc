"""Engine performance: assessing the demo proposals and a synthetic one ten times
larger, with the growth ratio (ten times the rows should cost at most about ten times).
"""

import dataclasses

from proposals.domain import assess
from proposals.domain.codeentry import CodeEntry
from proposals.domain.types import Job, Measurement
from tests.bench.conftest import Spread, median_ms, meets_spread, report, rounds_ms
from tests.domain.builders import catalogue, example

EXAMPLES = ["playground", "lumi-fast-lane", "bsc-large-scale", "bsc-many-small-jobs"]


def synthetic(scale: int):
    """The LUMI example grown to ``20*scale`` jobs, ``10*scale`` measurements and
    ``2*scale`` code entries."""
    base = example("lumi-fast-lane")
    codes = tuple(
        CodeEntry(role="main" if i == 0 else "other", name=f"code {i}", version="1.0")
        for i in range(2 * scale)
    )
    jobs = tuple(
        Job(title=f"job {i}", gpus=4 * (1 + i % 8), hours=2 + i % 5, count=1 + i % 7)
        for i in range(20 * scale)
    )
    measurements = tuple(
        Measurement(
            code=i % len(codes),
            gpus=4 * 2 ** (i % 5),
            throughput=1000 * 2 ** (i % 5) * 0.96 ** (i % 5),
            unit="samples/s",
        )
        for i in range(10 * scale)
    )
    scalability = dataclasses.replace(
        base.scalability, jobs=jobs, measurements=measurements
    )
    return dataclasses.replace(base, codes=codes, scalability=scalability)


def test_assessment_time_and_growth():
    clusters = catalogue()
    rows = []
    for name in EXAMPLES:
        proposal = example(name)
        rows.append(
            (f"{name}", f"{median_ms(lambda p=proposal: assess(p, clusters)):.2f} ms")
        )
    small, large = synthetic(1), synthetic(10)
    # In alternated rounds: the growth is the median of the rounds' ratios.
    timed = rounds_ms(
        {
            "small": lambda: assess(small, clusters),
            "large": lambda: assess(large, clusters),
        },
        repeat=7,
    )
    growth = Spread.ratio(timed, "large", "small")
    rows += [
        (
            "synthetic: 20 jobs, 10 measurements, 2 codes",
            Spread.of(timed, "small").shown(unit=" ms"),
        ),
        (
            "synthetic x10: 200 jobs, 100 measurements, 20 codes",
            Spread.of(timed, "large").shown(unit=" ms"),
        ),
        (
            "growth for 10x the rows (target <= 10x)",
            f"{growth.shown('.1f')} "
            f"{meets_spread('engine growth for 10x the rows', growth, 10)}",
        ),
    ]
    report("Engine: time per assessment (median)", rows)
    assert assess(large, clusters).plan.total_gpu_hours > 0
