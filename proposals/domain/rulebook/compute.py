"""PLAN rules on compute: the job plan against the 6·N·D estimate, the stated MFU
against the MFU the throughput implies, and a stated MFU that cannot be checked.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import mfu
from ..estimate import estimate
from ..findings import INFO, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop, join_and
from ..numbers import grouped, hours, points
from .common import num

PLAN_FACTOR = 2.0
"""How far apart (as a factor) the job plan and the estimate may be."""

# The job rows an estimate compares (``Estimate.plan_rows_from``, English in the
# JSON), for the catalogue: the message translates them.
ROWS_FROM = (
    gettext_noop("training rows"),
    gettext_noop("inference rows"),
    gettext_noop("all rows"),
)


def pct(value: float) -> str:
    return points(value, 1 if value < 10 else 0, trim=False)


def parameters(value: float) -> str:
    """1.4 B, 350 M, 7 B: how people say model sizes."""
    for size, word in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if value >= size:
            return f"{grouped(float(f'{value / size:.3g}'), 3)} {word}"
    return num(value)


@rule(
    "PLAN-1",
    severity=WARNING,
    title=gettext_noop("Job plan far from the 6·N·D estimate"),
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
    ratio = est.ratio
    assert ratio is not None  # the factor is made from it
    basis = "; ".join(
        _("{code}: {formula} = {hours} GPU-hours").format(
            code=e.name or _("code {number}").format(number=e.code + 1),
            formula=e.formula,
            hours=hours(e.gpu_hours),
        )
        for e in est.entries
        if e.use == "training" and e.gpu_hours is not None
    )
    message = (
        _(
            "The job plan's {rows} total {plan} GPU-hours, a factor {factor} above "
            "the {estimate} GPU-hours estimated on {system} at {peak} TFLOP/s per "
            "GPU ({basis}); more than a factor {limit} apart. Explain the difference "
            "(repeated runs, ablations, a lower MFU) or correct the plan or the "
            "model figures."
        )
        if ratio > 1
        else _(
            "The job plan's {rows} total {plan} GPU-hours, a factor {factor} below "
            "the {estimate} GPU-hours estimated on {system} at {peak} TFLOP/s per "
            "GPU ({basis}); more than a factor {limit} apart. Explain the difference "
            "(repeated runs, ablations, a lower MFU) or correct the plan or the "
            "model figures."
        )
    )
    yield Hit(
        "scalability.jobs",
        message.format(
            rows=_(est.plan_rows_from),
            plan=hours(est.plan_training_gpu_hours),
            factor=grouped(est.factor, 1, trim=False),
            estimate=hours(est.training_gpu_hours),
            system=est.system,
            peak=num(est.peak_tflops),
            basis=basis,
            limit=num(PLAN_FACTOR),
        ),
    )


@rule(
    "PLAN-2",
    severity=WARNING,
    title=gettext_noop("Stated MFU disagrees with the throughput"),
    step="scalability",
)
def mfu_cross_check(ctx: Context) -> Iterator[Hit]:
    """A measurement states an MFU more than 10 percentage points, or more than half
    of itself (at least 1 point), away from the MFU its throughput implies: 6·N
    (2·N for inference) FLOPs per token times tokens/s (samples/s times tokens per
    sample), over the peak dense BF16 throughput of the GPU it was measured on. The
    peak follows the measurement's "Hardware tested on" text: a variant it names
    (H100 PCIe or NVL, H200 SXM or NVL, A100 40/80 GB SXM or PCIe, GH200, B200,
    GB200, L40S, MI250 and MI250X per module, MI300A, MI300X, MI325X, Gaudi 2 and 3;
    see "GPU variants" below), else the catalogue system it names, else the
    family's SXM variant, said to be assumed; blank means the target system. The
    message gives both readings of the throughput (the total of all GPUs, or one
    GPU's) and says which, if either, reconciles them."""
    readings = mfu.check(ctx.proposal, ctx.catalogue, ctx.cluster, ctx.gpu_models)
    for r in mfu.disagreements(readings):
        assert r.stated_pct is not None  # only a stated MFU disagrees
        k = mfu.FLOPS_PER_TOKEN[r.use]
        tflops = k * r.parameters * r.tokens_per_s / 1e12
        stated = mfu.READING_WORDS[r.stated_reading]
        text = _(
            "At {gpus} GPUs, {throughput} tokens/s for a {parameters}-parameter model "
            "are {k}·N × tokens/s = {tflops} TFLOP/s; read as {stated} that is "
            "{implied} of {gpus} × {peak} TFLOP/s ({peak_name}), not the stated "
            "{stated_pct}."
        ).format(
            gpus=num(r.gpus),
            throughput=num(r.tokens_per_s),
            parameters=parameters(r.parameters),
            k=k,
            tflops=grouped(tflops, 0),
            stated=stated,
            implied=pct(r.implied_pct),
            peak=num(r.peak_tflops),
            peak_name=r.peak_name,
            stated_pct=pct(r.stated_pct),
        )
        if r.peak_assumed:
            text += " " + _(
                "“{gpu}” does not say which variant (SXM, PCIe, NVL): the peak of the "
                "{peak_name} is assumed; name the variant if it differs."
            ).format(gpu=r.gpu, peak_name=r.peak_name)
        other = r.other_reading
        if r.reconciling == other:
            text += " " + _(
                "Read as {reading} it is {value}, which matches: say which the "
                "throughput is (per GPU or in all) and correct the other figures."
            ).format(reading=mfu.READING_WORDS[other], value=pct(r.pct(other)))
        else:
            text += " " + _(
                "Read as {reading} it would be {value}; neither reading matches: check "
                "the model size, the throughput and how the MFU was computed."
            ).format(reading=mfu.READING_WORDS[other], value=pct(r.pct(other)))
        yield Hit(f"scalability.measurements[{r.index}].mfu_pct", text)


@rule(
    "PLAN-5",
    severity=INFO,
    title=gettext_noop("Stated MFU not checked: the GPU's peak is not known"),
    step="scalability",
)
def mfu_unchecked(ctx: Context) -> Iterator[Hit]:
    """A measurement states an MFU that PLAN-2 would compare with its throughput
    (its code entry states the parameters, its unit gives tokens or samples with
    tokens per sample) but the peak of the GPU it was measured on is not known: its
    "Hardware tested on" text names a GPU model with no peak recorded (a V100), or
    names no GPU model or catalogue system at all (a TPU), or is blank while no
    target system with a recorded peak is chosen. The note says which, and which
    GPU models have a peak."""
    known = join_and(mfu.known_gpus(ctx.catalogue, ctx.gpu_models))
    for u in mfu.unchecked(ctx.proposal, ctx.catalogue, ctx.cluster, ctx.gpu_models):
        if u.reason == mfu.UNKNOWN_GPU:
            text = _(
                "At {gpus} GPUs the stated MFU of {stated} was not checked against "
                "the throughput: no peak throughput is recorded for the {gpu} that "
                "“{hardware}” names (peaks are recorded for {known}). Check the MFU "
                "against the dense BF16 peak on the GPU's datasheet."
            )
        elif u.reason == mfu.UNKNOWN_HARDWARE:
            text = _(
                "At {gpus} GPUs the stated MFU of {stated} was not checked against "
                "the throughput: “{hardware}” names no GPU model or catalogue system "
                "whose peak throughput is recorded (peaks are recorded for {known}). "
                "Name the GPU model as its datasheet does."
            )
        else:
            text = _(
                "At {gpus} GPUs the stated MFU of {stated} was not checked against "
                "the throughput: the measurement names no hardware and no target "
                "system with a recorded peak throughput is chosen. Name the GPU it "
                "was measured on."
            )
        yield Hit(
            f"scalability.measurements[{u.index}].hardware",
            text.format(
                gpus=num(u.gpus),
                stated=pct(u.stated_pct),
                gpu=u.gpu,
                hardware=u.hardware,
                known=known,
            ),
        )
