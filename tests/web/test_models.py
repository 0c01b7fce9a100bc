"""Impossible values are never stored: validators and database constraints agree."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from proposals.models import JobType, Proposal, ScalingMeasurement, UsageMonth
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
