"""Every field of the proposal, defined once: model name, JSON path, label, short
label for table headers, help (fitted to the call tier), unit and example.

The wizard's forms take their labels and help from here, and so do the staff pages,
the document diff, the exports and the e-mails, so an applicant and a reviewer read
the same words. People never read a JSON path: :func:`describe_path` turns
``codes[1].version`` into "Code details 2 (nordlicht-train) › Version". JSON paths
remain the interface of the ``assess`` report and of the import error list.

The facts in the help come from the BSC and LUMI technical guides; the wording is ours.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .sections import (
    ROW_PATH,
    SECTION_BY_SLUG,
    SECTION_OF_KEY,
    TABLE_BY_KIND,
    TABLE_BY_PATH,
)

SEPARATOR = " › "


@dataclass(frozen=True)
class FieldSpec:
    """One field. ``table`` is the table kind of a row field (``None`` for the
    proposal's own fields); ``path`` is the JSON path (relative to the row for a row
    field). ``short`` is the table-header form of the label; ``{gpus}`` in it stands
    for the GPU unit the applicant types in ("GPUs" or "GCDs")."""

    name: str
    path: str
    section: str
    label: str
    short: str = ""
    help: str = ""
    example: str = ""
    unit: str = ""
    table: str | None = None
    gpu_count: bool = False
    # Column width class in tables: num, pct, month, unit, code (or "" to fill).
    width: str = ""
    playground: str = ""
    fast_lane: str = ""
    large_scale: str = ""

    @property
    def key(self) -> str:
        """``total_gpu_hours`` or ``jobs.gpus``: unique among all fields."""
        return f"{self.table}.{self.name}" if self.table else self.name

    @property
    def header(self) -> str:
        """The label for a table header (the short form, unit word "GPUs")."""
        return (self.short or self.label).replace("{gpus}", "GPUs")

    def help_for(self, tier: str | None) -> str:
        """The advice for ``tier`` when there is tier-specific advice, else general."""
        return (getattr(self, tier, "") if tier else "") or self.help


def _f(name, path, section, label, **kwargs) -> FieldSpec:
    return FieldSpec(name=name, path=path, section=section, label=label, **kwargs)


def _row(table, name, label, **kwargs) -> FieldSpec:
    return FieldSpec(
        name=name,
        path=name,
        section=TABLE_BY_KIND[table].section,
        label=label,
        table=table,
        **kwargs,
    )


FIELDS: tuple[FieldSpec, ...] = (
    # --- Organisation and eligibility -----------------------------------------------
    _f(
        "title",
        "title",
        "organisation",
        "Working title",
        help="Only for you and the support staff; the portal asks for its own title.",
        example="Fine-tuning a 7B code model for industrial PLC programs",
    ),
    _f(
        "call_family",
        "call_family",
        "organisation",
        "Call family",
        help=(
            "Companies apply to AI for Industrial Innovation. Universities, research "
            "centres and public bodies use the AI for Science and Collaborative EU "
            "Projects family, which has its own peer review."
        ),
    ),
    _f(
        "organisation_name",
        "organisation.name",
        "organisation",
        "Organisation name",
        help="The legal name, as registered for VAT.",
    ),
    _f(
        "organisation_kind",
        "organisation.kind",
        "organisation",
        "Type of organisation",
        help=(
            "The industrial calls are open to startups, SMEs and other companies "
            "only; academic and public-sector organisations are not eligible for them."
        ),
    ),
    _f(
        "organisation_country",
        "organisation.country",
        "organisation",
        "Country of incorporation",
        help=(
            "Where the organisation is incorporated. It must be an EU member state or "
            "a country associated to Horizon 2020."
        ),
    ),
    _f(
        "vat_number",
        "organisation.vat_number",
        "organisation",
        "VAT number",
        help=(
            "With or without the country prefix; we check its format and check digits "
            "offline (not whether it is registered)."
        ),
        example="FI20774740",
    ),
    _f(
        "ongoing_eurohpc_project",
        "organisation.ongoing_eurohpc_project",
        "organisation",
        "Another ongoing EuroHPC JU project",
        help=(
            "Tick if your organisation has another EuroHPC JU project still running: "
            "such applications are turned down."
        ),
    ),
    _f(
        "hpc_experience",
        "experience.hpc_experience",
        "organisation",
        "HPC experience of the team",
        help=(
            "Be candid: the recommended call depends on it, and a first project on a "
            "supercomputer belongs in Playground."
        ),
    ),
    _f(
        "stack_demonstrated_on_target",
        "experience.stack_demonstrated_on_target",
        "organisation",
        "Software stack already run on the target system",
        help=(
            "Has your software already run on this system's GPUs (for LUMI-G: AMD "
            "MI250X with ROCm)? If not, start with Playground to port and test it."
        ),
    ),
    # --- AI Factory selection -------------------------------------------------------
    _f(
        "system",
        "selection.system",
        "selection",
        "AI Factory (target system)",
        help=(
            "The supercomputer whose GPUs you apply for. Node size, partition limits "
            "and the energy estimate follow from it."
        ),
    ),
    _f(
        "libraries",
        "selection.libraries",
        "selection",
        "Software libraries and codes",
        help="A short list; each significant component gets its own code entry later.",
        example="PyTorch 2.5, DeepSpeed 0.15, Hugging Face Transformers, vLLM",
    ),
    _f(
        "total_gpu_hours",
        "selection.total_gpu_hours",
        "selection",
        "Total GPU-hours",
        unit="GPU-hours",
        help=(
            "One GPU-hour is one physical GPU for one hour (on LUMI-G one MI250X, i.e. "
            "two GCDs). The amount decides the call: up to 5,000 Playground, up to "
            "50,000 Fast Lane, above that Large Scale."
        ),
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
    _f(
        "max_gpus_per_job",
        "selection.max_gpus_per_job",
        "selection",
        "Maximum number of GPUs per job",
        gpu_count=True,
        help="The largest single job, in physical GPUs. We show it as nodes too.",
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
    _f(
        "storage_tb",
        "selection.storage_tb",
        "selection",
        "Storage requirement (TB)",
        unit="TB",
        help="Project storage you need during the allocation, in TB.",
        example="5",
    ),
    _f(
        "storage_justification",
        "selection.storage_justification",
        "selection",
        "Storage justification",
        help="What takes the space: datasets, checkpoints, outputs, with rough sizes.",
        example="Dataset 2 TB, 20 checkpoints of 60 GB, evaluation outputs 0.5 TB.",
    ),
    _f(
        "transfer_in_tb",
        "selection.transfer_in_tb",
        "selection",
        "Data transfer in (TB)",
        unit="TB",
        help="Data you copy to the system, in TB.",
        example="2",
    ),
    _f(
        "transfer_out_tb",
        "selection.transfer_out_tb",
        "selection",
        "Data transfer out (TB)",
        unit="TB",
        help="Data you copy back (models, results), in TB.",
        example="0.2",
    ),
    _f(
        "transfer_justification",
        "selection.transfer_justification",
        "selection",
        "Data transfer justification",
        help="What moves in and out, and roughly when.",
        example="Training corpus in once at the start; final weights out at the end.",
    ),
    _f(
        "extra_cpu_hours",
        "selection.extra_cpu_hours",
        "selection",
        "CPU-hours beyond the default allocation",
        unit="CPU-hours",
        help=(
            "Leave empty if the default CPU allocation is enough (on LUMI, AI Factory "
            "projects get 1,000 CPU-hours on LUMI-C). If you need more, explain why in "
            "the description of the code that needs them. Do not run CPU-only jobs on "
            "GPU nodes."
        ),
    ),
    _f(
        "auxiliary_services",
        "selection.auxiliary_services",
        "selection",
        "Auxiliary services",
        help=(
            "Small services such as an MLflow or Weights & Biases server. On LUMI they "
            "run on the LUMI-K Kubernetes platform, which has no GPUs."
        ),
        example="MLflow tracking server on LUMI-K",
    ),
    _f(
        "duration_months",
        "selection.duration_months",
        "selection",
        "Allocation duration (months)",
        unit="months",
        help=(
            "Typical terms: Playground and Fast Lane 1 to 3 months; Large Scale 3, 6 "
            "or 12 months (guidance, not rules)."
        ),
        example="3",
    ),
    # --- Code details (one row per code entry) --------------------------------------
    _row(
        "codes",
        "role",
        "Role in the project",
        help=(
            "One entry for the main training or inference loop, plus one for each "
            "compute-heavy pre-processing step, separate evaluation or inference code, "
            "or simulation that generates data."
        ),
    ),
    _row(
        "codes",
        "name",
        "Name of the code",
        help="The code's name.",
        example="Megatron-LM",
    ),
    _row(
        "codes",
        "version",
        "Version or release",
        help="A release, tag or commit that pins what you will run.",
        example="core_r0.9.0",
    ),
    _row(
        "codes",
        "references",
        "Web page and other references",
        help=(
            "One per line: repository, documentation, papers. Links with technical "
            "facts (build steps, hardware needs, dependencies, scaling or performance "
            "results) help reviewers most."
        ),
        example="https://github.com/NVIDIA/Megatron-LM",
    ),
    _row(
        "codes",
        "description",
        "Description of the code",
        help=(
            "What this component does in the project, in technical terms. For ML "
            "code: framework and minimum version (PyTorch, TensorFlow, JAX), key "
            "libraries, the distributed training library (DDP, FSDP, DeepSpeed, "
            "Horovod, Megatron) and optimisations (FlashAttention, activation "
            "checkpointing, mixed precision). Say whether everything is in the site's "
            "AI software environment or how you will install what is missing. For "
            "other code: language, dependencies, build steps."
        ),
        example=(
            "Training loop in PyTorch >= 2.4 with FSDP and bf16 mixed precision; "
            "FlashAttention 2. All packages are in the LUMI AI Factory container; "
            "we add our own wheel with pip in a virtual environment."
        ),
    ),
    # --- Scalability and performance ------------------------------------------------
    _f(
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
    ),
    _f(
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
    _f(
        "runtime_stability_pct",
        "scalability.runtime_stability_pct",
        "scalability",
        "Runtime stability of a representative job (± %)",
        short="Runtime stability (± %)",
        unit="± %",
        help="How much a representative job's runtime varies between runs, in ± percent.",
        example="5",
    ),
    _row(
        "measurements",
        "code",
        "Code",
        width="code",
        help="The code entry that was measured.",
    ),
    _row(
        "measurements",
        "gpus",
        "GPUs",
        width="num",
        short="{gpus}",
        gpu_count=True,
        help="Physical GPUs used in the measurement.",
    ),
    _row(
        "measurements",
        "throughput",
        "Throughput",
        width="num",
        help="Samples, tokens or images per second, at that size.",
    ),
    _row("measurements", "unit", "Unit", width="unit", example="samples/s"),
    _row(
        "measurements",
        "mfu_pct",
        "MFU (%)",
        width="pct",
        short="MFU %",
        unit="%",
        help="Model FLOPs utilisation: the share of the GPUs' peak the model achieves.",
    ),
    _row(
        "measurements",
        "comm_overhead_pct",
        "Communication overhead (%)",
        width="pct",
        short="Comm. %",
        unit="%",
        help="Share of a training step spent waiting for communication between GPUs.",
    ),
    _row("measurements", "hardware", "Hardware tested on", example="LUMI-G, 4 nodes"),
    _row("jobs", "title", "Job type", example="Pre-training run"),
    _row(
        "jobs",
        "gpus",
        "GPUs per job",
        width="num",
        short="{gpus} per job",
        gpu_count=True,
        help="Physical GPUs of one job.",
    ),
    _row(
        "jobs",
        "hours",
        "Hours per job",
        width="num",
        unit="h",
        help="Wall-clock hours of one job.",
    ),
    _row(
        "jobs",
        "count",
        "Number of jobs",
        width="num",
        help="How many jobs of this kind you run.",
    ),
    _row(
        "schedule",
        "from_month",
        "From month",
        width="month",
        help="First month of the period (1 = first month).",
    ),
    _row(
        "schedule",
        "to_month",
        "To month",
        width="month",
        help="Last month of the period, inclusive.",
    ),
    _row(
        "schedule",
        "gpu_hours",
        "GPU-hours",
        width="num",
        unit="GPU-hours",
        help="GPU-hours used in the period.",
    ),
    _row("schedule", "activity", "Activity", example="Pre-training"),
    # --- Optimisation ----------------------------------------------------------------
    _f(
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
    ),
)

FIELD_BY_KEY: dict[str, FieldSpec] = {spec.key: spec for spec in FIELDS}
# The proposal's own fields by model name and by JSON path.
PROPOSAL_FIELDS: dict[str, FieldSpec] = {
    spec.name: spec for spec in FIELDS if spec.table is None
}
FIELD_BY_PATH: dict[str, FieldSpec] = {
    spec.path: spec for spec in FIELDS if spec.table is None
}
# A group key alone (``optimisation``) points at the group's only field, if it has one.
for _key in SECTION_OF_KEY:
    _members = [s for s in PROPOSAL_FIELDS.values() if s.path.startswith(_key + ".")]
    if len(_members) == 1:
        FIELD_BY_PATH.setdefault(_key, _members[0])


def field(name: str, table: str | None = None) -> FieldSpec:
    """The field ``name`` of the proposal, or of a ``table`` row."""
    return FIELD_BY_KEY[f"{table}.{name}" if table else name]


def label(name: str, table: str | None = None) -> str:
    """The label of a field, as every page, export and e-mail shows it."""
    return field(name, table).label


def columns(table: str) -> tuple[FieldSpec, ...]:
    """The fields of one table's rows, in column order."""
    return tuple(spec for spec in FIELDS if spec.table == table)


