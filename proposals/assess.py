"""The one adapter between the database and the proposal engine.

Model instances become ``proposals.domain`` inputs here and nowhere else; the JSON
import writes domain proposals back through :func:`domain_to_models`. Child rows keep
their order, so a finding's path such as ``scalability.jobs[2].gpus`` points at the
third job row of the form. Incomplete rows (a number left blank) are passed on with 0,
which the engine reports as "enter a value above zero" on that row.
"""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction

from . import domain
from .models import (
    Cluster,
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

# The catalogue row keys are the domain Cluster fields (as in fixtures/catalogue.json).
CLUSTER_FIELDS = [f.name for f in fields(domain.Cluster)]
CHILDREN = ("codes", "measurements", "jobs", "schedule")


def _float(value) -> float | None:
    return None if value is None else float(value)


def _decimal(value: float | None) -> Decimal | None:
    return None if value is None else Decimal(repr(value))


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


def proposal_to_domain(proposal: Proposal) -> domain.Proposal:
    """Convert a proposal with its children (prefetch them: see ``with_children``)."""
    codes = list(proposal.codes.all())
    code_index = {code.pk: i for i, code in enumerate(codes)}
    p = proposal
    return domain.Proposal(
        title=p.title,
        call_family=p.call_family,
        organisation=domain.Organisation(
            name=p.organisation_name,
            kind=p.organisation_kind,
            country=p.organisation_country,
            vat_number=p.vat_number,
            ongoing_eurohpc_project=p.ongoing_eurohpc_project,
        ),
        experience=domain.Experience(
            hpc_experience=p.hpc_experience,
            stack_demonstrated_on_target=p.stack_demonstrated_on_target,
        ),
        selection=domain.Selection(
            system=p.system.slug if p.system_id else "",
            libraries=p.libraries,
            total_gpu_hours=_float(p.total_gpu_hours),
            max_gpus_per_job=p.max_gpus_per_job,
            storage_tb=_float(p.storage_tb),
            storage_justification=p.storage_justification,
            transfer_in_tb=_float(p.transfer_in_tb),
            transfer_out_tb=_float(p.transfer_out_tb),
            transfer_justification=p.transfer_justification,
            extra_cpu_hours=_float(p.extra_cpu_hours),
            auxiliary_services=p.auxiliary_services,
            duration_months=p.duration_months,
        ),
        codes=tuple(
            domain.CodeEntry(
                role=c.role,
                name=c.name,
                version=c.version,
                references=tuple(c.reference_list),
                description=c.description,
            )
            for c in codes
        ),
        scalability=domain.Scalability(
            narrative=p.scalability_narrative,
            workload=p.workload,
            runtime_stability_pct=_float(p.runtime_stability_pct),
            measurements=tuple(
                domain.Measurement(
                    code=code_index.get(m.code_id),
                    gpus=m.gpus or 0,
                    throughput=_float(m.throughput) or 0.0,
                    unit=m.unit,
                    mfu_pct=_float(m.mfu_pct),
                    comm_overhead_pct=_float(m.comm_overhead_pct),
                    hardware=m.hardware,
                )
                for m in p.measurements.all()
            ),
            jobs=tuple(
                domain.Job(
                    title=j.title,
                    gpus=j.gpus or 0,
                    hours=_float(j.hours) or 0.0,
                    count=j.count or 0,
                )
                for j in p.jobs.all()
            ),
            schedule=tuple(
                domain.UsagePeriod(
                    from_month=u.from_month or 0,
                    to_month=u.to_month or 0,
                    gpu_hours=_float(u.gpu_hours) or 0.0,
                    activity=u.activity,
                )
                for u in p.schedule.all()
            ),
        ),
        optimisation_narrative=p.optimisation_narrative,
    )


def assess_proposal(
    proposal: Proposal, catalogue: domain.Catalogue | None = None
) -> domain.Assessment:
    """Assess a saved proposal against the catalogue in the database."""
    if catalogue is None:
        catalogue = catalogue_from_db()
    return domain.assess(proposal_to_domain(proposal), catalogue)


def _check(obj, path: str, problems: list, exclude: tuple[str, ...]) -> None:
    """Run model validation; record each message under its JSON path."""
    try:
        obj.full_clean(exclude=list(exclude), validate_unique=False)
    except ValidationError as exc:
        for name, messages in exc.message_dict.items():
            where = f"{path}.{name}" if path else FIELD_PATHS.get(name, name)
            problems.extend((where, message) for message in messages)


# Proposal model fields whose JSON path differs from the field name.
FIELD_PATHS = {
    "organisation_name": "organisation.name",
    "organisation_kind": "organisation.kind",
    "organisation_country": "organisation.country",
    "vat_number": "organisation.vat_number",
    "ongoing_eurohpc_project": "organisation.ongoing_eurohpc_project",
    "hpc_experience": "experience.hpc_experience",
    "stack_demonstrated_on_target": "experience.stack_demonstrated_on_target",
    "scalability_narrative": "scalability.narrative",
    "workload": "scalability.workload",
    "runtime_stability_pct": "scalability.runtime_stability_pct",
    "optimisation_narrative": "optimisation.narrative",
}
# Selection fields stored under the same name on the Proposal model.
SELECTION_FIELDS = [f.name for f in fields(domain.Selection) if f.name != "system"]
FIELD_PATHS.update({name: f"selection.{name}" for name in SELECTION_FIELDS})


def domain_to_models(
    source: domain.Proposal, *, owner, instance: Proposal | None = None
) -> Proposal:
    """Write ``source`` as a proposal with children, in one transaction.

    Creates a new proposal for ``owner`` (or replaces the content and children of
    ``instance``). Values the database cannot hold raise ``domain.FormatError``
    with their JSON paths, and nothing is written.
    """
    problems: list[tuple[str, str]] = []
    system = None
    if source.selection.system:
        system = Cluster.objects.filter(slug=source.selection.system).first()
        if system is None:
            problems.append(
                ("selection.system", f"no system “{source.selection.system}”")
            )
    org, exp, sel, scal = (
        source.organisation,
        source.experience,
        source.selection,
        source.scalability,
    )
    p = instance or Proposal(owner=owner)
    values = {
        "title": source.title,
        "call_family": source.call_family,
        "organisation_name": org.name,
        "organisation_kind": org.kind,
        "organisation_country": org.country,
        "vat_number": org.vat_number,
        "ongoing_eurohpc_project": org.ongoing_eurohpc_project,
        "hpc_experience": exp.hpc_experience,
        "stack_demonstrated_on_target": exp.stack_demonstrated_on_target,
        "system": system,
        "scalability_narrative": scal.narrative,
        "workload": scal.workload,
        "runtime_stability_pct": _decimal(scal.runtime_stability_pct),
        "optimisation_narrative": source.optimisation_narrative,
    }
    for name in SELECTION_FIELDS:
        value = getattr(sel, name)
        values[name] = _decimal(value) if isinstance(value, float) else value
    for name, value in values.items():
        setattr(p, name, value)
    _check(p, "", problems, exclude=("owner", "system"))
    for i, code in enumerate(source.codes):
        for j, reference in enumerate(code.references):
            if not reference.strip() or "\n" in reference or "\r" in reference:
                problems.append(
                    (
                        f"codes[{i}].references[{j}]",
                        "a reference is one non-empty line (a link or a citation)",
                    )
                )
    codes = [
        CodeEntry(
            position=i,
            role=c.role,
            name=c.name,
            version=c.version,
            references="\n".join(c.references),
            description=c.description,
        )
        for i, c in enumerate(source.codes)
    ]
    measurements = [
        ScalingMeasurement(
            position=i,
            gpus=_blank_if_zero(m.gpus),
            throughput=_decimal(_blank_if_zero(m.throughput)),
            unit=m.unit,
            mfu_pct=_decimal(m.mfu_pct),
            comm_overhead_pct=_decimal(m.comm_overhead_pct),
            hardware=m.hardware,
        )
        for i, m in enumerate(scal.measurements)
    ]
    jobs = [
        JobType(
            position=i,
            title=j.title,
            gpus=_blank_if_zero(j.gpus),
            hours=_decimal(_blank_if_zero(j.hours)),
            count=_blank_if_zero(j.count),
        )
        for i, j in enumerate(scal.jobs)
    ]
    schedule = [
        UsageMonth(
            position=i,
            from_month=_blank_if_zero(u.from_month),
            to_month=_blank_if_zero(u.to_month),
            gpu_hours=_decimal(u.gpu_hours),
            activity=u.activity,
        )
        for i, u in enumerate(scal.schedule)
    ]
    for name, rows in (
        ("codes", codes),
        ("scalability.measurements", measurements),
        ("scalability.jobs", jobs),
        ("scalability.schedule", schedule),
    ):
        for i, row in enumerate(rows):
            _check(row, f"{name}[{i}]", problems, exclude=("proposal", "code"))
    if problems:
        raise domain.FormatError(problems)
    with transaction.atomic():
        p.save()
        if instance is not None:
            for relation in CHILDREN:
                getattr(p, relation).all().delete()
        for code in codes:
            code.proposal = p
            code.save()
        for row, m in zip(measurements, scal.measurements, strict=True):
            row.proposal = p
            row.code = codes[m.code] if m.code is not None else None
        for rows in (jobs, schedule):
            for row in rows:
                row.proposal = p
        ScalingMeasurement.objects.bulk_create(measurements)
        JobType.objects.bulk_create(jobs)
        UsageMonth.objects.bulk_create(schedule)
    return p
