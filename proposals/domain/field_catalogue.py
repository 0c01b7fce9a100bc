"""Every field of the proposal, in page order, with its words: labels, short labels
for table headers, help fitted to the call tier, units and examples.

Read it through :mod:`.fields`. The facts in the help come from the BSC and LUMI
technical guides; the wording is ours. Figures of the call terms (tier bounds, job
sizes, durations) are placeholders such as ``{playground_max}``, filled from the
terms in force when the help is shown (``FieldSpec.help_for``).
"""

from __future__ import annotations

from . import field_examples as examples
from . import limits
from .field_estimate import ESTIMATE_FIELDS
from .field_scalability import SCALABILITY_FIELDS
from .fieldspec import FieldSpec, row, scalar
from .i18n import gettext_noop
from .types import CODE_ROLES
from .values import choice, lines, text
from .vat_examples import vat_example

FIELDS: tuple[FieldSpec, ...] = (
    # --- Organisation and eligibility -----------------------------------------------
    scalar(
        "title",
        "title",
        "organisation",
        gettext_noop("Working title"),
        help=gettext_noop(
            "Only for you and the support staff; the portal asks for its own title."
        ),
        example="Fine-tuning a 7B code model for industrial PLC programs",
    ),
    scalar(
        "call_family",
        "call_family",
        "organisation",
        gettext_noop("Call family"),
        help=(
            gettext_noop(
                "Companies apply to AI for Industrial Innovation. Universities, research "
                "centres and public bodies use the AI for Science and Collaborative EU "
                "Projects family, which has its own peer review."
            )
        ),
    ),
    scalar(
        "organisation_name",
        "organisation.name",
        "organisation",
        gettext_noop("Organisation name"),
        help=gettext_noop("The legal name, as registered for VAT."),
    ),
    scalar(
        "organisation_kind",
        "organisation.kind",
        "organisation",
        gettext_noop("Type of organisation"),
        help=(
            gettext_noop(
                "AI for Industrial Innovation calls are for startups, SMEs and other "
                "companies; academic and public-sector organisations apply to AI for "
                "Science and Collaborative EU Projects, where companies take part only as "
                "partners of a collaborative EU project."
            )
        ),
        untiered=gettext_noop(
            "AI for Science and Collaborative EU Projects is for academic and "
            "public-sector organisations; companies take part only as partners of a "
            "collaborative EU project."
        ),
    ),
    scalar(
        "organisation_country",
        "organisation.country",
        "organisation",
        gettext_noop("Country of incorporation"),
        help=(
            gettext_noop(
                "Where the organisation is incorporated. AI for Industrial Innovation: "
                "{industrial_innovation_countries}. AI for Science and Collaborative EU "
                "Projects: {ai_for_science_countries}. The outermost regions (Réunion, "
                "Guadeloupe, ...) and Åland are part of the EU."
            )
        ),
    ),
    scalar(
        "vat_number",
        "organisation.vat_number",
        "organisation",
        gettext_noop("VAT number"),
        help=(
            gettext_noop(
                "With or without the country prefix; we check its format and check digits "
                "offline (not whether it is registered)."
            )
        ),
        by_country=vat_example,
    ),
    scalar(
        "ongoing_eurohpc_project",
        "organisation.ongoing_eurohpc_project",
        "organisation",
        gettext_noop("Another ongoing EuroHPC JU project"),
        help=(
            gettext_noop(
                "Tick if your organisation has another EuroHPC JU project still running: "
                "such applications are turned down."
            )
        ),
    ),
    scalar(
        "hpc_experience",
        "experience.hpc_experience",
        "organisation",
        gettext_noop("HPC experience of the team"),
        help=(
            gettext_noop(
                "Be candid: the recommended call depends on it, and a first project on a "
                "supercomputer belongs in Playground."
            )
        ),
    ),
    scalar(
        "stack_demonstrated_on_target",
        "experience.stack_demonstrated_on_target",
        "organisation",
        gettext_noop("Software stack already run on the target system"),
        help=(
            gettext_noop(
                "Has your software already run on this system's GPUs? If not, start with "
                "Playground to port and test it."
            )
        ),
        on_system=(
            (
                examples.LUMI,
                gettext_noop("On LUMI-G that means AMD MI250X GPUs with ROCm."),
            ),
            (
                examples.MN5,
                gettext_noop("On MareNostrum 5 ACC that means NVIDIA H100 GPUs."),
            ),
        ),
    ),
    # --- AI Factory selection -------------------------------------------------------
    scalar(
        "system",
        "selection.system",
        "selection",
        gettext_noop("AI Factory (target system)"),
        help=(
            gettext_noop(
                "The supercomputer whose GPUs you apply for. Node size, partition limits "
                "and the energy estimate follow from it."
            )
        ),
    ),
    scalar(
        "libraries",
        "selection.libraries",
        "selection",
        gettext_noop("Software libraries and codes"),
        help=gettext_noop(
            "A short list; each significant component gets its own code entry later."
        ),
        example="PyTorch 2.5, DeepSpeed 0.15, Hugging Face Transformers, vLLM",
    ),
    scalar(
        "total_gpu_hours",
        "selection.total_gpu_hours",
        "selection",
        gettext_noop("Total GPU-hours"),
        unit=gettext_noop("GPU-hours"),
        term="gpu-hour",
        help=(
            gettext_noop(
                "One GPU-hour is one physical GPU for one hour. The amount decides the "
                "call: up to {playground_max} Playground, up to {fast_lane_max} Fast Lane, "
                "above that Large Scale."
            )
        ),
        on_system=(
            (
                examples.LUMI,
                gettext_noop("On LUMI-G one GPU is one MI250X, that is two GCDs."),
            ),
            (examples.MN5, gettext_noop("On MareNostrum 5 ACC one GPU is one H100.")),
        ),
        untiered=gettext_noop(
            "One GPU-hour is one physical GPU for one hour. In this family the amount "
            "does not choose the call: request what the project needs for the whole "
            "allocation. {ai_for_science_request}"
        ),
        playground=(
            gettext_noop(
                "Up to {playground_max} GPU-hours is Playground: no scaling data and no job plan "
                "needed, just describe what you tested or will test."
            )
        ),
        fast_lane=(
            gettext_noop(
                "{fast_lane_min} to {fast_lane_max} GPU-hours is Fast Lane: the job plan "
                "below must add up to this figure."
            )
        ),
        large_scale=(
            gettext_noop(
                "Above {fast_lane_max} GPU-hours is Large Scale: the job plan and the "
                "monthly usage schedule must both add up to this figure."
            )
        ),
        example="18176",
        examples=examples.TOTAL_GPU_HOURS,
    ),
    scalar(
        "max_gpus_per_job",
        "selection.max_gpus_per_job",
        "selection",
        gettext_noop("Maximum number of GPUs per job"),
        gpu_count=True,
        help=gettext_noop(
            "The largest single job, in physical GPUs. We show it as nodes too."
        ),
        playground=(
            gettext_noop(
                "Playground jobs usually stay within 1 to {playground_max_gpus_per_job} "
                "GPUs; going beyond one node needs scaling data that first projects "
                "rarely have."
            )
        ),
        fast_lane=(
            gettext_noop(
                "Fast Lane jobs typically use up to {fast_lane_max_gpus_per_job} GPUs; "
                "your scaling data must support this size."
            )
        ),
        large_scale=(
            gettext_noop(
                "Large Scale jobs may use hundreds of GPUs, but you must have measured at "
                "this size: no extrapolation."
            )
        ),
        example="32",
        examples=examples.MAX_GPUS_PER_JOB,
    ),
    scalar(
        "storage_tb",
        "selection.storage_tb",
        "selection",
        gettext_noop("Storage requirement (TB)"),
        unit=gettext_noop("TB"),
        help=gettext_noop("Project storage you need during the allocation, in TB."),
        example="5",
    ),
    scalar(
        "storage_justification",
        "selection.storage_justification",
        "selection",
        gettext_noop("Storage justification"),
        help=gettext_noop(
            "What takes the space: datasets, checkpoints, outputs, with rough sizes."
        ),
        example="Dataset 2 TB, 20 checkpoints of 60 GB, evaluation outputs 0.5 TB.",
    ),
    scalar(
        "transfer_in_tb",
        "selection.transfer_in_tb",
        "selection",
        gettext_noop("Data transfer in (TB)"),
        unit=gettext_noop("TB"),
        help=gettext_noop("Data you copy to the system, in TB."),
        example="2",
    ),
    scalar(
        "transfer_out_tb",
        "selection.transfer_out_tb",
        "selection",
        gettext_noop("Data transfer out (TB)"),
        unit=gettext_noop("TB"),
        help=gettext_noop("Data you copy back (models, results), in TB."),
        example="0.2",
    ),
    scalar(
        "transfer_justification",
        "selection.transfer_justification",
        "selection",
        gettext_noop("Data transfer justification"),
        help=gettext_noop("What moves in and out, and roughly when."),
        example="Training corpus in once at the start; final weights out at the end.",
    ),
    scalar(
        "extra_cpu_hours",
        "selection.extra_cpu_hours",
        "selection",
        gettext_noop("CPU-hours beyond the default allocation"),
        unit=gettext_noop("CPU-hours"),
        help=(
            gettext_noop(
                "Leave empty if the default CPU allocation is enough. If you need more, "
                "explain why in the description of the code that needs them. Do not run "
                "CPU-only jobs on GPU nodes."
            )
        ),
        on_system=(
            (
                examples.LUMI,
                gettext_noop(
                    "On LUMI, AI Factory projects get 1,000 CPU-hours on LUMI-C by default."
                ),
            ),
        ),
    ),
    scalar(
        "auxiliary_services",
        "selection.auxiliary_services",
        "selection",
        gettext_noop("Auxiliary services"),
        help=gettext_noop(
            "Small services such as an MLflow or Weights & Biases server."
        ),
        on_system=(
            (
                examples.LUMI,
                gettext_noop(
                    "On LUMI they run on the LUMI-K Kubernetes platform, which has no GPUs."
                ),
            ),
        ),
        example="MLflow tracking server",
    ),
    scalar(
        "duration_months",
        "selection.duration_months",
        "selection",
        gettext_noop("Allocation duration (months)"),
        unit=gettext_noop("months"),
        help=(
            gettext_noop(
                "Typical terms: Playground {playground_durations}, Fast Lane "
                "{fast_lane_durations}, Large Scale {large_scale_durations}; AI for Science "
                "and Collaborative EU Projects {ai_for_science_durations} (guidance, not "
                "rules)."
            )
        ),
        example="3",
    ),
    # --- Code details (one row per code entry) --------------------------------------
    row(
        "codes",
        "role",
        gettext_noop("Role in the project"),
        help=(
            gettext_noop(
                "One entry for the main training or inference loop, plus one for each "
                "compute-heavy pre-processing step, separate evaluation or inference code, "
                "or simulation that generates data."
            )
        ),
        value=choice(CODE_ROLES, initial="main"),
    ),
    row(
        "codes",
        "name",
        gettext_noop("Name of the code"),
        help=gettext_noop("The code's name."),
        example="Megatron-LM",
        value=text(limits.LINE_CHARS),
    ),
    row(
        "codes",
        "version",
        gettext_noop("Version or release"),
        help=gettext_noop("A release, tag or commit that pins what you will run."),
        example="core_r0.9.0",
        value=text(limits.VERSION_CHARS),
    ),
    row(
        "codes",
        "references",
        gettext_noop("Web page and other references"),
        help=(
            gettext_noop(
                "One per line: repository, documentation, papers. Links with technical "
                "facts (build steps, hardware needs, dependencies, scaling or performance "
                "results) help reviewers most."
            )
        ),
        example="https://github.com/NVIDIA/Megatron-LM",
        value=lines(
            limits.REFERENCES_CHARS,
            description="Links or citations, each one non-empty line; at most "
            f"{limits.REFERENCES_CHARS} characters in all, counting a line break "
            "between two.",
        ),
    ),
    row(
        "codes",
        "description",
        gettext_noop("Description of the code"),
        help=(
            gettext_noop(
                "What this component does in the project, in technical terms. For ML "
                "code: framework and minimum version (PyTorch, TensorFlow, JAX), key "
                "libraries, the distributed training library (DDP, FSDP, DeepSpeed, "
                "Horovod, Megatron) and optimisations (FlashAttention, activation "
                "checkpointing, mixed precision). Say whether everything is in the site's "
                "AI software environment or how you will install what is missing. For "
                "other code: language, dependencies, build steps."
            )
        ),
        example=(
            "Training loop in PyTorch >= 2.4 with FSDP and bf16 mixed precision; "
            "FlashAttention 2. We check which of these the site's AI software "
            "environment provides and add the rest with pip in a virtual environment."
        ),
        examples=examples.CODE_DESCRIPTION,
        value=text(limits.NARRATIVE_CHARS),
    ),
    row(
        "codes",
        "launch_command",
        gettext_noop("Launch command"),
        help=(
            gettext_noop(
                "How you start one run, with its launcher (torchrun, srun, deepspeed or "
                "accelerate) and arguments, as you would type it. The scaling kit runs "
                "this command at each GPU count still to be measured."
            )
        ),
        example="torchrun --nproc-per-node=4 train.py --config configs/7b.yaml",
        value=text(limits.COMMAND_CHARS, default=""),
    ),
    *ESTIMATE_FIELDS,
    *SCALABILITY_FIELDS,
)
