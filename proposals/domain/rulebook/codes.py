"""CODE rules: the code entries (role, version, references, framework, wording).

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ..findings import ERROR, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop, join_and
from .common import words

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
# Unambiguous ML words: "model" and "inference" also describe simulations and
# statistics ("climate model", "Bayesian inference").
STRONG_ML_HINT = words(
    r"neural",
    r"llms?\b",
    r"transformers?\b",
    r"fine-?tun",
    r"deep learning",
    r"machine learning",
    r"(?:train|training|trains) (?:a |the |our )?(?:\w+ )?(?:model|network)",
    r"ml model",
    r"gnn",
    r"cnn",
    r"embedding",
)
NON_ML_HINT = words(
    r"simulat",
    r"solver",
    r"cfd\b",
    r"molecular dynamics",
    r"finite[- ](?:element|volume|difference)",
    r"monte carlo",
    r"pre-?process",
    r"mesh",
    r"lattice",
    r"quantum chemistry",
    r"dft\b",
    r"gromacs",
    r"lammps",
    r"openfoam",
    r"ffmpeg",
    r"etl\b",
    r"data cleaning",
    r"tokeni[sz]ation",
)
LANGUAGE = words(
    r"python",
    r"c\+\+",
    r"c\b",
    r"fortran",
    r"julia",
    r"rust\b",
    r"go\b",
    r"java\b",
    r"cuda",
    r"hip\b",
    r"sycl",
    r"openmp",
    r"openacc",
    r"bash",
    r"written in",
)
DEPENDENCIES = words(
    r"depend",
    r"librar",
    r"requires?\b",
    r"uses?\b",
    r"mpi\b",
    r"hdf5",
    r"netcdf",
    r"petsc",
    r"boost",
    r"numpy",
    r"scipy",
    r"pandas",
    r"dask",
    r"blas",
    r"lapack",
    r"fftw",
    r"packages?\b",
)
BUILD = words(
    r"build",
    r"built",
    r"compil",
    r"cmake",
    r"make\b",
    r"install",
    r"pip\b",
    r"conda",
    r"spack",
    r"easybuild",
    r"container",
    r"apptainer",
    r"singularity",
    r"docker",
    r"modules?\b",
    r"binar(?:y|ies)",
    r"pre-?installed",
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
# A figure that is a technical fact: a version ("2.4", "v1.2.3") or a number with a
# technical unit ("8 GPUs", "1.4B parameters", "300B tokens", "64 GB"). Customers,
# euros and percentages of a market are not.
TECH_FIGURE = re.compile(
    r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])"
    r"|\d[\d.,]*\s*[kMBT]?\s*(?:GPUs?|GCDs?|nodes?|cores?|[GT]i?B\b|[GMTP]FLOP|"
    r"tokens?|param|samples?|images?|epochs?|layers?|bits?\b|-bit)"
    r"|\d[\d.,]*\s*[BT]\b",
    re.IGNORECASE,
)
# Code the site or a package manager provides: nothing to build, and the language
# and dependencies are the provider's ("module load GROMACS", "pip install vllm").
PROVIDED = words(
    r"module load",
    r"site[- ]provided",
    r"provided by (?:the )?(?:site|centre|center|system)",
    r"pre-?installed",
    r"(?:site|system|centre|center) modules?",
    r"easybuild module",
    r"pip install",
    r"from pypi",
    r"conda install",
    r"conda-forge",
    r"spack install",
    r"ai software environment",
)
# Languages whose code is compiled: only these need build steps ("if required").
COMPILED = words(
    r"c\+\+",
    r"c\b",
    r"fortran",
    r"rust\b",
    r"go\b",
    r"cuda",
    r"hip\b",
    r"sycl",
    r"openacc",
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


def is_ml(role: str, text: str) -> bool:
    """Whether a code entry is machine-learning code: it names an ML framework or
    unambiguous ML words; otherwise main and evaluation entries are, unless they
    read as simulation or data processing; other roles only with ML words."""
    if FRAMEWORK.search(text) or STRONG_ML_HINT.search(text):
        return True
    if NON_ML_HINT.search(text):
        return False
    if role in ("main", "evaluation"):
        return True
    return role == "other" and bool(ML_HINT.search(text))


@rule("CODE-1", severity=ERROR, title=gettext_noop("No main code entry"), step="codes")
def code_main_missing(ctx: Context) -> Iterator[Hit]:
    """No code entry has the role of the main training or inference loop."""
    if not any(code.role == "main" for code in ctx.proposal.codes):
        yield Hit(
            "codes",
            _(
                "Add a code entry for the main training or inference loop (role “main”)."
            ),
        )


@rule(
    "CODE-2",
    severity=WARNING,
    title=gettext_noop("Code entry without version"),
    step="codes",
)
def code_version(ctx: Context) -> Iterator[Hit]:
    """A code entry has no version or release identifier."""
    for index, code in enumerate(ctx.proposal.codes):
        if not code.version.strip():
            yield Hit(
                f"codes[{index}].version",
                _("Give the version or release (a tag or commit for in-house code)."),
            )


@rule(
    "CODE-3",
    severity=WARNING,
    title=gettext_noop("Code entry without references"),
    step="codes",
)
def code_references(ctx: Context) -> Iterator[Hit]:
    """A code entry lists no web page, repository, documentation or publication."""
    for index, code in enumerate(ctx.proposal.codes):
        if not any(ref.strip() for ref in code.references):
            yield Hit(
                f"codes[{index}].references",
                _(
                    "Link the repository, documentation or papers; references with "
                    "build steps, hardware needs or scaling tests help reviewers most."
                ),
            )


@rule(
    "CODE-4",
    severity=WARNING,
    title=gettext_noop("ML code without framework and version"),
    step="codes",
)
def code_framework(ctx: Context) -> Iterator[Hit]:
    """Machine-learning code whose description names no framework (PyTorch,
    TensorFlow, JAX) or gives no minimum version number. Simulation, pre-processing
    and other non-ML code is not judged here (see CODE-9)."""
    for index, code in enumerate(ctx.proposal.codes):
        text = f"{code.name}\n{code.description}"
        if not code.description.strip() or not is_ml(code.role, text):
            continue
        if not FRAMEWORK.search(code.description):
            yield Hit(
                f"codes[{index}].description",
                _(
                    "Name the ML framework (PyTorch, TensorFlow or JAX) and the minimum "
                    "version you need."
                ),
            )
        elif not VERSION.search(code.description):
            yield Hit(
                f"codes[{index}].description",
                _(
                    "Add the minimum versions of the framework and key libraries "
                    "(for example 2.3)."
                ),
            )


@rule(
    "CODE-5",
    severity=WARNING,
    title=gettext_noop("Multi-node without distributed library"),
    step="codes",
)
def code_distributed(ctx: Context) -> Iterator[Hit]:
    """Jobs span more than one node but no code entry or library list names a
    distributed training library (DDP, FSDP, DeepSpeed, Horovod, Megatron, ...)."""
    if ctx.multi_node and not DISTRIBUTED.search(all_code_text(ctx)):
        yield Hit(
            main_code_field(ctx, "description"),
            _(
                "Jobs span several nodes: name the distributed training library (for "
                "example DDP, FSDP, DeepSpeed, Horovod or Megatron) and how it is used."
            ),
        )


@rule(
    "CODE-6",
    severity=WARNING,
    title=gettext_noop("No word on software environment"),
    step="codes",
)
def code_environment(ctx: Context) -> Iterator[Hit]:
    """No code description says whether the software is available in the site's AI
    software environment or how missing dependencies will be installed."""
    codes = ctx.proposal.codes
    if codes and not any(ENVIRONMENT.search(c.description) for c in codes):
        yield Hit(
            main_code_field(ctx, "description"),
            _(
                "Say whether everything you need is in the system's AI software "
                "environment (containers, modules), or how you will install what is "
                "missing."
            ),
        )


@functools.lru_cache(maxsize=256)
def _term_counts(text: str) -> tuple[int, int]:
    """A description's technical and motivation terms, counted once per text (every
    evaluation of every page and autosave reads each code's description again)."""
    patterns = (FRAMEWORK, DISTRIBUTED, ENVIRONMENT, TECHNICAL, TECH_FIGURE)
    technical = sum(len(p.findall(text)) for p in patterns)
    return technical, len(MOTIVATION.findall(text))


