"""The fields of the scalability and optimisation steps: part of
:data:`.field_catalogue.FIELDS`, kept here so that each file stays short."""

from __future__ import annotations

from . import field_examples as examples
from .fieldspec import FieldSpec, row, scalar

SCALABILITY_FIELDS: tuple[FieldSpec, ...] = (
    # --- Scalability and performance ------------------------------------------------
    scalar(
        "scalability_narrative",
        "scalability.narrative",
        "scalability",
        "Scalability and performance of the application",
        help="Technical evidence, not motivation: what you measured, where, how.",
        playground=(
            "No scaling data needed. Describe the tests you have run (any hardware is "
            "fine) or the tests this allocation will let you run."
        ),
        fast_lane=(
            "Give throughput at small scale (for example 2 to 4 GPUs) and the "
            "efficiency you expect at your largest job; the tables below are added "
            "to your text in the export."
        ),
        large_scale=(
            "Show measurements at the scale you request (no extrapolation): "
            "throughput, speedup, efficiency, and MFU or communication overhead for "
            "large single jobs; for many independent jobs, how the total is composed "
            "and how stable a job's runtime is."
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
        "Shape of the workload",
        help=(
            "A single large job needs strong-scaling data. Many independent jobs (each "
            "at most 2 nodes) need a representative-job test and its runtime stability "
            "instead."
        ),
    ),
    scalar(
        "runtime_stability_pct",
        "scalability.runtime_stability_pct",
        "scalability",
        "Runtime stability of a representative job (± %)",
        short="Runtime stability (± %)",
        unit="± %",
        help="How much a representative job's runtime varies between runs, in ± percent.",
        example="5",
    ),
    row(
        "measurements",
        "code",
        "Code",
        width="code",
        help="The code entry that was measured.",
    ),
    row(
        "measurements",
        "gpus",
        "GPUs",
        width="num",
        short="{gpus}",
        gpu_count=True,
        help="Physical GPUs used in the measurement.",
        term="gpu",
    ),
    row(
        "measurements",
        "throughput",
        "Throughput",
        width="num",
        help="Samples, tokens or images per second, at that size.",
        term="throughput",
    ),
    row("measurements", "unit", "Unit", width="unit", example="samples/s"),
    row(
        "measurements",
        "mfu_pct",
        "MFU (%)",
        width="pct",
        short="MFU %",
        unit="%",
        help="Model FLOPs utilisation: the share of the GPUs' peak the model achieves.",
        term="mfu",
    ),
    row(
        "measurements",
        "comm_overhead_pct",
        "Communication overhead (%)",
        width="pct",
        short="Comm. %",
        unit="%",
        help="Share of a training step spent waiting for communication between GPUs.",
        term="communication-overhead",
    ),
    row("measurements", "hardware", "Hardware tested on", example="LUMI-G, 4 nodes"),
    row("jobs", "title", "Job type", example="Pre-training run"),
    row(
        "jobs",
        "gpus",
        "GPUs per job",
        width="num",
        short="{gpus} per job",
        gpu_count=True,
        help="Physical GPUs of one job.",
        term="gpu",
    ),
    row(
        "jobs",
        "hours",
        "Hours per job",
        width="num",
        unit="h",
        help="Wall-clock hours of one job.",
        term="walltime",
    ),
    row(
        "jobs",
        "count",
        "Number of jobs",
        width="num",
        help="How many jobs of this kind you run.",
    ),
    row(
        "schedule",
        "from_month",
        "From month",
        width="month",
        help="First month of the period (1 = first month).",
    ),
    row(
        "schedule",
        "to_month",
        "To month",
        width="month",
        help="Last month of the period, inclusive.",
    ),
    row(
        "schedule",
        "gpu_hours",
        "GPU-hours",
        width="num",
        unit="GPU-hours",
        help="GPU-hours used in the period.",
        term="gpu-hour",
    ),
    row("schedule", "activity", "Activity", example="Pre-training"),
    # --- Optimisation ----------------------------------------------------------------
    scalar(
        "optimisation_narrative",
        "optimisation.narrative",
        "optimisation",
        "Optimisation of the work proposed",
        help=(
            "Concrete actions, not impact: which component, which technique (FSDP, "
            "FlashAttention, checkpointing, data loading, ...) and the benefit for "
            "future work, quantified where you can."
        ),
        playground=(
            "For a first project, say what you will learn or port and measure, for "
            "example multi-GPU training with DDP and the effect of batch size."
        ),
        example=(
            "Data loading takes 30% of step time; we will pre-shard the dataset and "
            "raise loader workers from 4 to 16 per GPU to bring it under 10%."
        ),
        examples=examples.OPTIMISATION_NARRATIVE,
    ),
)
