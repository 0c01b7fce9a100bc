"""The words the wizard uses, each defined once: the glossary page shows them all,
table headers and help texts link to them (see ``FieldSpec.term``).

``short`` is one sentence for hover/focus help; ``text`` the full entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import Translated, gettext_noop


@dataclass(frozen=True)
class Term:
    slug: str  # the anchor on the glossary page
    name: str = Translated()
    short: str = Translated()
    text: str = Translated()
    see: tuple[str, ...] = ()  # slugs of related terms


TERMS: tuple[Term, ...] = (
    Term(
        "gpu",
        gettext_noop("GPU"),
        gettext_noop(
            "One physical graphics processor; on LUMI-G one AMD MI250X (two GCDs)."
        ),
        gettext_noop(
            "A graphics processor, the unit the calls count in. Requests and billing "
            "count physical GPUs: on LUMI-G one GPU is one AMD MI250X, although Slurm "
            "shows each MI250X as two GCDs, so a LUMI-G node has 4 GPUs, not 8."
        ),
        ("gcd", "node", "gpu-hour"),
    ),
    Term(
        "gpu-hour",
        gettext_noop("GPU-hour"),
        gettext_noop("One physical GPU used for one hour: the unit of every request."),
        gettext_noop(
            "One physical GPU used for one hour. A job's GPU-hours are its GPUs times "
            "its walltime; the request is the sum over all jobs. 16 GPUs for 24 hours "
            "are 384 GPU-hours. The tier follows from the total alone."
        ),
        ("gpu", "walltime", "node-hour"),
    ),
    Term(
        "node",
        gettext_noop("Node"),
        gettext_noop("One computer of the supercomputer, typically with 4 GPUs."),
        gettext_noop(
            "One computer of the supercomputer, with its own processors, memory and "
            "usually 4 GPUs (8 on Karolina). A job that needs more GPUs than one node "
            "has runs on several nodes and communicates over the network between them."
        ),
        ("gpu", "node-hour", "communication-overhead"),
    ),
    Term(
        "node-hour",
        gettext_noop("Node-hour"),
        gettext_noop("One whole node for one hour: 4 GPU-hours on a 4-GPU node."),
        gettext_noop(
            "One whole node used for one hour. On systems with 4 GPUs per node, such as "
            "LUMI-G's standard-g partition, one node-hour is 4 GPU-hours. The AI "
            "Factory calls count GPU-hours; the AI for Science and Collaborative EU "
            "Projects call counts node-hours. The wizard asks for GPU-hours in every "
            "call and shows the node-hours where the call counts them: convert "
            "node-hours to GPU-hours before you enter them."
        ),
        ("node", "gpu-hour"),
    ),
    Term(
        "gcd",
        gettext_noop("GCD"),
        gettext_noop(
            "Graphics Compute Die: half of an AMD MI250X; Slurm counts GCDs, billing GPUs."
        ),
        gettext_noop(
            "Graphics Compute Die. Each AMD MI250X of LUMI-G holds two GCDs, which the "
            "software and Slurm see as two separate devices (8 “GPUs” per node). "
            "The application and billing count the MI250X as one GPU: 8 GCDs are 4 GPUs. "
            "The wizard lets you type GCDs and stores GPUs."
        ),
        ("gpu", "node"),
    ),
    Term(
        "mfu",
        gettext_noop("MFU"),
        gettext_noop(
            "Model FLOPs utilisation: the share of the GPUs' peak the model achieves."
        ),
        gettext_noop(
            "Model FLOPs utilisation: the floating-point operations the model needs per "
            "second of training, divided by the peak the GPUs could deliver, in "
            "percent. It shows how well the code uses the hardware; reviewers of large "
            "single jobs ask for it."
        ),
        ("throughput", "efficiency"),
    ),
    Term(
        "communication-overhead",
        gettext_noop("Communication overhead"),
        gettext_noop(
            "The share of a step spent exchanging data between GPUs instead of computing."
        ),
        gettext_noop(
            "The share of each training step that the GPUs spend waiting for data "
            "exchanged with other GPUs (gradients, activations), in percent. It grows "
            "with the number of nodes and is the usual reason why efficiency falls."
        ),
        ("efficiency", "node"),
    ),
    Term(
        "walltime",
        gettext_noop("Walltime"),
        gettext_noop("How long a job runs by the clock, from start to end, in hours."),
        gettext_noop(
            "The time a job runs by the clock, from start to end. Each partition has a "
            "longest walltime (48 hours on LUMI-G's standard-g): longer runs are split "
            "and restarted from checkpoints. GPU-hours are GPUs times walltime."
        ),
        ("gpu-hour",),
    ),
    Term(
        "throughput",
        gettext_noop("Throughput"),
        gettext_noop(
            "Work done per second (samples, tokens or images per second) at a GPU count."
        ),
        gettext_noop(
            "How much work the code does per second at a given number of GPUs: samples, "
            "tokens or images per second. Measured at two or more GPU counts it gives "
            "the speedup and the efficiency."
        ),
        ("speedup", "efficiency"),
    ),
    Term(
        "speedup",
        gettext_noop("Speedup"),
        gettext_noop(
            "Throughput at a GPU count divided by throughput at the smallest count measured."
        ),
        gettext_noop(
            "The throughput at a GPU count divided by the throughput at the smallest "
            "count measured for the same code. Ideal speedup equals the ratio of the GPU "
            "counts: twice the GPUs, twice the throughput."
        ),
        ("throughput", "efficiency"),
    ),
    Term(
        "efficiency",
        gettext_noop("Efficiency"),
        gettext_noop(
            "Speedup divided by the ideal speedup; 100% at the smallest count measured."
        ),
        gettext_noop(
            "Scaling efficiency: the speedup divided by the ratio of the GPU counts. "
            "It is 100% at the smallest count measured. From 4 to 16 GPUs (4 times the "
            "GPUs) a throughput of 1,200 rising to 4,225 samples/s is a speedup of 3.52, "
            "an efficiency of 88%."
        ),
        ("speedup", "extrapolation"),
    ),
    Term(
        "extrapolation",
        gettext_noop("Extrapolation"),
        gettext_noop(
            "Projecting efficiency beyond the largest GPU count you measured."
        ),
        gettext_noop(
            "Projecting the efficiency to a GPU count larger than the largest one "
            "measured. Fast Lane accepts a projection that the data supports; Large "
            "Scale asks for measurements at the target size. The wizard draws the "
            "projection as a band between two models."
        ),
        ("efficiency",),
    ),
    Term(
        "flops-estimate",
        gettext_noop("6·N·D estimate"),
        gettext_noop(
            "Training FLOPs are about 6 x parameters x tokens; inference 2 x per token."
        ),
        gettext_noop(
            # xgettext:no-python-format
            "A dense model with N parameters needs about 6·N floating-point operations "
            "per training token (2·N forward, 4·N backward) and 2·N per token of "
            "inference. Training on D tokens takes 6·N·D FLOPs; divided by the GPUs' "
            "peak throughput times the MFU, that gives the GPU-hours: 1.4 B parameters "
            "on 30 B tokens at 40 % of a 312 TFLOP/s A100 is about 560 GPU-hours."
        ),
        ("mfu", "gpu-hour"),
    ),
)

TERM_BY_SLUG = {term.slug: term for term in TERMS}


def term(slug: str) -> Term:
    """The term ``slug`` (``KeyError`` for an unknown one: a typo is a bug)."""
    return TERM_BY_SLUG[slug]
