"""The rule catalogue: one small generator per reviewer check.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .countries import country
from .eligibility import INDUSTRIAL_KINDS, NOT_ELIGIBLE_KINDS, VatCheck, check_vat
from .findings import ERROR, INFO, WARNING, Context, Hit, rule
from .scaling import FAST_LANE_MAX_BAND, FAST_LANE_MAX_FACTOR, SUPERLINEAR_EFFICIENCY
from .schedule import hours_match
from .tiers import (
    FAST_LANE,
    LARGE_SCALE,
    MAX_GPUS_GUIDANCE,
    PLAYGROUND,
    tier_label,
    tier_rank,
)

INDUSTRIAL = "industrial_innovation"


def num(value: float) -> str:
    """Format a number for messages: thousands separators, no needless decimals."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def words(*patterns: str) -> re.Pattern:
    """A case-insensitive pattern matching any of ``patterns`` at a word start."""
    return re.compile(r"(?<![\w])(?:" + "|".join(patterns) + ")", re.IGNORECASE)


FRAMEWORK = words(r"pytorch", r"torch\b", r"tensorflow", r"jax\b", r"keras", r"flax")
VERSION = re.compile(r"\d+\.\d+")
DISTRIBUTED = words(
    r"ddp\b",
    r"fsdp",
    r"deepspeed",
    r"horovod",
    r"megatron",
    r"torchrun",
    r"torch\.distributed",
    r"accelerate\b",
    r"nccl",
    r"rccl",
    r"mpi\b",
    r"ray\b",
    r"pjit",
    r"(?:tensor|pipeline|data|model)[- ]parallel",
    r"zero-?[123]\b",
    r"nemo\b",
    r"colossal",
)
ENVIRONMENT = words(
    r"container",
    r"singularity",
    r"apptainer",
    r"docker",
    r"pip\b",
    r"conda",
    r"mamba",
    r"venv",
    r"virtualenv",
    r"install",
    r"modules?\b",
    r"easybuild",
    r"spack",
    r"software environment",
    r"software stack",
    r"uenv",
    r"compil(?:e|es|ed|ing|ation)\b",
    r"build (?:steps?|from source|recipe|script)",
    r"built from source",
    r"cmake",
    r"wheels?\b",
    r"requirements\.txt",
    r"environment\.ya?ml",
    r"ai software",
    r"(?:is|are) (?:all )?(?:already )?(?:available|provided|included) (?:in|on|via|through)",
)
ML_HINT = words(
    r"train",
    r"model",
    r"inference",
    r"neural",
    r"llm",
    r"transformer",
    r"fine-?tun",
    r"deep learning",
    r"machine learning",
    r"diffusion",
)
TECHNICAL = words(
    r"gpu",
    r"cuda",
    r"rocm",
    r"hip\b",
    r"python",
    r"c\+\+",
    r"fortran",
    r"batch",
    r"precision",
    r"memory",
    r"throughput",
    r"librar",
    r"kernel",
    r"api\b",
    r"checkpoint",
    r"flash-?attention",
    r"hugging ?face",
    r"vllm",
    r"numpy",
    r"dataset",
    r"data ?load",
    r"bf16",
    r"fp16",
    r"fp8",
)
MOTIVATION = words(
    r"impact",
    r"societ",
    r"breakthrough",
    r"revolution",
    r"novel",
    r"innovat",
    r"transform",
    r"mission",
    r"vision",
    r"citizen",
    r"market",
    r"customer",
    r"sustainab",
    r"unprecedented",
    r"pioneer",
    r"world-class",
    r"cutting-edge",
    r"competitive",
    r"business",
    r"benefit",
    r"europe",
)
TECHNIQUE = words(
    r"fsdp",
    r"ddp\b",
    r"flash-?attention",
    r"checkpoint",
    r"data ?load",
    r"mixed precision",
    r"bf16",
    r"fp16",
    r"fp8",
    r"quantiz",
    r"quantis",
    r"deepspeed",
    r"zero\b",
    r"compile",
    r"kernel",
    r"batch size",
    r"gradient",
    r"nccl",
    r"rccl",
    r"shard",
    r"prefetch",
    r"pipelin",
    r"parallel",
    r"profil",
    r"port",
    r"hip\b",
    r"rocm",
    r"cuda",
    r"fus",
    r"offload",
    r"cach",
    r"i/o",
    r"workers",
    r"distributed",
    r"precision",
    r"memory",
)
DIGIT = re.compile(r"\d")
NODES_MENTION = re.compile(r"(\d+)\s*nodes?\b", re.IGNORECASE)
PER_NODE_MENTION = re.compile(r"(\d+)\s*(?:GPUs?|GCDs?)\s*(?:per|/|a)\s*node", re.I)
GPU_TOKEN = re.compile(r"[A-Za-z]+\d+[A-Za-z]*")


