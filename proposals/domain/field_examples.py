"""Example answers fitted to the call tier and the target system, for the fields of
:mod:`.field_catalogue` whose good answer depends on them.

The facts come from the two technical guides (the LUMI guide for LUMI-G, the BSC guide
for MareNostrum 5 ACC); the wording is ours. Each field's tuple is attached to its
:class:`~.fieldspec.FieldSpec` in the catalogue and read through
``FieldSpec.examples_for(tier, system)``: a Playground applicant on LUMI reads a
Playground example in LUMI's words. Systems are named by their catalogue slug.
"""

from __future__ import annotations

from .fieldspec import Example
from .i18n import gettext_noop

LUMI = "lumi-g"
MN5 = "marenostrum5-acc"
PLAYGROUND, FAST_LANE, LARGE_SCALE = "playground", "fast_lane", "large_scale"
TESTED = gettext_noop("If you have tested already")
NOT_TESTED = gettext_noop("If you have not tested yet")

SCALABILITY_NARRATIVE: tuple[Example, ...] = (
    # Playground: a basic description of tests done (any hardware) or planned.
    Example(
        "We trained the model for two hours on one GPU with a tenth of the data; it "
        "converged within 50 epochs. A full training run on one node (4 GPUs) should "
        "take about 8 hours.",
        PLAYGROUND,
        lead=TESTED,
    ),
    Example(
        "So far we have run only on a workstation with one RTX 4080. This allocation "
        "lets us measure throughput on 1, 2, 4 and 8 GPUs of the target system and "
        "learn how our training scales.",
        PLAYGROUND,
        lead=NOT_TESTED,
    ),
    Example(
        "We trained the model for two hours on one MI250X with a tenth of the data; "
        "it converged within 50 epochs. A full run on one LUMI-G node (4 GPUs, which "
        "Slurm shows as 8 GCDs) should take about 8 hours.",
        PLAYGROUND,
        LUMI,
        lead=TESTED,
    ),
    Example(
        "So far we have run only on a workstation with one NVIDIA RTX 4080. With this "
        "allocation we will get the code running on AMD MI250X GPUs and measure how it "
        "scales up to 16 GPUs (4 LUMI-G nodes), ahead of a larger request.",
        PLAYGROUND,
        LUMI,
        lead=NOT_TESTED,
    ),
    Example(
        "We trained the model for two hours on one A100 with a tenth of the data; it "
        "converged within 50 epochs. A full run on 8 H100 GPUs (two MareNostrum 5 ACC "
        "nodes) should take about 8 hours.",
        PLAYGROUND,
        MN5,
        lead=TESTED,
    ),
    Example(
        "So far we have run only on a workstation with one RTX 4080. This allocation "
        "lets us measure throughput on 1, 2, 4 and 8 H100 GPUs for the first time; we "
        "will record the throughput and how it scales.",
        PLAYGROUND,
        MN5,
        lead=NOT_TESTED,
    ),
    # Fast Lane: small-scale measurements and the projected efficiency at the target.
    Example(
        "We measured 1,200, 2,280 and 4,225 samples/s on 4, 8 and 16 MI250X GPUs with "
        "PyTorch FSDP on a fixed set of 1M images (88% efficiency on 4 nodes), and "
        "expect 80 to 85% at 32 GPUs.",
        FAST_LANE,
        LUMI,
    ),
    Example(
        "We measured 1,200 samples/s on one A100 and 4,400 on four with PyTorch DDP "
        "on a fixed set of 1M images (92% efficiency), and expect 85 to 90% at 16 "
        "H100 GPUs.",
        FAST_LANE,
        MN5,
    ),
    # Large Scale: measurements at the requested scale, no extrapolation.
    Example(
        "From 8 to 128 GPUs our 1.4B-parameter model went from 12,000 to 135,000 "
        "tokens/s (70% efficiency at 128 GPUs), with MFU falling from 38% to 30%; "
        "we request jobs of 128 GPUs, the largest size measured.",
        LARGE_SCALE,
    ),
)

OPTIMISATION_NARRATIVE: tuple[Example, ...] = (
    Example(
        "We will learn multi-GPU training with PyTorch DDP and try batch sizes, "
        "gradient accumulation and NCCL settings to see how each changes training "
        "speed, for our later distributed projects.",
        PLAYGROUND,
    ),
    Example(
        "We will learn multi-GPU training with PyTorch DDP and try batch sizes, "
        "gradient accumulation and RCCL settings to see how each changes training "
        "speed on the MI250X, for our later distributed projects.",
        PLAYGROUND,
        LUMI,
    ),
    Example(
        "We will port our CUDA code base to the AMD GPUs of LUMI-G (ROCm), fix what "
        "does not work there, and measure runtime and scaling for later projects.",
        PLAYGROUND,
        LUMI,
    ),
)

CODE_DESCRIPTION: tuple[Example, ...] = (
    Example(
        "Training loop in PyTorch >= 2.4 with FSDP and bf16 mixed precision; "
        "FlashAttention 2. All packages are in the LUMI AI Factory container; "
        "we add our own wheel with pip in a virtual environment.",
        system=LUMI,
    ),
    Example(
        "Training loop in PyTorch >= 2.4 with FSDP and bf16 mixed precision; "
        "FlashAttention 2. On MareNostrum 5 ACC we check which of these the installed "
        "software provides and add the rest with pip in a virtual environment.",
        system=MN5,
    ),
)

MAX_GPUS_PER_JOB = (Example("4", PLAYGROUND),)
TOTAL_GPU_HOURS = (Example("3000", PLAYGROUND),)