@rule(
    "CODE-7",
    severity=WARNING,
    title=gettext_noop("Motivation instead of technical facts"),
    step="codes",
)
def code_motivation(ctx: Context) -> Iterator[Hit]:
    """A code description contains no technical terms and no technical figures
    (versions, or numbers with a technical unit: GPUs, parameters, tokens, GB), or
    more motivation and impact wording than technical content. Figures about a
    business (customers, euros, market shares) are not technical content."""
    for index, code in enumerate(ctx.proposal.codes):
        text = code.description
        if not text.strip():
            continue
        technical, motivation = _term_counts(text)
        if technical == 0 or (motivation >= 3 and motivation > technical):
            yield Hit(
                f"codes[{index}].description",
                _(
                    "This reads as motivation; reviewers assess the implementation. "
                    "Describe framework, libraries, language, versions and figures."
                ),
            )


@rule(
    "CODE-8",
    severity=(ERROR, WARNING),
    title=gettext_noop("Code entry without name or description"),
    step="codes",
)
def code_blank(ctx: Context) -> Iterator[Hit]:
    """A code entry has no name (error) or no description (warning)."""
    for index, code in enumerate(ctx.proposal.codes):
        if not code.name.strip():
            yield Hit(f"codes[{index}].name", _("Give the name of the code."))
        if not code.description.strip():
            yield Hit(
                f"codes[{index}].description",
                _("Describe the component's role, its framework and libraries."),
                WARNING,
            )


@rule(
    "CODE-9",
    severity=WARNING,
    title=gettext_noop("Non-ML code without language, dependencies or build"),
    step="codes",
)
def code_non_ml(ctx: Context) -> Iterator[Hit]:
    """Code that is not machine-learning code (simulation, pre-processing, other
    tools) whose description does not give its language or its dependencies, or,
    for compiled code (C, C++, Fortran, CUDA, ...), how it is built: the LUMI guide
    asks for the language, the dependencies and "compilation steps (if required)".
    Code the site or a package manager provides ("module load GROMACS", "pip
    install vllm") is left alone: there is nothing to build and its dependencies
    are the provider's."""
    for index, code in enumerate(ctx.proposal.codes):
        text = f"{code.name}\n{code.description}"
        if not code.description.strip() or is_ml(code.role, text):
            continue
        if PROVIDED.search(code.description):
            continue
        checks = [
            (_("the programming language"), LANGUAGE),
            (_("its dependencies"), DEPENDENCIES),
        ]
        if COMPILED.search(code.description):
            checks.append((_("how it is built"), BUILD))
        missing = [
            what for what, pattern in checks if not pattern.search(code.description)
        ]
        if missing:
            yield Hit(
                f"codes[{index}].description",
                _("For code that is not ML code, give {missing}.").format(
                    missing=join_and(missing)
                ),
            )
