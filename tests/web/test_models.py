"""Impossible values are never stored: validators and database constraints agree."""

from decimal import Decimal
from itertools import product

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)
from tests.factories import (
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)

pytestmark = pytest.mark.django_db


def _violates_constraint(model, **values):
    """True when the database itself refuses the row (bypassing model validation)."""
    try:
        with transaction.atomic():
            model.objects.create(**values)
    except IntegrityError:
        return True
    return False


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("total_gpu_hours", Decimal("-1")),
        ("max_gpus_per_job", 0),
        ("storage_tb", Decimal("-0.5")),
        ("transfer_in_tb", Decimal("-2")),
        ("transfer_out_tb", Decimal("-2")),
        ("extra_cpu_hours", Decimal("-10")),
        ("duration_months", 0),
        ("duration_months", 61),
        ("runtime_stability_pct", Decimal("101")),
    ],
)
def test_proposal_constraints_reject_impossible_values(catalogue, user, field, value):
    assert _violates_constraint(Proposal, owner=user, title="x", **{field: value})
    proposal = ProposalFactory.build(owner=user, **{field: value})
    with pytest.raises(ValidationError) as excinfo:
        proposal.full_clean()
    assert field in excinfo.value.message_dict


def test_blank_draft_is_valid(catalogue, user):
    proposal = Proposal(owner=user, title="Only a title")
    proposal.full_clean()
    proposal.save()
    assert proposal.revision == 1


@pytest.mark.parametrize(
    ("model", "values"),
    [
        (JobType, {"gpus": 0, "hours": Decimal("1"), "count": 1}),
        (JobType, {"gpus": 4, "hours": Decimal("0"), "count": 1}),
        (JobType, {"gpus": 4, "hours": Decimal("1"), "count": 0}),
        (ScalingMeasurement, {"gpus": 0, "throughput": Decimal("1")}),
        (ScalingMeasurement, {"gpus": 4, "throughput": Decimal("-1")}),
        (
            ScalingMeasurement,
            {"gpus": 4, "throughput": Decimal("1"), "mfu_pct": Decimal("120")},
        ),
        (UsageMonth, {"from_month": 3, "to_month": 2, "gpu_hours": Decimal("1")}),
        (UsageMonth, {"from_month": 0, "to_month": 2, "gpu_hours": Decimal("1")}),
        (UsageMonth, {"from_month": 1, "to_month": 2, "gpu_hours": Decimal("-1")}),
    ],
)
def test_child_constraints_reject_impossible_values(proposal, model, values):
    assert _violates_constraint(model, proposal=proposal, **values)


@pytest.mark.parametrize(
    ("factory", "values", "field"),
    [
        (JobTypeFactory, {"gpus": 0}, "gpus"),
        (JobTypeFactory, {"count": 0}, "count"),
        (ScalingMeasurementFactory, {"throughput": Decimal("-3")}, "throughput"),
        (UsageMonthFactory, {"from_month": 4, "to_month": 2}, "to_month"),
    ],
)
def test_child_validators_name_the_field(proposal, factory, values, field):
    row = factory.build(proposal=proposal, **values)
    with pytest.raises(ValidationError) as excinfo:
        row.full_clean()
    assert field in excinfo.value.message_dict


def test_sane_rows_are_stored(proposal):
    JobTypeFactory(proposal=proposal, gpus=32, hours=Decimal("24"), count=16)
    ScalingMeasurementFactory(proposal=proposal, gpus=16, throughput=Decimal("4225"))
    UsageMonthFactory(proposal=proposal, from_month=3, to_month=4)
    assert proposal.jobs.get().gpus == 32
    assert proposal.measurements.get().throughput == Decimal("4225")
    assert str(proposal.schedule.get()) == "Months 3-4: 1000.00 GPU-hours"


def test_title_max_length(catalogue, user):
    proposal = Proposal(owner=user, title="x" * 201)
    with pytest.raises(ValidationError) as excinfo:
        proposal.full_clean()
    assert "title" in excinfo.value.message_dict


def _leaves(condition):
    """The ``(lookup, value)`` pairs of a constraint's condition, however nested."""
    for child in condition.children:
        if isinstance(child, tuple):
            yield child
        else:
            yield from _leaves(child)


def _candidates(model, name, leaves):
    """Values just inside and just outside every bound the condition names."""
    field = model._meta.get_field(name)
    places = getattr(field, "decimal_places", 0)
    step = Decimal(1).scaleb(-places) if places else 1
    values = {None, 0, 1, 2, 3}
    for lookup, value in leaves:
        if lookup.split("__")[0] == name and isinstance(value, int | Decimal):
            values |= {value - step, value, value + step}
    return sorted(values, key=lambda v: (v is not None, v or 0))


@pytest.mark.parametrize(
    "model", [Proposal, CodeEntry, ScalingMeasurement, JobType, UsageMonth]
)
def test_validation_refuses_every_value_a_check_constraint_refuses(model):
    """Model validation does not ask the database about the check constraints
    (``RestatedConstraints``): that is only right while the fields' validators and
    ``clean()`` refuse every value the constraints refuse. Fields the code sets
    (``editable=False``) are never typed and are left out."""
    tried = 0
    for constraint in model._meta.constraints:
        leaves = list(_leaves(constraint.condition))
        names = sorted({lookup.split("__")[0] for lookup, _ in leaves})
        fields = [model._meta.get_field(name) for name in names]
        if not all(field.editable for field in fields):
            continue
        for values in product(*(_candidates(model, n, leaves) for n in names)):
            row = model(**dict(zip(names, values, strict=True)))
            try:
                constraint.validate(model, row)
            except ValidationError:
                pass
            else:
                continue
            tried += 1
            others = [f.name for f in model._meta.fields if f.name not in names]
            with pytest.raises(ValidationError):
                row.full_clean(exclude=others, validate_unique=False)
    assert tried > 0 or not model._meta.constraints


def test_a_given_related_object_is_not_looked_up_but_a_bare_id_is(catalogue):
    """``GivenRelations``: validation asks the database whether a related object
    exists only when its id alone was given."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from proposals.models import Cluster

    cluster = Cluster.objects.first()
    others = [f.name for f in Proposal._meta.fields if f.name != "system"]
    given = Proposal(system=cluster)
    with CaptureQueriesContext(connection) as queries:
        given.full_clean(exclude=others, validate_unique=False)
    assert queries.captured_queries == []
    missing = Proposal(system_id=cluster.pk + 10_000)
    with pytest.raises(ValidationError) as refused:
        missing.full_clean(exclude=others, validate_unique=False)
    assert "system" in refused.value.message_dict
