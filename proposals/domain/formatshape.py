"""The declarative description of ``aifactory-proposal/1`` (``FORMAT``): every object,
its keys, their JSON kinds, limits and descriptions. The parser and writer
(:mod:`.jsonformat`) and the JSON Schema (:mod:`.formatschema`) are driven by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from . import limits
from .bounds import BOUNDS, Bound
from .codeentry import CODE_FIELDS, CodeEntry
from .training_logs import SOURCE_CHARS
from .types import (
    CALL_FAMILIES,
    EXPERIENCE_LEVELS,
    ORGANISATION_KINDS,
    WORKLOADS,
    Experience,
    Job,
    Measurement,
    Organisation,
    Proposal,
    Scalability,
    Selection,
    UsagePeriod,
)
from .values import REQUIRED

if TYPE_CHECKING:
    from .fieldspec import FieldSpec

FORMAT_TAG = "aifactory-proposal/1"


@dataclass(frozen=True)
class Field:
    """One key of an object: its JSON kind and the dataclass attribute behind it."""

    name: str
    # string, boolean, integer, number, enum, country, strings, names, object, array
    kind: str
    nullable: bool = False
    choices: tuple[str, ...] = ()
    shape: Shape | None = None
    description: str = ""
    # characters (strings: all items, one per line; names: each name)
    max_length: int | None = None
    max_items: int | None = None  # rows of an array, names of a list of names
    # The range of a number (``domain.bounds``, keyed as the vocabulary keys the
    # field); ``None`` for a number without one (a measurement's code index).
    bound: Bound | None = None
    # Keys added to version 1 after its release carry a default: a file without the
    # key still imports (with the default); exports always write it.
    default: object = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def nested(self) -> Shape:
        """The shape of an object, or of an array's items (kinds that have one)."""
        if self.shape is None:
            raise TypeError(f"{self.name} ({self.kind}) has no shape")
        return self.shape

    @property
    def zero_is_blank(self) -> bool:
        """A number of a table cell that cannot be null: ``0`` stands for the cell
        left blank (the wizard accepts no 0 there, see ``domain.bounds``)."""
        return self.bound is not None and not self.nullable and self.bound.low > 0

    @classmethod
    def of(cls, spec: FieldSpec) -> Field:
        """The key of a vocabulary field that declares its value."""
        v = spec.value
        if v is None:
            raise TypeError(f"{spec.key} declares no value (FieldSpec.value)")
        return cls(
            spec.name,
            v.kind,
            nullable=v.nullable,
            choices=v.choices,
            description=v.description,
            max_length=v.max_length,
            default=v.default,
        )


@dataclass(frozen=True)
class Shape:
    """A JSON object and the callable that builds the domain value from it.

    ``table`` is the vocabulary's name of the rows it holds (``jobs``), ``""`` for
    the proposal's own fields: each number takes its bound from ``BOUNDS`` under
    its field key (``jobs.gpus``, ``total_gpu_hours``), the one table of bounds."""

    title: str
    build: Callable
    fields: tuple[Field, ...]
    table: str | None = None

    def __post_init__(self):
        if self.table is None:
            return
        prefix = f"{self.table}." if self.table else ""
        bounded = tuple(
            replace(f, bound=BOUNDS.get(prefix + f.name))
            if f.kind in ("integer", "number")
            else f
            for f in self.fields
        )
        object.__setattr__(self, "fields", bounded)


def _blank_or(choices: tuple[str, ...]) -> tuple[str, ...]:
    return ("", *choices)


