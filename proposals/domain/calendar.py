"""Calendar feasibility: can the request be used up within the allocation?

GPU-hours are spent on a calendar. Spread evenly over the duration, a request keeps
``GPU-hours / (days x 24)`` GPUs (and that divided by the GPUs per node, nodes)
busy around the clock. That average is compared with what the job plan can run at
once (every job of every type in parallel: the most it could ever keep busy) and
with the size of the target system (all its GPU nodes, as the catalogue records
them with a source; a partition's node limit is a per-job limit, not the size). A
small allocation is lost to an idle calendar as surely as a large one is to a queue
that cannot serve it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .i18n import gettext, ngettext
from .jobplan import JobPlan
from .numbers import grouped, percent
from .numbers import json_number as n
from .types import Cluster

# An average month: a year of 365.25 days over 12.
DAYS_PER_MONTH = 365.25 / 12
# The share of a system's nodes one project can sensibly expect to keep busy on
# average over its whole allocation: a machine serves many projects (EuroHPC
# systems run hundreds), so an average above a tenth of it will not be scheduled.
MAX_MACHINE_SHARE = 0.10


@dataclass(frozen=True)
class LongJob:
    """A job type whose single job runs longer than the whole allocation."""

    index: int
    title: str
    hours: float


@dataclass(frozen=True)
class Calendar:
    """The request on the calendar. ``basis`` says which GPU-hours are spread:
    the requested total, or (when none is entered) the job plan's total."""

    duration_months: int
    calendar_hours: float
    gpu_hours: float
    basis: str  # "request" or "job plan"
    average_busy_gpus: float
    gpus_per_node: int | None
    plan_parallel_gpus: int | None  # every job of the plan at once; None: no plan
    system_name: str = ""
    system_nodes: int | None = None
    long_jobs: tuple[LongJob, ...] = ()
    max_share: float = MAX_MACHINE_SHARE

    @property
    def days(self) -> float:
        return self.duration_months * DAYS_PER_MONTH

    @property
    def node_hours(self) -> float | None:
        if not self.gpus_per_node:
            return None
        return self.gpu_hours / self.gpus_per_node

    @property
    def days_for_one_node(self) -> float | None:
        """Days one full node running around the clock takes to spend it all."""
        node_hours = self.node_hours
        return None if node_hours is None else node_hours / 24

    @property
    def average_busy_nodes(self) -> float | None:
        if not self.gpus_per_node:
            return None
        return self.average_busy_gpus / self.gpus_per_node

    @property
    def plan_parallel_nodes(self) -> float | None:
        if not self.gpus_per_node or self.plan_parallel_gpus is None:
            return None
        return self.plan_parallel_gpus / self.gpus_per_node

    @property
    def machine_share(self) -> float | None:
        """The average busy nodes as a share of the system's nodes."""
        nodes = self.average_busy_nodes
        if nodes is None or not self.system_nodes:
            return None
        return nodes / self.system_nodes

    @property
    def cannot_use_up(self) -> bool:
        """Even with every job of the plan running at once, fewer GPUs would be
        busy than the request needs on average: it cannot be spent in time."""
        return (
            self.plan_parallel_gpus is not None
            and self.average_busy_gpus > self.plan_parallel_gpus
        )

    @property
    def too_large_share(self) -> bool:
        share = self.machine_share
        return share is not None and share > self.max_share

    def to_dict(self) -> dict:
        """The ``calendar`` key of the ``assess`` report."""
        return {
            "duration_months": self.duration_months,
            "days": n(self.days, 2),
            "calendar_hours": n(self.calendar_hours, 2),
            "gpu_hours": n(self.gpu_hours),
            "basis": self.basis,
            "node_hours": n(self.node_hours),
            "average_busy_gpus": n(self.average_busy_gpus, 3),
            "average_busy_nodes": n(self.average_busy_nodes, 3),
            "days_for_one_node": n(self.days_for_one_node, 2),
            "plan_parallel_gpus": self.plan_parallel_gpus,
            "plan_parallel_nodes": n(self.plan_parallel_nodes, 3),
            "system": self.system_name or None,
            "system_nodes": self.system_nodes,
            "machine_share": n(self.machine_share, 4),
            "max_machine_share": n(self.max_share),
            "cannot_use_up": self.cannot_use_up,
            "too_large_share": self.too_large_share,
            "long_jobs": [
                {"job": job.index, "title": job.title, "hours": n(job.hours)}
                for job in self.long_jobs
            ],
        }

    def summary(self) -> str:
        """One sentence for people (exports, ``assess --format text``), in the
        active language: its clauses joined by semicolons."""
        gpus = grouped(self.average_busy_gpus, 1, trim=False)
        if self.average_busy_nodes is None:
            busy = gettext("{gpus} GPUs").format(gpus=gpus)
        else:
            busy = gettext("{gpus} GPUs ({nodes} nodes)").format(
                gpus=gpus, nodes=grouped(self.average_busy_nodes, 2, trim=False)
            )
        clauses = [
            ngettext(
                "{hours} GPU-hours over {months} month ({days} days) keep {busy} "
                "busy around the clock on average",
                "{hours} GPU-hours over {months} months ({days} days) keep {busy} "
                "busy around the clock on average",
                self.duration_months,
            ).format(
                hours=grouped(self.gpu_hours),
                months=self.duration_months,
                days=grouped(self.days, 0),
                busy=busy,
            )
        ]
        if self.plan_parallel_gpus is not None:
            clauses.append(
                gettext("the job plan runs at most {gpus} GPUs at once").format(
                    gpus=grouped(self.plan_parallel_gpus, 0)
                )
            )
        share = self.machine_share
        if share is not None:
            shown = (
                percent(share, 1)
                if share >= 0.001
                else gettext("under {share}").format(share=percent(0.001, 1))
            )
            clauses.append(
                gettext("that is {share} of {system} ({nodes} GPU nodes)").format(
                    share=shown,
                    system=self.system_name,
                    nodes=grouped(self.system_nodes, 0),
                )
            )
        one_node = self.days_for_one_node
        if one_node is not None and one_node < self.days:
            clauses.append(
                gettext(
                    "one node kept busy around the clock would use it all in "
                    "{days} days"
                ).format(days=grouped(one_node, 0))
            )
        return gettext("; ").join(clauses) + "."


