"""Job plan arithmetic: GPU-hours and nodes per job type, totals, walltime limits."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .types import Cluster, Job


@dataclass(frozen=True)
class JobRow:
    """A job type with its derived figures; ``nodes``/``walltime_ok`` may be unknown.

    ``walltime_ok`` is ``True`` when some partition that fits the job's node count
    allows its walltime, ``False`` when every fitting partition with a known limit
    is too short, and ``None`` when no limit is known.
    """

    index: int
    title: str
    gpus: int
    hours: float
    count: int
    gpu_hours: float
    nodes: int | None
    walltime_ok: bool | None
    fits_partition: bool | None


@dataclass(frozen=True)
class JobPlan:
    """All job rows, their total GPU-hours and the largest job."""

    rows: tuple[JobRow, ...]
    total_gpu_hours: float
    largest_job_gpus: int | None
    largest_job_nodes: int | None


def nodes_for(gpus: int, cluster: Cluster | None) -> int | None:
    """Nodes needed for ``gpus`` physical GPUs (ceil), ``None`` if unknown."""
    if cluster is None or cluster.gpus_per_node <= 0 or gpus <= 0:
        return None
    return math.ceil(gpus / cluster.gpus_per_node)


def _walltime(nodes: int | None, hours: float, cluster: Cluster | None):
    """Return ``(fits_partition, walltime_ok)`` for a job of ``nodes`` x ``hours``."""
    if cluster is None or nodes is None or not cluster.partitions:
        return None, None
    fitting = [
        p for p in cluster.partitions if p.max_nodes is None or nodes <= p.max_nodes
    ]
    if not fitting:
        return False, None
    limits = [p.max_walltime_hours for p in fitting]
    if any(limit is not None and hours <= limit for limit in limits):
        return True, True
    if any(limit is None for limit in limits):
        return True, None
    return True, False


def job_plan(jobs: tuple[Job, ...], cluster: Cluster | None) -> JobPlan:
    """Compute per-row GPU-hours (GPUs x hours x count), nodes, total and largest."""
    rows = []
    for index, job in enumerate(jobs):
        nodes = nodes_for(job.gpus, cluster)
        fits, walltime_ok = _walltime(nodes, job.hours, cluster)
        rows.append(
            JobRow(
                index=index,
                title=job.title,
                gpus=job.gpus,
                hours=job.hours,
                count=job.count,
                gpu_hours=job.gpus * job.hours * job.count,
                nodes=nodes,
                walltime_ok=walltime_ok,
                fits_partition=fits,
            )
        )
    largest = max((row.gpus for row in rows), default=None)
    return JobPlan(
        rows=tuple(rows),
        total_gpu_hours=math.fsum(row.gpu_hours for row in rows),
        largest_job_gpus=largest,
        largest_job_nodes=nodes_for(largest, cluster) if largest else None,
    )