def industrial(ctx: Context) -> bool:
    """Whether the industrial eligibility rules apply."""
    return ctx.proposal.call_family == INDUSTRIAL


def main_code_field(ctx: Context, attribute: str) -> str:
    """Path of ``attribute`` on the main code entry (or on ``codes``)."""
    for index, code in enumerate(ctx.proposal.codes):
        if code.role == "main":
            return f"codes[{index}].{attribute}"
    return "codes"


def all_code_text(ctx: Context) -> str:
    """Names, descriptions and the library list, for keyword checks."""
    parts = [ctx.proposal.selection.libraries]
    for code in ctx.proposal.codes:
        parts += [code.name, code.description]
    return "\n".join(parts)


# --- Tier -------------------------------------------------------------------------

TIER_EVIDENCE = {
    PLAYGROUND: "describe the tests already done, or those this allocation enables",
    FAST_LANE: "give a job plan and scaling measurements with the projected "
    "efficiency at your largest job size",
    LARGE_SCALE: "give a job plan, scaling measurements at the target size (no "
    "extrapolation) and a month-by-month usage schedule",
}


@rule("TIER-1", severity=INFO, title="Tier implied by the GPU-hours", step="selection")
def tier_implied(ctx: Context) -> Iterator[Hit]:
    """Always present: the tier that the total GPU-hours fall into (Playground up to
    5,000, Fast Lane up to 50,000, Large Scale above) and what that tier expects."""
    hours = ctx.proposal.selection.total_gpu_hours
    if ctx.tier is None:
        yield Hit(
            "selection.total_gpu_hours",
            "Enter the total GPU-hours: the call tier follows from it (Playground up "
            "to 5,000, Fast Lane up to 50,000, Large Scale above).",
        )
        return
    yield Hit(
        "selection.total_gpu_hours",
        f"{num(hours)} GPU-hours is a {tier_label(ctx.tier)} request: "
        f"{TIER_EVIDENCE[ctx.tier]}.",
    )


@rule(
    "TIER-2",
    severity=WARNING,
    title="Job size above the tier's guidance",
    step="selection",
)
def tier_job_size(ctx: Context) -> Iterator[Hit]:
    """The largest job (maximum GPUs per job, else the largest job row) is above the
    tier's guidance: 8 GPUs for Playground, 64 for Fast Lane."""
    limit = MAX_GPUS_GUIDANCE.get(ctx.tier) if ctx.tier else None
    if limit is None or ctx.target_gpus is None or ctx.target_gpus <= limit:
        return
    field = "selection.max_gpus_per_job"
    if ctx.proposal.selection.max_gpus_per_job is None:
        row = max(ctx.plan.rows, key=lambda r: r.gpus)
        field = f"scalability.jobs[{row.index}].gpus"
    yield Hit(
        field,
        f"{tier_label(ctx.tier)} is meant for jobs of up to {limit} GPUs; "
        f"{ctx.target_gpus} GPUs per job needs a strong justification or a larger "
        "tier.",
    )


@rule(
    "TIER-3",
    severity=WARNING,
    title="Recommended tier lower than requested",
    step="selection",
)
def tier_recommended_lower(ctx: Context) -> Iterator[Hit]:
    """The guides' quick selection points to a lower tier than the hours imply; the
    reasons are listed in the message."""
    recommended = ctx.recommendation.tier
    if recommended is None or tier_rank(recommended) >= tier_rank(ctx.tier):
        return
    reasons = " ".join(ctx.recommendation.reasons)
    yield Hit(
        "selection.total_gpu_hours",
        f"Quick selection suggests {tier_label(recommended)} rather than "
        f"{tier_label(ctx.tier)}. {reasons} Consider a smaller request first to "
        "collect the missing evidence.",
    )


@rule(
    "TIER-4",
    severity=WARNING,
    title="Multi-node runs without scaling data",
    step="scalability",
)
def tier_multi_node_without_data(ctx: Context) -> Iterator[Hit]:
    """Some run needs more than one node of the target system, but there are no
    scaling measurements (and no high-throughput evidence) to back it."""
    if not ctx.multi_node or ctx.has_scaling_data or ctx.high_throughput_evidence:
        return
    per_node = ctx.cluster.gpus_per_node
    field = "selection.max_gpus_per_job"
    if (ctx.proposal.selection.max_gpus_per_job or 0) <= per_node:
        row = next(r for r in ctx.plan.rows if r.gpus > per_node)
        field = f"scalability.jobs[{row.index}].gpus"
    yield Hit(
        field,
        f"Runs above one node ({per_node} GPUs on {ctx.cluster.name}) need scaling "
        "measurements at two or more GPU counts; add them, keep jobs to one node, or "
        "request Playground to measure first.",
    )


