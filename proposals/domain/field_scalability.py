"""The fields of the scalability and optimisation steps: part of
:data:`.field_catalogue.FIELDS`, kept here so that each file stays short."""

from __future__ import annotations

from . import field_examples as examples
from .fieldspec import FieldSpec, row, scalar
from .i18n import gettext_noop

SCALABILITY_FIELDS: tuple[FieldSpec, ...] = (
    # --- Scalability and performance ------------------------------------------------
    scalar(
        "scalability_narrative",
        "scalability.narrative",
        "scalability",
        gettext_noop("Scalability and performance of the application"),
        help=gettext_noop(
            "Technical evidence, not motivation: what you measured, where, how."
        ),
        playground=(
            gettext_noop(
                "No scaling data needed. Describe the tests you have run (any hardware is "
                "fine) or the tests this allocation will let you run."
            )
        ),
        fast_lane=(
            gettext_noop(
                "Give throughput at small scale (for example 2 to 4 GPUs) and the "
                "efficiency you expect at your largest job; the tables below are added "
                "to your text in the export."
            )
        ),
        large_scale=(
            gettext_noop(
                "Show measurements at the scale you request (no extrapolation): "
                "throughput, speedup, efficiency, and MFU or communication overhead for "
                "large single jobs; for many independent jobs, how the total is composed "
                "and how stable a job's runtime is."
            )
        ),
        example=(
            "We tested on 4, 8 and 16 GPUs with PyTorch FSDP on a fixed 1M-image set: "
            "throughput rose from 1,200 to 4,225 samples/s (88% efficiency at 16)."
        ),
        examples=examples.SCALABILITY_NARRATIVE,
    ),
    scalar(
        "workload",
        "scalability.workload",
        "scalability",
        gettext_noop("Shape of the workload"),
        help=(
            gettext_noop(
                "A single large job needs strong-scaling data. Many independent jobs (each "
                "at most 2 nodes) need a representative-job test and its runtime stability "
                "instead."
            )
        ),
    ),
    scalar(
        "runtime_stability_pct",
        "scalability.runtime_stability_pct",
        "scalability",
        gettext_noop("Runtime stability of a representative job (± %)"),
        short=gettext_noop("Runtime stability (± %)"),
        unit=gettext_noop("± %"),
        help=gettext_noop(
            "How much a representative job's runtime varies between runs, in ± percent."
        ),
        example="5",
    ),
    row(
        "measurements",
        "code",
        gettext_noop("Code"),
        width="code",
        help=gettext_noop("The code entry that was measured."),
    ),
    row(
        "measurements",
        "gpus",
        gettext_noop("GPUs"),
        width="num",
        short=gettext_noop("{gpus}"),
        gpu_count=True,
        help=gettext_noop("Physical GPUs used in the measurement."),
        term="gpu",
    ),
    row(
        "measurements",
        "throughput",
        gettext_noop("Throughput"),
        width="num",
        help=gettext_noop("Samples, tokens or images per second, at that size."),
        term="throughput",
    ),
    row(
        "measurements", "unit", gettext_noop("Unit"), width="unit", example="samples/s"
    ),
    row(
        "measurements",
        "mfu_pct",
        gettext_noop("MFU (%)"),
        width="pct",
        short=gettext_noop("MFU %"),
        unit=gettext_noop("%"),
        help=gettext_noop(
            "Model FLOPs utilisation: the share of the GPUs' peak the model achieves."
        ),
        term="mfu",
    ),
    row(
        "measurements",
        "comm_overhead_pct",
        gettext_noop("Communication overhead (%)"),
        width="pct",
        short=gettext_noop("Comm. %"),
        unit=gettext_noop("%"),
        help=gettext_noop(
            "Share of a training step spent waiting for communication between GPUs."
        ),
        term="communication-overhead",
    ),
    row(
        "measurements",
        "hardware",
        gettext_noop("Hardware tested on"),
        example="LUMI-G, 4 nodes",
    ),
    row("jobs", "title", gettext_noop("Job type"), example="Pre-training run"),
    row(
        "jobs",
        "gpus",
        gettext_noop("GPUs per job"),
        width="num",
        short=gettext_noop("{gpus} per job"),
        gpu_count=True,
        help=gettext_noop("Physical GPUs of one job."),
        term="gpu",
    ),
    row(
        "jobs",
        "hours",
        gettext_noop("Hours per job"),
        width="num",
        unit=gettext_noop("h"),
        help=gettext_noop("Wall-clock hours of one job."),
        term="walltime",
    ),
    row(
        "jobs",
        "count",
        gettext_noop("Number of jobs"),
        width="num",
        help=gettext_noop("How many jobs of this kind you run."),
    ),
    row(
        "schedule",
        "from_month",
        gettext_noop("From month"),
        width="month",
        help=gettext_noop("First month of the period (1 = first month)."),
    ),
    row(
        "schedule",
        "to_month",
        gettext_noop("To month"),
        width="month",
        help=gettext_noop("Last month of the period, inclusive."),
    ),
    row(
        "schedule",
        "gpu_hours",
        gettext_noop("GPU-hours"),
        width="num",
        unit=gettext_noop("GPU-hours"),
        help=gettext_noop("GPU-hours used in the period."),
        term="gpu-hour",
    ),
    row("schedule", "activity", gettext_noop("Activity"), example="Pre-training"),
    # --- Optimisation ----------------------------------------------------------------
    scalar(
        "optimisation_narrative",
        "optimisation.narrative",
        "optimisation",
        gettext_noop("Optimisation of the work proposed"),
        help=(
            gettext_noop(
                "Concrete actions, not impact: which component, which technique (FSDP, "
                "FlashAttention, checkpointing, data loading, ...) and the benefit for "
                "future work, quantified where you can."
            )
        ),
        playground=(
            gettext_noop(
                "For a first project, say what you will learn or port and measure, for "
                "example multi-GPU training with DDP and the effect of batch size."
            )
        ),
        example=(
            "Data loading takes 30% of step time; we will pre-shard the dataset and "
            "raise loader workers from 4 to 16 per GPU to bring it under 10%."
        ),
        examples=examples.OPTIMISATION_NARRATIVE,
    ),
)
