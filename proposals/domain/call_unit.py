"""The request in the unit its call counts (the mode's ``request_unit``).

The wizard keeps every request in GPU-hours: the total, the job plan and the
schedule are GPU-hours, and the JSON format's ``selection.total_gpu_hours`` stays
one unit. A call that counts node-hours (AI for Science and Collaborative EU
Projects: 20,000 to 90,000 node-hours per project) reads the same request over
the target system's GPUs per node: a LUMI-G node-hour is 4 GPU-hours, a Karolina GPU
node-hour 8. This module is the one place that converts; the router, the
assessment, the rules, the sidebar and the exports read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import gettext as _
from .jobplan import JobPlan
from .numbers import grouped
from .numbers import json_number as n
from .terms import ModeTerms, unit_label
from .types import Cluster


def in_request_unit(
    gpu_hours: float | None, unit: str, gpus_per_node: int | None
) -> float | None:
    """``gpu_hours`` in a call's ``unit``: node-hours are GPU-hours over the GPUs of
    a node (``None`` when a node-hour figure has no system to convert with)."""
    if gpu_hours is None:
        return None
    if unit == "node_hours":
        return gpu_hours / gpus_per_node if gpus_per_node else None
    return gpu_hours


@dataclass(frozen=True)
class CallRequest:
    """The request and the job plan in the call's unit, when that unit is not
    GPU-hours, with the call's bounds (in the same unit) and their sources."""

    unit: str
    label: str
    system: str  # the system's name
    gpus_per_node: int
    requested: float | None
    job_plan: float
    jobs: tuple[float, ...]  # each job type's GPU-hours in the call's unit
    min_hours: float | None
    max_hours: float | None
    source: str
    checked: str
    #: Whether the system's billing unit gives the same figures (Leonardo Booster
    #: bills node-hours of 4 GPUs): the sidebar shows them once.
    same_as_billing: bool = False

    def amount(self, gpu_hours: float | None) -> str:
        """ "5,000 node-hours (20,000 GPU-hours on LUMI-G, 4 GPUs per node)"."""
        value = in_request_unit(gpu_hours, self.unit, self.gpus_per_node)
        return _(
            "{request} {unit} ({hours} GPU-hours on {system}, {gpus} GPUs per node)"
        ).format(
            request=grouped(value or 0, 0),
            unit=self.label,
            hours=grouped(gpu_hours or 0, 0),
            system=self.system,
            gpus=self.gpus_per_node,
        )

    def to_dict(self) -> dict:
        return {
            "unit": self.unit,
            "gpus_per_node": self.gpus_per_node,
            "requested": n(self.requested),
            "job_plan": n(self.job_plan),
            "min": n(self.min_hours),
            "max": n(self.max_hours),
            "source": self.source,
            "checked": self.checked,
        }


def call_request(
    mode: ModeTerms | None,
    cluster: Cluster | None,
    hours: float | None,
    plan: JobPlan | None = None,
) -> CallRequest | None:
    """The request (``hours`` GPU-hours) and the job ``plan`` in ``mode``'s unit on
    ``cluster``; ``None`` when the mode counts GPU-hours or no system is chosen."""
    if mode is None or cluster is None or mode.request_unit == "gpu_hours":
        return None
    source = mode.source("request_unit")
    per_node = cluster.gpus_per_node
    unit = mode.request_unit

    def convert(gpu_hours: float) -> float:
        return in_request_unit(gpu_hours, unit, per_node) or 0.0

    return CallRequest(
        unit=mode.request_unit,
        label=unit_label(mode.request_unit),
        system=cluster.name,
        gpus_per_node=per_node,
        requested=in_request_unit(hours, mode.request_unit, per_node),
        job_plan=convert(plan.total_gpu_hours) if plan else 0.0,
        jobs=tuple(convert(row.gpu_hours) for row in plan.rows) if plan else (),
        min_hours=mode.min_hours,
        max_hours=mode.max_hours,
        source=source.source if source else "",
        checked=source.checked if source else "",
        same_as_billing=(
            cluster.billing_unit == mode.request_unit
            and cluster.billing_unit_gpu_hours == per_node
        ),
    )