def section_fields(section: str) -> tuple[FieldSpec, ...]:
    """The proposal's own fields shown on a section's step."""
    return tuple(s for s in FIELDS if s.table is None and s.section == section)


# --- Paths as people read them ---------------------------------------------------

RowNames = Mapping[str, Sequence[str]]


def row_names(document: Mapping) -> dict[str, list[str]]:
    """``{"codes": ["nordlicht-train", ...], "jobs": [...]}`` from a JSON document
    (``aifactory-proposal/1`` as a dict): the names rows are known by."""
    names: dict[str, list[str]] = {}
    for table in TABLE_BY_KIND.values():
        rows: object = document
        for key in table.path.split("."):
            rows = rows.get(key, []) if isinstance(rows, Mapping) else []
        names[table.kind] = (
            [
                str(row.get(table.name_field, "") or "") if table.name_field else ""
                for row in rows
                if isinstance(row, Mapping)
            ]
            if isinstance(rows, list)
            else []
        )
    return names


def row_label(kind: str, index: int, names: RowNames | None = None) -> str:
    """ "Code details 2 (nordlicht-train)" for the second code entry."""
    table = TABLE_BY_KIND[kind]
    text = f"{table.item} {index + 1}"
    kind_names = (names or {}).get(kind) or ()
    name = kind_names[index].strip() if index < len(kind_names) else ""
    if name:
        text += f" ({' '.join(name.split())[:60]})"
    return text