ORGANISATION = Shape(
    "Organisation",
    Organisation,
    (
        Field("name", "string", max_length=limits.LINE_CHARS),
        Field(
            "kind",
            "enum",
            choices=_blank_or(ORGANISATION_KINDS),
            description="Empty string when not answered yet.",
        ),
        Field(
            "country",
            "country",
            description="ISO 3166-1 alpha-2 code of the country of incorporation, "
            "one the wizard offers, or an empty string.",
        ),
        Field("vat_number", "string", max_length=limits.VAT_NUMBER_CHARS),
        Field("ongoing_eurohpc_project", "boolean"),
    ),
)
EXPERIENCE = Shape(
    "Experience",
    Experience,
    (
        Field("hpc_experience", "enum", choices=_blank_or(EXPERIENCE_LEVELS)),
        Field("stack_demonstrated_on_target", "boolean", nullable=True),
    ),
)
SELECTION = Shape(
    "Selection",
    Selection,
    table="",
    fields=(
        Field("system", "string", description="Catalogue slug, e.g. lumi-g."),
        Field("libraries", "string", max_length=limits.LIBRARIES_CHARS),
        Field(
            "total_gpu_hours",
            "number",
            nullable=True,
            description="Physical GPU-hours (on LUMI-G one MI250X, not one GCD).",
        ),
        Field("max_gpus_per_job", "integer", nullable=True),
        Field("storage_tb", "number", nullable=True),
        Field("storage_justification", "string", max_length=limits.JUSTIFICATION_CHARS),
        Field("transfer_in_tb", "number", nullable=True),
        Field("transfer_out_tb", "number", nullable=True),
        Field(
            "transfer_justification", "string", max_length=limits.JUSTIFICATION_CHARS
        ),
        Field("extra_cpu_hours", "number", nullable=True),
        Field("auxiliary_services", "string", max_length=limits.JUSTIFICATION_CHARS),
        Field("duration_months", "integer", nullable=True),
    ),
)
# The code card's keys are its fields in the vocabulary (``FieldSpec.value``), in
# page order; keys added to version 1 later carry a default there.
CODE = Shape(
    "CodeEntry",
    CodeEntry,
    tuple(Field.of(spec) for spec in CODE_FIELDS),
    table="codes",
)
MEASUREMENT = Shape(
    "Measurement",
    Measurement,
    table="measurements",
    fields=(
        Field(
            "code",
            "integer",
            nullable=True,
            description="Index into codes, or null when not tied to an entry.",
        ),
        Field("gpus", "integer", description="Physical GPUs."),
        Field("throughput", "number"),
        Field(
            "unit",
            "string",
            max_length=limits.UNIT_CHARS,
            description="For example samples/s or tokens/s.",
        ),
        Field("mfu_pct", "number", nullable=True),
        Field("comm_overhead_pct", "number", nullable=True),
        Field("hardware", "string", max_length=limits.LINE_CHARS),
        Field(
            "source",
            "string",
            max_length=SOURCE_CHARS,
            description="Where a measurement read from a training log came from "
            "(file, lines, formula, a short excerpt); empty for typed ones.",
            default="",
        ),
    ),
)
JOB = Shape(
    "Job",
    Job,
    table="jobs",
    fields=(
        Field("title", "string", max_length=limits.LINE_CHARS),
        Field("gpus", "integer", description="GPUs per job."),
        Field("hours", "number", description="Walltime per job in hours."),
        Field("count", "integer", description="Number of such jobs."),
        Field(
            "source",
            "string",
            max_length=SOURCE_CHARS,
            description="Where a row read from sacct output came from; empty for "
            "typed ones.",
            default="",
        ),
    ),
)
PERIOD = Shape(
    "UsagePeriod",
    UsagePeriod,
    table="schedule",
    fields=(
        Field("from_month", "integer"),
        Field("to_month", "integer"),
        Field("gpu_hours", "number"),
        Field("activity", "string", max_length=limits.ACTIVITY_CHARS),
    ),
)
SCALABILITY = Shape(
    "Scalability",
    Scalability,
    table="",
    fields=(
        Field("narrative", "string", max_length=limits.NARRATIVE_CHARS),
        Field("workload", "enum", choices=_blank_or(WORKLOADS)),
        Field(
            "runtime_stability_pct",
            "number",
            nullable=True,
            description="Per-job runtime spread, e.g. 5 for +/-5%.",
        ),
        Field(
            "measurements",
            "array",
            shape=MEASUREMENT,
            max_items=limits.MAX_ROWS["measurements"],
        ),
        Field("jobs", "array", shape=JOB, max_items=limits.MAX_ROWS["jobs"]),
        Field("schedule", "array", shape=PERIOD, max_items=limits.MAX_ROWS["schedule"]),
    ),
)
OPTIMISATION = Shape(
    "Optimisation",
    lambda narrative: narrative,
    (Field("narrative", "string", max_length=limits.NARRATIVE_CHARS),),
)
PROPOSAL = Shape(
    "Proposal",
    Proposal,
    (
        Field("format", "enum", choices=(FORMAT_TAG,)),
        Field("title", "string", max_length=limits.LINE_CHARS),
        Field("call_family", "enum", choices=CALL_FAMILIES),
        Field("organisation", "object", shape=ORGANISATION),
        Field("experience", "object", shape=EXPERIENCE),
        Field("selection", "object", shape=SELECTION),
        Field("codes", "array", shape=CODE, max_items=limits.MAX_ROWS["codes"]),
        Field("scalability", "object", shape=SCALABILITY),
        Field("optimisation", "object", shape=OPTIMISATION),
        Field(
            "team",
            "names",
            max_items=limits.MAX_TEAM_NAMES,
            max_length=limits.TEAM_NAME_CHARS,
            description="The names of the proposal's team, its owner first, then "
            "its members from the longest-standing; written only for a proposal "
            "with members. Names only, never an e-mail address. Read on import "
            "but never used: an import makes nobody a member.",
            default=(),
        ),
    ),
)
FORMAT = PROPOSAL