# --- Eligibility ------------------------------------------------------------------


@rule(
    "ELIG-1",
    severity=(ERROR, WARNING),
    title="Organisation type not eligible",
    step="organisation",
)
def elig_kind(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: academic and public-sector organisations are not
    eligible (error); a missing organisation type is a warning."""
    kind = ctx.proposal.organisation.kind
    if not industrial(ctx) or kind in INDUSTRIAL_KINDS:
        return
    if kind in NOT_ELIGIBLE_KINDS:
        yield Hit(
            "organisation.kind",
            "AI for Industrial Innovation calls are for startups, SMEs and other "
            "companies; academic and public organisations should apply to the AI for "
            "Science and Collaborative EU Projects calls instead.",
        )
    else:
        yield Hit(
            "organisation.kind",
            "Say whether the organisation is a startup, an SME or another company.",
            WARNING,
        )


@rule(
    "ELIG-2",
    severity=(ERROR, INFO),
    title="VAT number missing or invalid",
    step="organisation",
)
def elig_vat(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: the VAT number is missing or fails the offline format
    and check-digit test for the country (error); for countries without an offline
    validator an info note says it could not be checked."""
    org = ctx.proposal.organisation
    if not industrial(ctx):
        return
    result = check_vat(org.country, org.vat_number)
    if result is VatCheck.MISSING:
        yield Hit("organisation.vat_number", "Enter the organisation's VAT number.")
    elif result is VatCheck.INVALID:
        yield Hit(
            "organisation.vat_number",
            f"“{org.vat_number.strip()}” is not a valid VAT number for "
            f"{org.country.upper()}: check the digits and the country prefix.",
        )
    elif result is VatCheck.UNCHECKED and country(org.country):
        yield Hit(
            "organisation.vat_number",
            f"VAT numbers from {country(org.country).name} cannot be checked offline; "
            "make sure this is the official registration number.",
            INFO,
        )


@rule("ELIG-3", severity=ERROR, title="Country not eligible", step="organisation")
def elig_country(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: the country of incorporation is missing, or is neither
    an EU member state nor a country associated to Horizon 2020."""
    code = ctx.proposal.organisation.country.strip()
    if not industrial(ctx) or country(code):
        return
    if not code:
        message = "Enter the country where the organisation is incorporated."
    else:
        message = (
            f"Organisations incorporated in {code.upper()} are not eligible: only EU "
            "member states and countries associated to Horizon 2020 are."
        )
    yield Hit("organisation.country", message)


@rule(
    "ELIG-4",
    severity=ERROR,
    title="Another ongoing EuroHPC JU project",
    step="organisation",
)
def elig_ongoing(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: the organisation already has an ongoing EuroHPC JU
    project, which makes the application ineligible."""
    if industrial(ctx) and ctx.proposal.organisation.ongoing_eurohpc_project:
        yield Hit(
            "organisation.ongoing_eurohpc_project",
            "Applications from organisations with another running EuroHPC JU project "
            "are rejected; apply once that project has ended.",
        )


@rule(
    "ELIG-5",
    severity=INFO,
    title="Industrial eligibility not applied",
    step="organisation",
)
def elig_other_family(ctx: Context) -> Iterator[Hit]:
    """For the AI for Science and Collaborative EU Projects family the industrial
    eligibility checks (ELIG-1 to ELIG-4) are skipped; this note says so."""
    if not industrial(ctx):
        yield Hit(
            "call_family",
            "The industrial eligibility checks are skipped for AI for Science and "
            "Collaborative EU Projects; that family has its own terms (about 6-month "
            "allocations with peer review).",
        )


# --- Selection --------------------------------------------------------------------

REQUIRED_SELECTION = (
    ("system", "the target system"),
    ("total_gpu_hours", "the total GPU-hours"),
    ("max_gpus_per_job", "the maximum number of GPUs per job"),
    ("storage_tb", "the storage need in TB (0 if none)"),
    ("transfer_in_tb", "the data volume to transfer in, in TB (0 if none)"),
    ("transfer_out_tb", "the data volume to transfer out, in TB (0 if none)"),
)


@rule(
    "SEL-1", severity=ERROR, title="Required selection field missing", step="selection"
)
def sel_required(ctx: Context) -> Iterator[Hit]:
    """One finding per empty required field of the AI Factory selection: system,
    total GPU-hours, maximum GPUs per job, storage, transfer in and out."""
    selection = ctx.proposal.selection
    for name, label in REQUIRED_SELECTION:
        if getattr(selection, name) in (None, ""):
            yield Hit(f"selection.{name}", f"Enter {label}.")


@rule(
    "SEL-2",
    severity=WARNING,
    title="Multi-node job not a whole number of nodes",
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
                f"{gpus} GPUs is not a whole number of {ctx.cluster.name} nodes "
                f"({per_node} GPUs each); use a multiple of {per_node}.",
            )


@rule("SEL-3", severity=WARNING, title="GPU count looks like GCDs", step="selection")
def sel_gcds(ctx: Context) -> Iterator[Hit]:
    """On systems whose GPUs have several compute dies (LUMI-G: one MI250X is two
    GCDs, shown by Slurm as two GPUs), a GPU count that matches the die count of
    the node count mentioned next to it, or text claiming that many GPUs per node."""
    cluster = ctx.cluster
    if cluster is None or cluster.gcds_per_gpu <= 1:
        return
    dies = cluster.gpus_per_node * cluster.gcds_per_gpu
    advice = (
        f"On {cluster.name} count physical GPUs: a node has {cluster.gpus_per_node} "
        f"GPUs, which Slurm shows as {dies} GCDs. Divide GCD counts by "
        f"{cluster.gcds_per_gpu}."
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
        nodes = [int(n) for n in NODES_MENTION.findall(text)]
        if any(n * dies == gpus for n in nodes):
            yield Hit(field, advice)
    for match in PER_NODE_MENTION.finditer(scal.narrative):
        if int(match[1]) == dies:
            yield Hit("scalability.narrative", advice)
            break


@rule("SEL-4", severity=ERROR, title="Unknown target system", step="selection")
def sel_unknown_system(ctx: Context) -> Iterator[Hit]:
    """The target system is not in the cluster catalogue."""
    system = ctx.proposal.selection.system
    if system and ctx.cluster is None:
        known = ", ".join(sorted(ctx.catalogue)) or "none"
        yield Hit(
            "selection.system",
            f"“{system}” is not a system in the catalogue; choose one of: {known}.",
        )


@rule("SEL-5", severity=ERROR, title="Job larger than any partition", step="selection")
def sel_partition_size(ctx: Context) -> Iterator[Hit]:
    """A job type needs more nodes than any partition of the target system allows."""
    for row in ctx.plan.rows:
        if row.fits_partition is False:
            largest = max(p.max_nodes for p in ctx.cluster.partitions)
            yield Hit(
                f"scalability.jobs[{row.index}].gpus",
                f"{row.gpus} GPUs is {row.nodes} nodes, more than the {largest} "
                f"nodes a job may use on {ctx.cluster.name}; reduce the job size.",
            )


# --- Codes ------------------------------------------------------------------------


def is_ml(role: str, text: str) -> bool:
    """Whether a code entry is machine-learning code."""
    if FRAMEWORK.search(text):
        return True
    return role in ("main", "evaluation") or bool(ML_HINT.search(text))


@rule("CODE-1", severity=ERROR, title="No main code entry", step="codes")
def code_main_missing(ctx: Context) -> Iterator[Hit]:
    """No code entry has the role of the main training or inference loop."""
    if not any(code.role == "main" for code in ctx.proposal.codes):
        yield Hit(
            "codes",
            "Add a code entry for the main training or inference loop (role “main”).",
        )


@rule("CODE-2", severity=WARNING, title="Code entry without version", step="codes")
def code_version(ctx: Context) -> Iterator[Hit]:
    """A code entry has no version or release identifier."""
    for index, code in enumerate(ctx.proposal.codes):
        if not code.version.strip():
            yield Hit(
                f"codes[{index}].version",
                "Give the version or release (a tag or commit for in-house code).",
            )


@rule("CODE-3", severity=WARNING, title="Code entry without references", step="codes")
def code_references(ctx: Context) -> Iterator[Hit]:
    """A code entry lists no web page, repository, documentation or publication."""
    for index, code in enumerate(ctx.proposal.codes):
        if not any(ref.strip() for ref in code.references):
            yield Hit(
                f"codes[{index}].references",
                "Link the repository, documentation or papers; references with "
                "build steps, hardware needs or scaling tests help reviewers most.",
            )


@rule(
    "CODE-4",
    severity=WARNING,
    title="ML code without framework and version",
    step="codes",
)
def code_framework(ctx: Context) -> Iterator[Hit]:
    """Machine-learning code whose description names no framework (PyTorch,
    TensorFlow, JAX) or gives no minimum version number."""
    for index, code in enumerate(ctx.proposal.codes):
        text = f"{code.name}\n{code.description}"
        if not code.description.strip() or not is_ml(code.role, text):
            continue
        if not FRAMEWORK.search(code.description):
            yield Hit(
                f"codes[{index}].description",
                "Name the ML framework (PyTorch, TensorFlow or JAX) and the minimum "
                "version you need.",
            )
        elif not VERSION.search(code.description):
            yield Hit(
                f"codes[{index}].description",
                "Add the minimum versions of the framework and key libraries "
                "(for example 2.3).",
            )


@rule(
    "CODE-5",
    severity=WARNING,
    title="Multi-node without distributed library",
    step="codes",
)
def code_distributed(ctx: Context) -> Iterator[Hit]:
    """Jobs span more than one node but no code entry or library list names a
    distributed training library (DDP, FSDP, DeepSpeed, Horovod, Megatron, ...)."""
    if ctx.multi_node and not DISTRIBUTED.search(all_code_text(ctx)):
        yield Hit(
            main_code_field(ctx, "description"),
            "Jobs span several nodes: name the distributed training library (for "
            "example DDP, FSDP, DeepSpeed, Horovod or Megatron) and how it is used.",
        )


@rule("CODE-6", severity=WARNING, title="No word on software environment", step="codes")
def code_environment(ctx: Context) -> Iterator[Hit]:
    """No code description says whether the software is available in the site's AI
    software environment or how missing dependencies will be installed."""
    codes = ctx.proposal.codes
    if codes and not any(ENVIRONMENT.search(c.description) for c in codes):
        yield Hit(
            main_code_field(ctx, "description"),
            "Say whether everything you need is in the system's AI software "
            "environment (containers, modules), or how you will install what is "
            "missing.",
        )


@rule(
    "CODE-7",
    severity=WARNING,
    title="Motivation instead of technical facts",
    step="codes",
)
def code_motivation(ctx: Context) -> Iterator[Hit]:
    """A code description contains no technical terms and no numbers, or more
    motivation and impact wording than technical content."""
    for index, code in enumerate(ctx.proposal.codes):
        text = code.description
        if not text.strip():
            continue
        technical = sum(
            len(p.findall(text))
            for p in (FRAMEWORK, DISTRIBUTED, ENVIRONMENT, TECHNICAL, DIGIT)
        )
        motivation = len(MOTIVATION.findall(text))
        if technical == 0 or (motivation >= 3 and motivation > technical):
            yield Hit(
                f"codes[{index}].description",
                "This reads as motivation; reviewers assess the implementation. "
                "Describe framework, libraries, language, versions and figures.",
            )


@rule(
    "CODE-8",
    severity=(ERROR, WARNING),
    title="Code entry without name or description",
    step="codes",
)
def code_blank(ctx: Context) -> Iterator[Hit]:
    """A code entry has no name (error) or no description (warning)."""
    for index, code in enumerate(ctx.proposal.codes):
        if not code.name.strip():
            yield Hit(f"codes[{index}].name", "Give the name of the code.")
        if not code.description.strip():
            yield Hit(
                f"codes[{index}].description",
                "Describe the component's role, its framework and libraries.",
                WARNING,
            )


# --- Scalability ------------------------------------------------------------------

SCALED = (FAST_LANE, LARGE_SCALE)


@rule(
    "SCAL-1",
    severity=WARNING,
    title="Playground without test description",
    step="scalability",
)
def scal_playground_tests(ctx: Context) -> Iterator[Hit]:
    """Playground: the scalability text is empty or too short to describe the tests
    already done or planned."""
    if ctx.tier == PLAYGROUND and len(ctx.proposal.scalability.narrative.strip()) < 40:
        yield Hit(
            "scalability.narrative",
            "Describe the tests you have run (any hardware), or the measurements "
            "this allocation will let you make.",
        )


@rule("SCAL-2", severity=ERROR, title="No job plan", step="scalability")
def scal_job_plan(ctx: Context) -> Iterator[Hit]:
    """Fast Lane and Large Scale: no job types are listed."""
    if ctx.tier in SCALED and not ctx.proposal.scalability.jobs:
        yield Hit(
            "scalability.jobs",
            "List the job types (title, GPUs, hours, number of jobs): the job plan "
            "is the main justification of the requested hours.",
        )


@rule(
    "SCAL-3",
    severity=ERROR,
    title="Job plan total differs from request",
    step="scalability",
)
def scal_total(ctx: Context) -> Iterator[Hit]:
    """The job plan's GPU-hours do not add up to the requested total."""
    requested = ctx.proposal.selection.total_gpu_hours
    planned = ctx.plan.total_gpu_hours
    if requested is None or not ctx.plan.rows or hours_match(planned, requested):
        return
    yield Hit(
        "scalability.jobs",
        f"The job plan adds up to {num(planned)} GPU-hours but {num(requested)} are "
        f"requested (difference {num(planned - requested)}); make them agree.",
    )


@rule(
    "SCAL-4", severity=ERROR, title="Job above the max GPUs per job", step="scalability"
)
def scal_job_above_max(ctx: Context) -> Iterator[Hit]:
    """A job type uses more GPUs than the declared maximum GPUs per job."""
    limit = ctx.proposal.selection.max_gpus_per_job
    for row in ctx.plan.rows:
        if limit is not None and row.gpus > limit:
            yield Hit(
                f"scalability.jobs[{row.index}].gpus",
                f"This job uses {row.gpus} GPUs, more than the declared maximum of "
                f"{limit}; raise the maximum or shrink the job.",
            )


@rule(
    "SCAL-5", severity=ERROR, title="Too few scaling measurements", step="scalability"
)
def scal_measurements(ctx: Context) -> Iterator[Hit]:
    """Fast Lane and Large Scale: fewer than two usable measurements at distinct GPU
    counts, unless the workload is many small jobs with a runtime stability figure."""
    if ctx.tier in SCALED and not (
        ctx.has_scaling_data or ctx.high_throughput_evidence
    ):
        yield Hit(
            "scalability.measurements",
            "Add throughput measurements at two or more GPU counts (for example 1, 2 "
            "and 4 GPUs), or, for many independent small jobs, a representative job "
            "and its runtime stability.",
        )


@rule(
    "SCAL-6",
    severity=WARNING,
    title="Extrapolation beyond the data",
    step="scalability",
)
def scal_fast_lane_extrapolation(ctx: Context) -> Iterator[Hit]:
    """Fast Lane: the target is more than 4 times the largest measured GPU count, or
    the two models disagree by more than 15 points at the target."""
    p = ctx.projection
    if ctx.tier != FAST_LANE or p is None or p.extrapolation_allowed:
        return
    problems = []
    if p.extrapolation_factor > FAST_LANE_MAX_FACTOR:
        problems.append(
            f"{p.target_gpus} GPUs is {p.extrapolation_factor:.1f} times the largest "
            f"measurement ({p.largest_measured_gpus})"
        )
    if p.band_width > FAST_LANE_MAX_BAND:
        problems.append(
            f"the projected efficiency ranges from {p.efficiency_low:.0%} to "
            f"{p.efficiency_high:.0%}"
        )
    yield Hit(
        "selection.max_gpus_per_job",
        "The data does not support this extrapolation: "
        + " and ".join(problems)
        + ". Measure closer to the target size.",
    )


@rule(
    "SCAL-7",
    severity=ERROR,
    title="Large Scale target above measured scale",
    step="scalability",
)
def scal_large_scale_extrapolation(ctx: Context) -> Iterator[Hit]:
    """Large Scale: the target GPU count is above the largest measured count
    (Large Scale allows no extrapolation)."""
    points = ctx.analysis.points
    if ctx.tier != LARGE_SCALE or not points or not ctx.target_gpus:
        return
    largest = max(p.gpus for p in points)
    if ctx.target_gpus > largest:
        yield Hit(
            "selection.max_gpus_per_job",
            f"Large Scale needs measurements at the target size, but the largest "
            f"is {largest} GPUs for a target of {ctx.target_gpus}. Measure at the "
            "target size, or request Fast Lane first to collect the data.",
        )


@rule(
    "SCAL-8",
    severity=ERROR,
    title="Usage schedule missing or inconsistent",
    step="scalability",
)
def scal_schedule(ctx: Context) -> Iterator[Hit]:
    """Large Scale: no usage schedule, its sum differs from the requested total, or
    it runs past the allocation's duration."""
    if ctx.tier != LARGE_SCALE:
        return
    summary = ctx.schedule
    if not summary.rows:
        yield Hit(
            "scalability.schedule",
            "Add a usage schedule: GPU-hours per month or range of months.",
        )
        return
    if summary.matches_total is False:
        yield Hit(
            "scalability.schedule",
            f"The schedule adds up to {num(summary.total_gpu_hours)} GPU-hours, not "
            f"the {num(ctx.proposal.selection.total_gpu_hours)} requested.",
        )
    duration = ctx.proposal.selection.duration_months
    if duration is None:
        yield Hit(
            "selection.duration_months",
            "Enter the allocation duration so the schedule can be checked.",
        )
        return
    for index, row in enumerate(summary.rows):
        if max(row.from_month, row.to_month) > duration:
            yield Hit(
                f"scalability.schedule[{index}].to_month",
                f"Month {max(row.from_month, row.to_month)} is after the end of the "
                f"{duration}-month allocation.",
            )


@rule(
    "SCAL-9",
    severity=WARNING,
    title="No MFU or communication overhead",
    step="scalability",
)
def scal_mfu(ctx: Context) -> Iterator[Hit]:
    """Large Scale single large jobs: no measurement gives MFU or communication
    overhead."""
    scal = ctx.proposal.scalability
    if ctx.tier != LARGE_SCALE or scal.workload == "many_small_jobs":
        return
    if not any(
        m.mfu_pct is not None or m.comm_overhead_pct is not None
        for m in scal.measurements
    ):
        yield Hit(
            "scalability.measurements",
            "Large single jobs are expected to report MFU (model FLOPs utilisation) "
            "and communication overhead per measured size.",
        )


@rule(
    "SCAL-10",
    severity=(WARNING, INFO),
    title="Measured on other hardware",
    step="scalability",
)
def scal_hardware(ctx: Context) -> Iterator[Hit]:
    """Measurements whose hardware does not name the target system's GPU model, one
    finding per distinct hardware (info in Playground, where other hardware is fine;
    warning above)."""
    if ctx.cluster is None:
        return
    tokens = {t.upper() for t in GPU_TOKEN.findall(ctx.cluster.gpu_model)}
    severity = INFO if ctx.tier in (PLAYGROUND, None) else WARNING
    other: dict[str, list[int]] = {}
    for index, m in enumerate(ctx.proposal.scalability.measurements):
        found = {t.upper() for t in GPU_TOKEN.findall(m.hardware)}
        if tokens and not tokens & found:
            other.setdefault(m.hardware.strip(), []).append(index)
    for hardware, indices in other.items():
        what = f"“{hardware}”" if hardware else "not stated"
        rows = (
            "This measurement"
            if len(indices) == 1
            else (f"{len(indices)} measurements")
        )
        yield Hit(
            f"scalability.measurements[{indices[0]}].hardware",
            f"{rows} ran on hardware {what}, not the {ctx.cluster.gpu_model} of "
            f"{ctx.cluster.name}; results on the target GPU carry more weight.",
            severity,
        )


@rule("SCAL-11", severity=WARNING, title="Implausible scaling data", step="scalability")
def scal_check_data(ctx: Context) -> Iterator[Hit]:
    """Efficiency above 100% (super-linear scaling), or the same GPU count measured
    twice for one code entry."""
    for series in ctx.analysis.series:
        seen = set()
        for p in series.points:
            if p.gpus in seen:
                yield Hit(
                    f"scalability.measurements[{p.index}].gpus",
                    f"{p.gpus} GPUs is measured more than once; keep one row per GPU "
                    "count (the average is used for the projection).",
                )
            seen.add(p.gpus)
            if p.efficiency > SUPERLINEAR_EFFICIENCY:
                yield Hit(
                    f"scalability.measurements[{p.index}].throughput",
                    f"Efficiency {p.efficiency:.0%} is above 100%; check the "
                    "throughput figures and say why if it is real.",
                )


@rule(
    "SCAL-12",
    severity=WARNING,
    title="Walltime above partition limit",
    step="scalability",
)
def scal_walltime(ctx: Context) -> Iterator[Hit]:
    """A job type runs longer than any partition that fits its node count allows
    (partitions without a recorded limit are not judged)."""
    for row in ctx.plan.rows:
        if row.walltime_ok is False:
            limit = max(
                p.max_walltime_hours
                for p in ctx.cluster.partitions
                if (p.max_nodes is None or row.nodes <= p.max_nodes)
                and p.max_walltime_hours is not None
            )
            yield Hit(
                f"scalability.jobs[{row.index}].hours",
                f"{num(row.hours)} h is above the {num(limit)} h limit for a "
                f"{row.nodes}-node job on {ctx.cluster.name}; split the job into "
                "checkpointed segments.",
            )


@rule("SCAL-13", severity=ERROR, title="Invalid schedule row", step="scalability")
def scal_schedule_rows(ctx: Context) -> Iterator[Hit]:
    """A schedule row starts before month 1, ends before it starts, or has negative
    GPU-hours."""
    for index, row in enumerate(ctx.proposal.scalability.schedule):
        path = f"scalability.schedule[{index}]"
        if row.from_month < 1:
            yield Hit(f"{path}.from_month", "Months are counted from 1.")
        if row.to_month < row.from_month:
            yield Hit(f"{path}.to_month", "The last month is before the first.")
        if row.gpu_hours < 0:
            yield Hit(f"{path}.gpu_hours", "GPU-hours cannot be negative.")


@rule("SCAL-14", severity=ERROR, title="Unusable measurement", step="scalability")
def scal_unusable(ctx: Context) -> Iterator[Hit]:
    """A measurement has no positive GPU count or throughput, or refers to a code
    entry that does not exist; it is left out of the table."""
    codes = len(ctx.proposal.codes)
    for index, m in enumerate(ctx.proposal.scalability.measurements):
        path = f"scalability.measurements[{index}]"
        if index in ctx.analysis.unusable:
            if not (isinstance(m.gpus, int) and m.gpus > 0):
                yield Hit(f"{path}.gpus", "Enter a GPU count of at least 1.")
            else:
                yield Hit(f"{path}.throughput", "Enter a throughput above zero.")
        if m.code is not None and not 0 <= m.code < codes:
            yield Hit(f"{path}.code", "This measurement refers to no code entry.")


@rule(
    "SCAL-15", severity=INFO, title="Measurements not in GPU order", step="scalability"
)
def scal_unsorted(ctx: Context) -> Iterator[Hit]:
    """Measurements are not listed in ascending GPU count; tables show them sorted."""
    if ctx.analysis.unsorted:
        yield Hit(
            "scalability.measurements",
            "The measurements are shown sorted by GPU count; the smallest count is "
            "the base of speedup and efficiency.",
        )


@rule("SCAL-16", severity=WARNING, title="Mixed throughput units", step="scalability")
def scal_units(ctx: Context) -> Iterator[Hit]:
    """The measurements of one code entry use different throughput units, so their
    speedups are meaningless."""
    for series in ctx.analysis.series:
        if len(series.units) > 1:
            yield Hit(
                f"scalability.measurements[{series.points[0].index}].unit",
                f"Measurements of one code use different units "
                f"({', '.join(u or 'none' for u in series.units)}); use one unit.",
            )


@rule("SCAL-17", severity=ERROR, title="Invalid job row", step="scalability")
def scal_job_rows(ctx: Context) -> Iterator[Hit]:
    """A job type has no positive GPU count, duration or number of jobs."""
    for index, job in enumerate(ctx.proposal.scalability.jobs):
        for name, value in (
            ("gpus", job.gpus),
            ("hours", job.hours),
            ("count", job.count),
        ):
            if not value > 0:
                yield Hit(
                    f"scalability.jobs[{index}].{name}", "Enter a value above zero."
                )


@rule(
    "SCAL-18",
    severity=WARNING,
    title="Many small jobs without stability figure",
    step="scalability",
)
def scal_stability(ctx: Context) -> Iterator[Hit]:
    """The workload is many small independent jobs but no runtime stability figure
    (for example ±5%) from a representative job is given."""
    scal = ctx.proposal.scalability
    if scal.workload == "many_small_jobs" and scal.runtime_stability_pct is None:
        yield Hit(
            "scalability.runtime_stability_pct",
            "Run a representative job several times and give the runtime spread "
            "(for example ±5%).",
        )


# --- Optimisation -----------------------------------------------------------------


@rule(
    "OPT-1",
    severity=(ERROR, WARNING),
    title="Optimisation plan missing or vague",
    step="optimisation",
)
def opt_plan(ctx: Context) -> Iterator[Hit]:
    """The optimisation text is empty (error), or names no concrete technique or
    gives no quantified benefit (warning)."""
    text = ctx.proposal.optimisation_narrative
    if not text.strip():
        yield Hit(
            "optimisation.narrative",
            "Describe the concrete optimisations you plan: which component, which "
            "technique, and the expected gain.",
        )
        return
    missing = []
    if not TECHNIQUE.search(text):
        missing.append(
            "the technique (FSDP, FlashAttention, checkpointing, data loading, ...)"
        )
    if not DIGIT.search(text):
        missing.append("the expected gain in numbers")
    if missing:
        yield Hit(
            "optimisation.narrative",
            "Make the optimisation plan concrete: add " + " and ".join(missing) + ".",
            WARNING,
        )