def describe_path(path: str, names: RowNames | None = None) -> str:
    """How a person reads the place a JSON path points at.

    ``selection.total_gpu_hours`` -> "Total GPU-hours";
    ``codes[1].version`` -> "Code details 2 (nordlicht-train) › Version";
    ``scalability.jobs`` -> "Job plan"; ``""`` -> "Whole proposal".
    """
    path = path or ""
    if not path or path == "$":
        return "Whole proposal"
    spec = FIELD_BY_PATH.get(path)
    if spec is not None:
        return spec.label
    match = ROW_PATH.match(path)
    if match:
        table = TABLE_BY_PATH[match.group(1)]
        index, name = match.group(2), match.group(3)
        if index is None:
            return table.title
        parts = [row_label(table.kind, int(index), names)]
        if name:
            column = FIELD_BY_KEY.get(f"{table.kind}.{name}")
            parts.append(column.label if column else name.replace("_", " "))
        return SEPARATOR.join(parts)
    head = path.split(".", 1)[0].split("[", 1)[0]
    if head in SECTION_OF_KEY and "." not in path and "[" not in path:
        return SECTION_BY_SLUG[SECTION_OF_KEY[head]].title
    # Not a path of the format (should not happen): readable words, no brackets.
    words = re.sub(r"[\[\]._]+", " ", path).strip()
    return words[:1].upper() + words[1:]


def anchor_name(path: str) -> tuple[str, str, int | None, str]:
    """Where a JSON path points in the wizard: ``(section, table kind or "",
    row index or None, model field name or "")``."""
    path = path or ""
    spec = FIELD_BY_PATH.get(path)
    if spec is not None:
        return spec.section, "", None, spec.name
    match = ROW_PATH.match(path)
    if match:
        table = TABLE_BY_PATH[match.group(1)]
        index = match.group(2)
        return (
            table.section,
            table.kind,
            int(index) if index is not None else None,
            match.group(3) or "",
        )
    head = path.split(".", 1)[0].split("[", 1)[0]
    return SECTION_OF_KEY.get(head, "review"), "", None, ""
