"""Help text for every wizard field, in our own words, fitted to the call tier.

Each entry has a general text, optional per-tier advice (``playground``, ``fast_lane``,
``large_scale``) that replaces the general one when that tier applies, and a short example.
The facts come from the BSC and LUMI technical guides; the wording is ours.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldHelp:
    text: str
    example: str = ""
    playground: str = ""
    fast_lane: str = ""
    large_scale: str = ""

    def for_tier(self, tier: str | None) -> str:
        """The advice for ``tier`` when there is tier-specific advice, else the general."""
        return (getattr(self, tier, "") if tier else "") or self.text


HELP: dict[str, FieldHelp] = {
    "title": FieldHelp(
        "Only for you and the support staff; the portal asks for its own title.",
        example="Fine-tuning a 7B code model for industrial PLC programs",
    ),
    "call_family": FieldHelp(
        "Companies apply to AI for Industrial Innovation. Universities, research "
        "centres and public bodies use the AI for Science and Collaborative EU "
        "Projects family, which has its own peer review.",
    ),
    "organisation_name": FieldHelp("The legal name, as registered for VAT."),
    "organisation_kind": FieldHelp(
        "The industrial calls are open to startups, SMEs and other companies only; "
        "academic and public-sector organisations are not eligible for them.",
    ),
    "organisation_country": FieldHelp(
        "Where the organisation is incorporated. It must be an EU member state or a "
        "country associated to Horizon 2020.",
    ),
    "vat_number": FieldHelp(
        "With or without the country prefix; we check its format and check digits "
        "offline (not whether it is registered).",
        example="FI20774740",
    ),
    "ongoing_eurohpc_project": FieldHelp(
        "Applications from organisations with another EuroHPC JU project still "
        "running are turned down.",
    ),
    "hpc_experience": FieldHelp(
        "Be candid: the recommended call depends on it, and a first project on a "
        "supercomputer belongs in Playground.",
    ),
    "stack_demonstrated_on_target": FieldHelp(
        "Has your software already run on this system's GPUs (for LUMI-G: AMD MI250X "
        "with ROCm)? If not, start with Playground to port and test it.",
    ),
    "system": FieldHelp(
        "The supercomputer whose GPUs you apply for. Node size, partition limits and "
        "the energy estimate follow from it.",
    ),
    "libraries": FieldHelp(
        "A short list; each significant component gets its own code entry later.",
        example="PyTorch 2.5, DeepSpeed 0.15, Hugging Face Transformers, vLLM",
    ),
    "total_gpu_hours": FieldHelp(
        "One GPU-hour is one physical GPU for one hour (on LUMI-G one MI250X, i.e. "
        "two GCDs). The amount decides the call: up to 5,000 Playground, up to "
        "50,000 Fast Lane, above that Large Scale.",
        playground=(
            "Up to 5,000 GPU-hours is Playground: no scaling data and no job plan "
            "needed, just describe what you tested or will test."
        ),
        fast_lane=(
            "5,001 to 50,000 GPU-hours is Fast Lane: the job plan below must add up to "
            "this figure."
        ),
        large_scale=(
            "Above 50,000 GPU-hours is Large Scale: the job plan and the monthly usage "
            "schedule must both add up to this figure."
        ),
        example="18176",
    ),
    "max_gpus_per_job": FieldHelp(
        "The largest single job, in physical GPUs. We show it as nodes too.",
        playground=(
            "Playground jobs usually stay within 1 to 8 GPUs; going beyond one node "
            "needs scaling data that first projects rarely have."
        ),
        fast_lane=(
            "Fast Lane jobs typically use up to 64 GPUs; your scaling data must "
            "support this size."
        ),
        large_scale=(
            "Large Scale jobs may use hundreds of GPUs, but you must have measured at "
            "this size: no extrapolation."
        ),
        example="32",
    ),
    "storage_tb": FieldHelp(
        "Project storage you need during the allocation, in TB.", example="5"
    ),
    "storage_justification": FieldHelp(
        "What takes the space: datasets, checkpoints, outputs, with rough sizes.",
        example="Dataset 2 TB, 20 checkpoints of 60 GB, evaluation outputs 0.5 TB.",
    ),
    "transfer_in_tb": FieldHelp("Data you copy to the system, in TB.", example="2"),
    "transfer_out_tb": FieldHelp(
        "Data you copy back (models, results), in TB.", example="0.2"
    ),
    "transfer_justification": FieldHelp(
        "What moves in and out, and roughly when.",
        example="Training corpus in once at the start; final weights out at the end.",
    ),
    "extra_cpu_hours": FieldHelp(
        "Leave empty if the default CPU allocation is enough (on LUMI, AI Factory "
        "projects get 1,000 CPU-hours on LUMI-C). If you need more, explain why in "
        "the description of the code that needs them. Do not run CPU-only jobs on "
        "GPU nodes.",
    ),
    "auxiliary_services": FieldHelp(
        "Small services such as an MLflow or Weights & Biases server. On LUMI they "
        "run on the LUMI-K Kubernetes platform, which has no GPUs.",
        example="MLflow tracking server on LUMI-K",
    ),
    "duration_months": FieldHelp(
        "Typical terms: Playground and Fast Lane 1 to 3 months; Large Scale 3, 6 or "
        "12 months (guidance, not rules).",
        example="3",
    ),
    "role": FieldHelp(
        "One entry for the main training or inference loop, plus one for each "
        "compute-heavy pre-processing step, separate evaluation or inference code, "
        "or simulation that generates data."
    ),
    "name": FieldHelp("The code's name.", example="Megatron-LM"),
    "version": FieldHelp(
        "A release, tag or commit that pins what you will run.", example="core_r0.9.0"
    ),
    "references": FieldHelp(
        "One per line: repository, documentation, papers. Links with technical "
        "facts (build steps, hardware needs, dependencies, scaling or performance "
        "results) help reviewers most.",
        example="https://github.com/NVIDIA/Megatron-LM",
    ),
    "description": FieldHelp(
        "What this component does in the project, in technical terms. For ML code: "
        "framework and minimum version (PyTorch, TensorFlow, JAX), key libraries, "
        "the distributed training library (DDP, FSDP, DeepSpeed, Horovod, Megatron) "
        "and optimisations (FlashAttention, activation checkpointing, mixed "
        "precision). Say whether everything is in the site's AI software "
        "environment or how you will install what is missing. For other code: "
        "language, dependencies, build steps.",
        example=(
            "Training loop in PyTorch >= 2.4 with FSDP and bf16 mixed precision; "
            "FlashAttention 2. All packages are in the LUMI AI Factory container; "
            "we add our own wheel with pip in a virtual environment."
        ),
    ),
    "scalability_narrative": FieldHelp(
        "Technical evidence, not motivation: what you measured, where, how.",
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
    ),
    "workload": FieldHelp(
        "A single large job needs strong-scaling data. Many independent jobs (each "
        "at most 2 nodes) need a representative-job test and its runtime stability "
        "instead."
    ),
    "runtime_stability_pct": FieldHelp(
        "How much a representative job's runtime varies between runs, in ± percent.",
        example="5",
    ),
    "optimisation_narrative": FieldHelp(
        "Concrete actions, not impact: which component, which technique (FSDP, "
        "FlashAttention, checkpointing, data loading, ...) and the benefit for "
        "future work, quantified where you can.",
        playground=(
            "For a first project, say what you will learn or port and measure, for "
            "example multi-GPU training with DDP and the effect of batch size."
        ),
        example=(
            "Data loading takes 30% of step time; we will pre-shard the dataset and "
            "raise loader workers from 4 to 16 per GPU to bring it under 10%."
        ),
    ),
}

# Columns of the repeatable tables (labels are short; the help sits in the header).
HELP.update(
    {
        "gpus": FieldHelp("Physical GPUs per job or per measurement."),
        "hours": FieldHelp("Wall-clock hours of one job."),
        "count": FieldHelp("How many jobs of this kind you will run."),
        "throughput": FieldHelp("Samples, tokens or images per second, at that size."),
        "from_month": FieldHelp("First month of the period (1 = first month)."),
        "to_month": FieldHelp("Last month of the period, inclusive."),
        "gpu_hours": FieldHelp("GPU-hours used in the period."),
    }
)
