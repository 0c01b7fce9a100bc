"""SEL rules: the AI Factory selection (system, GPU counts, job sizes).

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ..findings import ERROR, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop
from .common import num

NUMBER_WORDS = {
    "one": 1,
    "a single": 1,
    "single": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "thirty-two": 32,
    "sixty-four": 64,
}
NUM = r"(\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
# Words that may stand between a count and "node(s)": "2 full LUMI-G nodes".
NODE_WORDS = r"(?:[\s-]*(?:full|whole|compute|gpu|lumi-g|[a-z]+-g)\b)*"
NODES_MENTION = re.compile(
    rf"\b{NUM}\s*(?:[x×]\s*)?[\s-]*{NODE_WORDS}[\s-]*nodes?\b"
    rf"|\bnodes?\s*[:=]\s*{NUM}\b",
    re.IGNORECASE,
)
GPU_WORD = r"(?:GPUs?|graphics cards?|accelerators?|devices)"
# A claim that a node has N GPUs: "8 GPUs per node", "8 GPUs on each node",
# "8-GPU nodes", "nodes with 8 GPUs", "a node has 8 GPUs". GCDs per node are facts,
# not a mistake, so only GPU words count.
PER_NODE_MENTION = re.compile(
    rf"\b{NUM}\s*{GPU_WORD}\s*(?:per|/|a|each|on each|in each|on every|in every)"
    rf"\s*node\b"
    rf"|\b{NUM}[\s-]*GPU[\s-]*nodes?\b"
    rf"|\bnodes?\s+(?:with|of|having|has|have|holds?|contains?)\s+{NUM}\s*{GPU_WORD}",
    re.IGNORECASE,
)
# "16 GPUs (2 nodes)", "2 nodes (16 GPUs)", "2 nodes x 8 GPUs" in one phrase.
GPUS_AND_NODES = re.compile(
    rf"\b{NUM}\s*{GPU_WORD}\W{{1,4}}(?:on\s+|across\s+|over\s+|in\s+)?{NUM}"
    rf"{NODE_WORDS}[\s-]*nodes?\b"
    rf"|\b{NUM}{NODE_WORDS}[\s-]*nodes?\W{{1,4}}(?:with\s+|of\s+)?{NUM}\s*"
    rf"{GPU_WORD}",
    re.IGNORECASE,
)


def count(word: str | None) -> int | None:
    """A count written as digits or as a word ("two")."""
    if not word:
        return None
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word)


def node_counts(text: str) -> list[int]:
    """Every node count mentioned in ``text``."""
    found = []
    for match in NODES_MENTION.finditer(text):
        value = count(match[1] or match[2])
        if value:
            found.append(value)
    return found


@functools.lru_cache(maxsize=256)
def claims_dies_as_gpus(text: str, per_node: int, dies: int) -> bool:
    """Whether ``text`` counts a node's compute dies as GPUs: "8 GPUs per node" on a
    node of 4 GPUs with 8 dies, or "16 GPUs (2 nodes)". (Kept per text: the
    wizard asks again on every keystroke, mostly about texts not being typed in.)"""
    for match in PER_NODE_MENTION.finditer(text):
        if count(next(g for g in match.groups() if g)) == dies:
            return True
    for match in GPUS_AND_NODES.finditer(text):
        gpus, nodes, nodes2, gpus2 = (count(g) for g in match.groups())
        gpus, nodes = (gpus, nodes) if gpus else (gpus2, nodes2)
        if gpus and nodes and gpus == nodes * dies != nodes * per_node:
            return True
    return False


# Each required field with its request (whole sentences, translated when shown).
REQUIRED_SELECTION = (
    ("system", gettext_noop("Enter the target system.")),
    ("total_gpu_hours", gettext_noop("Enter the total GPU-hours.")),
    ("max_gpus_per_job", gettext_noop("Enter the maximum number of GPUs per job.")),
    ("storage_tb", gettext_noop("Enter the storage need in TB (0 if none).")),
    (
        "transfer_in_tb",
        gettext_noop("Enter the data volume to transfer in, in TB (0 if none)."),
    ),
    (
        "transfer_out_tb",
        gettext_noop("Enter the data volume to transfer out, in TB (0 if none)."),
    ),
)

# The fields that must be above zero, with the sentence saying so.
POSITIVE_SELECTION = {
    "total_gpu_hours": gettext_noop(
        "The total GPU-hours must be above zero, not {value}."
    ),
    "max_gpus_per_job": gettext_noop(
        "The maximum number of GPUs per job must be above zero, not {value}."
    ),
}


@rule(
    "SEL-1",
    severity=ERROR,
    title=gettext_noop("Required selection field missing"),
    step="selection",
)
def sel_required(ctx: Context) -> Iterator[Hit]:
    """One finding per empty required field of the AI Factory selection: system,
    total GPU-hours, maximum GPUs per job, storage, transfer in and out; and total
    GPU-hours or maximum GPUs per job of zero or below."""
    selection = ctx.proposal.selection
    for name, request in REQUIRED_SELECTION:
        value = getattr(selection, name)
        if value in (None, ""):
            yield Hit(f"selection.{name}", _(request))
        elif name in POSITIVE_SELECTION and not value > 0:
            yield Hit(
                f"selection.{name}",
                _(POSITIVE_SELECTION[name]).format(value=num(value)),
            )


@rule(
    "SEL-2",
    severity=WARNING,
    title=gettext_noop("Multi-node job not a whole number of nodes"),
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
                _(
                    "{gpus} GPUs is not a whole number of {system} nodes ({per_node} "
                    "GPUs each); use a multiple of {per_node}."
                ).format(
                    gpus=num(gpus), system=ctx.cluster.name, per_node=num(per_node)
                ),
            )


@rule(
    "SEL-3",
    severity=WARNING,
    title=gettext_noop("GPU count looks like GCDs"),
    step="selection",
)
def sel_gcds(ctx: Context) -> Iterator[Hit]:
    """On systems whose GPUs have several compute dies (LUMI-G: one MI250X is two
    GCDs, shown by Slurm as two GPUs): a job or measurement GPU count that equals the
    die count of the node count written next to it ("4 nodes", "two full nodes",
    "nodes: 4"), or a narrative or code description that counts dies as GPUs ("8
    GPUs per node", "8-GPU nodes", "nodes with 8 GPUs", "16 GPUs (2 nodes)")."""
    cluster = ctx.cluster
    if cluster is None or cluster.gcds_per_gpu <= 1:
        return
    per_node = cluster.gpus_per_node
    dies = per_node * cluster.gcds_per_gpu
    advice = _(
        "On {system} count physical GPUs: a node has {per_node} GPUs, which Slurm "
        "shows as {dies} GCDs. Divide GCD counts by {gcds}."
    ).format(
        system=cluster.name,
        per_node=num(per_node),
        dies=num(dies),
        gcds=num(cluster.gcds_per_gpu),
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
        if any(n * dies == gpus for n in node_counts(text)):
            yield Hit(field, advice)
    texts = [("scalability.narrative", scal.narrative)]
    texts += [
        (f"codes[{i}].description", c.description)
        for i, c in enumerate(ctx.proposal.codes)
    ]
    for field, text in texts:
        if claims_dies_as_gpus(text, per_node, dies):
            yield Hit(field, advice)


@rule(
    "SEL-4",
    severity=ERROR,
    title=gettext_noop("Unknown target system"),
    step="selection",
)
def sel_unknown_system(ctx: Context) -> Iterator[Hit]:
    """The target system is not in the cluster catalogue."""
    system = ctx.proposal.selection.system
    if system and ctx.cluster is None:
        known = _(", ").join(sorted(ctx.catalogue)) or _("none")
        yield Hit(
            "selection.system",
            _(
                "“{system}” is not a system in the catalogue; choose one of: {known}."
            ).format(system=system, known=known),
        )


@rule(
    "SEL-5",
    severity=ERROR,
    title=gettext_noop("Job larger than any partition"),
    step="selection",
)
def sel_partition_size(ctx: Context) -> Iterator[Hit]:
    """A job type needs more nodes than any partition of the target system allows."""
    for row in ctx.plan.rows:
        if row.fits_partition is False:
            # Fits no partition: the system is known and each partition has a limit.
            cluster = ctx.cluster
            assert cluster is not None
            largest = max(
                p.max_nodes for p in cluster.partitions if p.max_nodes is not None
            )
            yield Hit(
                f"scalability.jobs[{row.index}].gpus",
                _(
                    "{gpus} GPUs is {nodes} nodes, more than the {largest} nodes a job "
                    "may use on {system}; reduce the job size."
                ).format(
                    gpus=num(row.gpus),
                    nodes=num(row.nodes),
                    largest=num(largest),
                    system=cluster.name,
                ),
            )
