"""PLAN rules on compute: the job plan against the 6·N·D estimate, and the stated MFU
against the MFU the throughput implies.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import mfu
from ..estimate import estimate
from ..findings import WARNING, Context, Hit, rule
from ..numbers import grouped, hours
from .common import num

PLAN_FACTOR = 2.0
"""How far apart (as a factor) the job plan and the estimate may be."""


def pct(value: float) -> str:
    return f"{grouped(value, 1 if value < 10 else 0, trim=False)} %"


def parameters(value: float) -> str:
    """1.4 B, 350 M, 7 B: how people say model sizes."""
    for size, word in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if value >= size:
            return f"{grouped(float(f'{value / size:.3g}'), 3)} {word}"
    return num(value)


@rule(
    "PLAN-1",
    severity=WARNING,
    title="Job plan far from the 6·N·D estimate",
    step="scalability",
)
def plan_vs_estimate(ctx: Context) -> Iterator[Hit]:
    """A code entry states its parameters and tokens and the target system's peak
    throughput is known, and the job plan's training rows (all rows when no title
    names training) total more than twice, or less than half, the GPU-hours that
    6·N·D FLOPs take at the entry's MFU (assumed, measured, or 40 %)."""
    est = estimate(ctx.proposal, ctx.cluster, ctx.plan)
    if est is None or est.factor is None or est.factor <= PLAN_FACTOR:
        return
    basis = "; ".join(
        f"{e.name or f'code {e.code + 1}'}: {e.formula} = "
        f"{hours(e.gpu_hours)} GPU-hours"
        for e in est.entries
        if e.use == "training" and e.gpu_hours is not None
    )
    direction = "above" if est.ratio > 1 else "below"
    yield Hit(
        "scalability.jobs",
        f"The job plan's {est.plan_rows_from} total "
        f"{hours(est.plan_training_gpu_hours)} GPU-hours, a factor "
        f"{est.factor:.1f} {direction} the "
        f"{hours(est.training_gpu_hours)} "
        f"GPU-hours estimated on {est.system} at {num(est.peak_tflops)} TFLOP/s "
        f"per GPU ({basis}); more than a factor {PLAN_FACTOR:g} apart. Explain the "
        "difference (repeated runs, ablations, a lower MFU) or correct the plan "
        "or the model figures.",
    )


@rule(
    "PLAN-2",
    severity=WARNING,
    title="Stated MFU disagrees with the throughput",
    step="scalability",
)
def mfu_cross_check(ctx: Context) -> Iterator[Hit]:
    """A measurement states an MFU more than 10 percentage points, or more than half
    of itself (at least 1 point), away from the MFU its throughput implies: 6·N
    (2·N for inference) FLOPs per token times tokens/s (samples/s times tokens per
    sample), over the peak dense BF16 throughput of the GPU it was measured on. The
    peak follows the measurement's "Hardware tested on" text: a variant it names
    (H100 PCIe or NVL, A100 40/80 GB SXM or PCIe, GH200, MI250X per module, MI300A,
    MI300X; see "GPU variants" below), else the catalogue system it names, else the
    family's SXM variant, said to be assumed; blank means the target system. The
    message gives both readings of the throughput (the total of all GPUs, or one
    GPU's) and says which, if either, reconciles them."""
    readings = mfu.check(ctx.proposal, ctx.catalogue, ctx.cluster, ctx.gpu_models)
    for r in mfu.disagreements(readings):
        k = mfu.FLOPS_PER_TOKEN[r.use]
        tflops = k * r.parameters * r.tokens_per_s / 1e12
        stated = mfu.READING_WORDS[r.stated_reading]
        text = (
            f"At {r.gpus} GPUs, {num(r.tokens_per_s)} tokens/s for a "
            f"{parameters(r.parameters)}-parameter model are {k}·N × tokens/s = "
            f"{grouped(tflops, 0)} TFLOP/s; read as {stated} that is "
            f"{pct(r.implied_pct)} of {r.gpus} × {num(r.peak_tflops)} TFLOP/s "
            f"({r.peak_name}), not the stated {pct(r.stated_pct)}."
        )
        if r.peak_assumed:
            text += (
                f" “{r.gpu}” does not say which variant (SXM, PCIe, NVL): the peak "
                f"of the {r.peak_name} is assumed; name the variant if it differs."
            )
        other = r.other_reading
        if r.reconciling == other:
            text += (
                f" Read as {mfu.READING_WORDS[other]} it is "
                f"{pct(r.pct(other))}, which matches: say which the throughput is "
                "(per GPU or in all) and correct the other figures."
            )
        else:
            text += (
                f" Read as {mfu.READING_WORDS[other]} it would be "
                f"{pct(r.pct(other))}; neither reading matches: check the model "
                "size, the throughput and how the MFU was computed."
            )
        yield Hit(f"scalability.measurements[{r.index}].mfu_pct", text)