def system_nodes(cluster: Cluster | None) -> int | None:
    """The system's size as the catalogue records it: all its GPU nodes (``None``
    when not recorded). Partitions' node limits are per job and never stand in."""
    if cluster is None or not cluster.gpu_nodes:
        return None
    return cluster.gpu_nodes


def feasibility(
    *,
    requested_gpu_hours: float | None,
    duration_months: int | None,
    plan: JobPlan,
    cluster: Cluster | None,
) -> Calendar | None:
    """The calendar of a request, or ``None`` without a duration or GPU-hours."""
    if not duration_months or duration_months <= 0:
        return None
    basis = "request"
    hours = requested_gpu_hours
    if not hours or hours <= 0:
        hours, basis = plan.total_gpu_hours, "job plan"
    if not hours or hours <= 0 or not math.isfinite(hours):
        return None
    calendar_hours = duration_months * DAYS_PER_MONTH * 24
    rows = [row for row in plan.rows if row.gpus > 0 and row.count > 0]
    parallel = sum(row.gpus * row.count for row in rows) if rows else None
    long_jobs = tuple(
        LongJob(row.index, row.title, row.hours)
        for row in rows
        if row.hours > calendar_hours
    )
    return Calendar(
        duration_months=duration_months,
        calendar_hours=calendar_hours,
        gpu_hours=hours,
        basis=basis,
        average_busy_gpus=hours / calendar_hours,
        gpus_per_node=cluster.gpus_per_node if cluster else None,
        plan_parallel_gpus=parallel,
        system_name=cluster.name if cluster else "",
        system_nodes=system_nodes(cluster),
        long_jobs=long_jobs,
    )


def for_proposal(proposal, plan: JobPlan, catalogue) -> Calendar | None:
    """The calendar of a domain ``proposal`` whose job plan is ``plan``, on its
    target system from ``catalogue`` (the ``assess`` report's ``calendar``)."""
    selection = proposal.selection
    return feasibility(
        requested_gpu_hours=selection.total_gpu_hours,
        duration_months=selection.duration_months,
        plan=plan,
        cluster=catalogue.get(selection.system) if selection.system else None,
    )
