"""SEL rules: the AI Factory selection (system, GPU counts, job sizes).

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..findings import ERROR, WARNING, Context, Hit, rule

NODES_MENTION = re.compile(r"(\d+)\s*nodes?\b", re.IGNORECASE)
PER_NODE_MENTION = re.compile(r"(\d+)\s*(?:GPUs?|GCDs?)\s*(?:per|/|a)\s*node", re.I)

REQUIRED_SELECTION = (
    ("system", "the target system"),
    ("total_gpu_hours", "the total GPU-hours"),
    ("max_gpus_per_job", "the maximum number of GPUs per job"),
    ("storage_tb", "the storage need in TB (0 if none)"),
    ("transfer_in_tb", "the data volume to transfer in, in TB (0 if none)"),
    ("transfer_out_tb", "the data volume to transfer out, in TB (0 if none)"),
)


@rule(
    "SEL-1", severity=ERROR, title="Required selection field missing", step="selection"
)
def sel_required(ctx: Context) -> Iterator[Hit]:
    """One finding per empty required field of the AI Factory selection: system,
    total GPU-hours, maximum GPUs per job, storage, transfer in and out."""
    selection = ctx.proposal.selection
    for name, label in REQUIRED_SELECTION:
        if getattr(selection, name) in (None, ""):
            yield Hit(f"selection.{name}", f"Enter {label}.")


@rule(
    "SEL-2",
    severity=WARNING,
    title="Multi-node job not a whole number of nodes",
    step="selection",
)
def sel_whole_nodes(ctx: Context) -> Iterator[Hit]:
    """A job size above one node that is not a multiple of the GPUs per node: the
    partial node is billed anyway and scaling data rarely covers it."""
    if ctx.cluster is None:
        return
    per_node = ctx.cluster.gpus_per_node
    sizes = [("selection.max_gpus_per_job", ctx.proposal.selection.max_gpus_per_job)]
    sizes += [(f"scalability.jobs[{r.index}].gpus", r.gpus) for r in ctx.plan.rows]
    for field, gpus in sizes:
        if gpus and gpus > per_node and gpus % per_node:
            yield Hit(
                field,
                f"{gpus} GPUs is not a whole number of {ctx.cluster.name} nodes "
                f"({per_node} GPUs each); use a multiple of {per_node}.",
            )


@rule("SEL-3", severity=WARNING, title="GPU count looks like GCDs", step="selection")
def sel_gcds(ctx: Context) -> Iterator[Hit]:
    """On systems whose GPUs have several compute dies (LUMI-G: one MI250X is two
    GCDs, shown by Slurm as two GPUs), a GPU count that matches the die count of
    the node count mentioned next to it, or text claiming that many GPUs per node."""
    cluster = ctx.cluster
    if cluster is None or cluster.gcds_per_gpu <= 1:
        return
    dies = cluster.gpus_per_node * cluster.gcds_per_gpu
    advice = (
        f"On {cluster.name} count physical GPUs: a node has {cluster.gpus_per_node} "
        f"GPUs, which Slurm shows as {dies} GCDs. Divide GCD counts by "
        f"{cluster.gcds_per_gpu}."
    )
    scal = ctx.proposal.scalability
    labelled = [
        (f"scalability.jobs[{i}].gpus", j.title, j.gpus)
        for i, j in enumerate(scal.jobs)
    ]
    labelled += [
        (f"scalability.measurements[{i}].gpus", m.hardware, m.gpus)
        for i, m in enumerate(scal.measurements)
    ]
    for field, text, gpus in labelled:
        nodes = [int(n) for n in NODES_MENTION.findall(text)]
        if any(n * dies == gpus for n in nodes):
            yield Hit(field, advice)
    for match in PER_NODE_MENTION.finditer(scal.narrative):
        if int(match[1]) == dies:
            yield Hit("scalability.narrative", advice)
            break


@rule("SEL-4", severity=ERROR, title="Unknown target system", step="selection")
def sel_unknown_system(ctx: Context) -> Iterator[Hit]:
    """The target system is not in the cluster catalogue."""
    system = ctx.proposal.selection.system
    if system and ctx.cluster is None:
        known = ", ".join(sorted(ctx.catalogue)) or "none"
        yield Hit(
            "selection.system",
            f"“{system}” is not a system in the catalogue; choose one of: {known}.",
        )


@rule("SEL-5", severity=ERROR, title="Job larger than any partition", step="selection")
def sel_partition_size(ctx: Context) -> Iterator[Hit]:
    """A job type needs more nodes than any partition of the target system allows."""
    for row in ctx.plan.rows:
        if row.fits_partition is False:
            largest = max(p.max_nodes for p in ctx.cluster.partitions)
            yield Hit(
                f"scalability.jobs[{row.index}].gpus",
                f"{row.gpus} GPUs is {row.nodes} nodes, more than the {largest} "
                f"nodes a job may use on {ctx.cluster.name}; reduce the job size.",
            )
