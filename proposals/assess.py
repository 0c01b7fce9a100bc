"""The one adapter between the database and the proposal engine.

Model instances become ``proposals.domain`` inputs here and nowhere else, and a
parsed JSON document becomes unsaved, validated model instances
(:func:`document_rows`), which ``services.proposal_import`` writes. Nothing here
writes. Child rows keep
their order, so a finding's path such as ``scalability.jobs[2].gpus`` points at the
third job row of the form. Incomplete rows (a number left blank) are passed on with 0,
which the engine reports as "enter a value above zero" on that row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db.models import F, Q

from . import domain
from .domain import calendar
from .domain.field_estimate import ESTIMATE_FIELDS
from .domain.fields import FIELDS
from .domain.formatshape import CODE
from .domain.sections import TABLE_KINDS
from .models import (
    CallMode,
    Cluster,
    CodeEntry,
    CountryEligibility,
    GpuModel,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)
from .table_rows import rows_of

# The catalogue row keys are the domain Cluster fields (as in fixtures/catalogue.json).
CLUSTER_FIELDS = [f.name for f in fields(domain.Cluster)]
CHILDREN = TABLE_KINDS
# The compute estimate's optional numbers of a code entry: its fields in the
# vocabulary, less the choice of training or inference.
ESTIMATE_NUMBERS = tuple(
    spec.name for spec in ESTIMATE_FIELDS if spec.name != "model_use"
)
# A code entry's text and choice fields (``string`` and ``enum`` in the JSON format)
# are copied as they are, both ways: one added to the format needs no line here.
CODE_TEXTS = tuple(f.name for f in CODE.fields if f.kind in ("string", "enum"))
# Proposal model field -> its JSON path, from the vocabulary.
FIELD_PATHS = {spec.name: spec.path for spec in FIELDS if spec.table is None}
# The paths the domain reads as the proposal's own fields (``optimisation.narrative``
# is the domain's ``optimisation_narrative``, the system a catalogue slug).
DOMAIN_PATHS = set(FIELD_PATHS.values()) - {
    "optimisation.narrative",
    "selection.system",
}


def _float(value) -> float | None:
    return None if value is None else float(value)


def _decimal(value: float | None) -> Decimal | None:
    return None if value is None else Decimal(repr(value))


def _whole(value: float | None) -> Decimal | None:
    """A float as a decimal, whole numbers without a ".0" (1.4e9 parameters fit a
    field without decimal places)."""
    if value is not None and float(value).is_integer():
        return Decimal(int(value))
    return _decimal(value)


def _blank_if_zero(value):
    """Blank (``None``) for the 0 that stands for an empty cell in the domain; other
    values as given, so that a negative one is refused with its path, not dropped."""
    return None if value is None or value == 0 else value


def with_children(queryset):
    """``queryset`` with the system and every child relation loaded up front."""
    return queryset.select_related("system").prefetch_related(*CHILDREN)


def catalogue_from_db() -> dict[str, domain.Cluster]:
    """The cluster catalogue as the engine needs it (one query, no caching)."""
    rows = Cluster.objects.values(*CLUSTER_FIELDS)
    return domain.load_catalogue(list(rows))


# The call-terms row keys are the domain's FamilyTerms / ModeTerms fields.
FAMILY_FIELDS = [f.name for f in fields(domain.FamilyTerms) if f.name not in ("modes",)]
MODE_FIELDS = [f.name for f in fields(domain.ModeTerms) if f.name != "family"]


def terms_from_db() -> dict[str, domain.FamilyTerms]:
    """The call terms as the engine needs them (one query, no caching). Families
    missing from the database fall back to the defaults in the engine."""
    families: dict[str, dict] = {}
    rows = CallMode.objects.values(
        *MODE_FIELDS, *(f"family__{name}" for name in FAMILY_FIELDS)
    ).order_by("family__slug", "position")
    for row in rows:
        family = {name: row.pop(f"family__{name}") for name in FAMILY_FIELDS}
        families.setdefault(family["slug"], {**family, "modes": []})["modes"].append(
            row
        )
    return domain.load_terms(families.values())


COUNTRY_FIELDS = [
    "code",
    "status",
    "programme",
    "vat_validators",
    "source",
    "checked",
    "associations",
]


def countries_from_db() -> dict[str, domain.Country] | None:
    """The eligibility of countries as the engine needs it (one query); ``None``
    (the engine's shipped data) when the table is empty."""
    rows = list(CountryEligibility.objects.values(*COUNTRY_FIELDS))
    return domain.load_countries(rows) if rows else None


def proposal_to_domain(proposal: Proposal) -> domain.Proposal:
    """Convert a proposal with its children (prefetch them: see ``with_children``)."""
    codes = rows_of(proposal, "codes")
    code_index = {code.pk: i for i, code in enumerate(codes)}
    p = proposal
    return domain.Proposal(
        **_group(p, ""),
        organisation=domain.Organisation(**_group(p, "organisation")),
        experience=domain.Experience(**_group(p, "experience")),
        selection=domain.Selection(
            system=p.system.slug if p.system_id else "", **_group(p, "selection")
        ),
        codes=tuple(
            domain.CodeEntry(
                **{name: getattr(c, name) for name in CODE_TEXTS},
                references=tuple(c.reference_list),
                **{name: _float(getattr(c, name)) for name in ESTIMATE_NUMBERS},
            )
            for c in codes
        ),
        scalability=domain.Scalability(
            **_group(p, "scalability"),
            measurements=tuple(
                domain.Measurement(
                    code=code_index.get(m.code_id),
                    gpus=m.gpus or 0,
                    throughput=_float(m.throughput) or 0.0,
                    unit=m.unit,
                    mfu_pct=_float(m.mfu_pct),
                    comm_overhead_pct=_float(m.comm_overhead_pct),
                    hardware=m.hardware,
                    source=m.source,
                )
                for m in rows_of(p, "measurements")
            ),
            jobs=tuple(
                domain.Job(
                    title=j.title,
                    gpus=j.gpus or 0,
                    hours=_float(j.hours) or 0.0,
                    count=j.count or 0,
                    source=j.source,
                )
                for j in rows_of(p, "jobs")
            ),
            schedule=tuple(
                domain.UsagePeriod(
                    from_month=u.from_month or 0,
                    to_month=u.to_month or 0,
                    gpu_hours=_float(u.gpu_hours) or 0.0,
                    activity=u.activity,
                )
                for u in rows_of(p, "schedule")
            ),
        ),
        optimisation_narrative=p.optimisation_narrative,
    )


def _group(proposal: Proposal, group: str) -> dict:
    """The proposal's own fields under one group of the JSON format (``selection``;
    ``""`` for the top level), keyed as in the format, numbers as floats. The
    vocabulary says which model field sits at which path."""
    found = {}
    for name, path in FIELD_PATHS.items():
        head, _, key = path.rpartition(".")
        if head == group and key != "system" and path in DOMAIN_PATHS:
            value = getattr(proposal, name)
            found[key] = _float(value) if isinstance(value, Decimal) else value
    return found


GPU_MODEL_FIELDS = [f.name for f in fields(domain.GpuModel)]


def gpu_models_from_db() -> tuple[domain.GpuModel, ...] | None:
    """The GPU variants' peaks as the engine needs them (one query); ``None`` (the
    engine's shipped data) when the table is empty."""
    rows = [
        {**row, "checked": str(row["checked"])}
        for row in GpuModel.objects.values(*GPU_MODEL_FIELDS)
    ]
    return domain.load_gpu_models(rows) if rows else None


def assess_proposal(
    proposal: Proposal,
    catalogue: domain.Catalogue | None = None,
    terms: domain.CallTerms | None = None,
) -> domain.Assessment:
    """Assess a saved proposal against the catalogue, the call terms and the
    country eligibility in the database."""
    if catalogue is None:
        catalogue = catalogue_from_db()
    if terms is None:
        terms = terms_from_db()
    return domain.assess(
        proposal_to_domain(proposal),
        catalogue,
        terms,
        countries_from_db(),
        gpu_models_from_db(),
    )


def _compare(op: str, actual, expected):
    """One lookup in SQL's three-valued logic: ``None`` when a side is NULL."""
    if op == "isnull":
        return (actual is None) == expected
    if actual is None or expected is None:
        return None
    if op == "exact":
        return actual == expected
    if op == "gte":
        return actual >= expected
    if op == "lte":
        return actual <= expected
    raise TypeError(f"lookup {op!r} is not evaluated in memory; add it here")


def _holds(condition, obj):
    """Evaluate a check constraint's ``Q`` on an unsaved instance: True, False or
    None (unknown, which a database CHECK lets pass)."""
    if isinstance(condition, Q):
        results = [_holds(child, obj) for child in condition.children]
        if condition.connector == Q.OR:
            value = True if True in results else None if None in results else False
        else:
            value = False if False in results else None if None in results else True
        return (None if value is None else not value) if condition.negated else value
    lookup, expected = condition
    name, _, op = lookup.partition("__")
    if isinstance(expected, F):
        expected = getattr(obj, expected.name)
    return _compare(op or "exact", getattr(obj, name), expected)


def _first_field(condition: Q) -> str:
    child = condition.children[0]
    return _first_field(child) if isinstance(child, Q) else child[0].split("__")[0]


def _check(obj, where, problems: list, exclude: tuple[str, ...]) -> None:
    """Validate ``obj`` in memory: field validators, lengths and choices, then the
    model's check constraints (no query). ``where(name)`` is a field's JSON path."""
    try:
        obj.full_clean(
            exclude=list(exclude), validate_unique=False, validate_constraints=False
        )
    except ValidationError as exc:
        for name, messages in exc.message_dict.items():
            problems.extend((where(name), message) for message in messages)
        return
    for constraint in obj._meta.constraints:
        if _holds(constraint.condition, obj) is False:
            problems.append(
                (
                    where(_first_field(constraint.condition)),
                    constraint.get_violation_error_message(),
                )
            )


@dataclass
class ImportRows:
    """A document as unsaved model instances, already validated.

    ``values`` are the proposal's own fields; ``measurement_codes`` gives, for each
    measurement, the index of its code entry (or ``None``)."""

    values: dict
    codes: list[CodeEntry]
    measurements: list[ScalingMeasurement]
    measurement_codes: list[int | None]
    jobs: list[JobType]
    schedule: list[UsageMonth]

    def children(self):
        """``(model, rows)`` for each table, in writing order."""
        return (
            (CodeEntry, self.codes),
            (ScalingMeasurement, self.measurements),
            (JobType, self.jobs),
            (UsageMonth, self.schedule),
        )


def _path_value(source: domain.Proposal, path: str):
    value = source
    for key in path.split("."):
        value = getattr(value, key)
    return value


def system_ids() -> dict[str, int]:
    """Catalogue slug -> cluster id of the systems in production, the only ones
    a proposal may target (one query)."""
    return dict(Cluster.objects.filter(in_production=True).values_list("slug", "id"))


def document_rows(
    source: domain.Proposal, *, systems: Mapping[str, int | None]
) -> ImportRows:
    """Convert and validate a parsed document without touching the database.

    ``systems`` maps the known system slugs to their cluster ids. Everything the
    database would refuse (a value beyond a model's limits, a check constraint, an
    unknown system) raises ``domain.FormatError`` with every problem and its JSON
    path; this is the one check that every way in (upload, command line) runs."""
    problems: list[tuple[str, str]] = []
    values = _proposal_values(source, systems, problems)
    _check(
        Proposal(**values),
        lambda name: FIELD_PATHS.get(name, name),
        problems,
        exclude=("owner", "system"),
    )
    rows = _table_rows(source, values)
    _check_rows(rows, problems)
    if problems:
        raise domain.FormatError(problems)
    return rows


def _proposal_values(
    source: domain.Proposal, systems: Mapping[str, int | None], problems: list
) -> dict:
    """The proposal's own field values (its system as a cluster id; an unknown
    system is added to ``problems``)."""
    sel = source.selection
    system_id = None
    if sel.system:
        system_id = systems.get(sel.system)
        if sel.system not in systems:
            problems.append(("selection.system", f"no system “{sel.system}”"))
    values = {"system_id": system_id}
    for name, path in FIELD_PATHS.items():
        if path in DOMAIN_PATHS:
            value = _path_value(source, path)
            values[name] = _decimal(value) if isinstance(value, float) else value
    values["optimisation_narrative"] = source.optimisation_narrative
    return values


def _table_rows(source: domain.Proposal, values: dict) -> ImportRows:
    """The proposal's values and its tables' rows as unsaved model instances."""
    scal = source.scalability
    return ImportRows(
        values=values,
        codes=[
            CodeEntry(
                position=i,
                **{name: getattr(c, name) for name in CODE_TEXTS},
                references="\n".join(c.references),
                **{name: _whole(getattr(c, name)) for name in ESTIMATE_NUMBERS},
            )
            for i, c in enumerate(source.codes)
        ],
        measurements=[
            ScalingMeasurement(
                position=i,
                gpus=_blank_if_zero(m.gpus),
                throughput=_decimal(_blank_if_zero(m.throughput)),
                unit=m.unit,
                mfu_pct=_decimal(m.mfu_pct),
                comm_overhead_pct=_decimal(m.comm_overhead_pct),
                hardware=m.hardware,
                source=m.source,
            )
            for i, m in enumerate(scal.measurements)
        ],
        measurement_codes=[m.code for m in scal.measurements],
        jobs=[
            JobType(
                position=i,
                title=j.title,
                gpus=_blank_if_zero(j.gpus),
                hours=_decimal(_blank_if_zero(j.hours)),
                count=_blank_if_zero(j.count),
                source=j.source,
            )
            for i, j in enumerate(scal.jobs)
        ],
        schedule=[
            UsageMonth(
                position=i,
                from_month=_blank_if_zero(u.from_month),
                to_month=_blank_if_zero(u.to_month),
                gpu_hours=_decimal(u.gpu_hours),
                activity=u.activity,
            )
            for i, u in enumerate(scal.schedule)
        ],
    )


def _check_rows(rows: ImportRows, problems: list) -> None:
    """Each table row checked as the database would, its problems at its JSON
    path."""
    for prefix, items in (
        ("codes", rows.codes),
        ("scalability.measurements", rows.measurements),
        ("scalability.jobs", rows.jobs),
        ("scalability.schedule", rows.schedule),
    ):
        for i, row in enumerate(items):
            _check(
                row,
                lambda name, at=f"{prefix}[{i}]": f"{at}.{name}",
                problems,
                exclude=("proposal", "code"),
            )


def calendar_for(proposal: Proposal, assessment: domain.Assessment):
    """The calendar of a saved ``proposal`` (issue 14) from its ``assessment``; no
    query: the system is loaded with the proposal."""
    system = proposal.system
    cluster = (
        domain.Cluster.from_dict(
            {name: getattr(system, name) for name in CLUSTER_FIELDS}
        )
        if system is not None
        else None
    )
    return calendar.feasibility(
        requested_gpu_hours=assessment.requested_gpu_hours,
        duration_months=proposal.duration_months,
        plan=assessment.plan,
        cluster=cluster,
    )
