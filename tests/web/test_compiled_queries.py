"""Every query compiled once (``selectors.compiled.CompiledQuery``) reads what
Django's ORM reads with the same values: the same rows in the same order, each
loaded column as the ORM loads it (its type included), the same deferred columns,
the same annotations, and the same ``select_related`` objects, read the same way.

The values come from a review in progress (the demo's Large Scale proposal with a
conversation, a second team member, an assessment, a scaling kit, a canned reply,
declared conflicts and a confirmed address), chosen by the names of each query's
parameters (a person: the staff member, the owner or the team member, the first for
whom it finds a row). Each query must find a row, so no comparison is between two
empty answers, and a query added later with a parameter named otherwise fails here
until the scene can give it a value."""

import inspect
import itertools
from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from proposals import services
from proposals.models import (
    AccountProfile,
    CannedReply,
    Membership,
    Preferences,
    ScalingKit,
    TechnicalAssessment,
)
from proposals.selectors.compiled import CompiledQuery
from tests.factories import UserFactory
from tests.review_data import large_scale_under_review

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(catalogue):
    """A review in progress, and the value of each parameter name."""
    proposal, staff = large_scale_under_review()
    now = timezone.now()
    member = UserFactory()
    Membership.objects.create(
        proposal=proposal, user=member, role="editor", since=now - timedelta(days=2)
    )
    latest = proposal.review_state.latest_revision
    TechnicalAssessment.objects.create(
        proposal=proposal,
        revision=latest,
        outcome=TechnicalAssessment.Outcome.choices[0][0],
        text="Scaling shown to 64 GPUs.",
        items=[{"code": "SCL-001", "decision": "accept"}],
        by=staff,
    )
    ScalingKit.objects.create(
        proposal=proposal,
        created_by=proposal.owner,
        system="lumi-g",
        counts=[8, 16, 32],
        launcher="srun",
        steps=100,
    )
    CannedReply.objects.create(title="Thanks", language="en", body="Thank you.")
    services.staff_conflict_declare(user=staff, organisation="Another Institute SL")
    AccountProfile.objects.update_or_create(
        user=staff, defaults={"email": staff.email.lower(), "verified_at": now}
    )
    Preferences.objects.update_or_create(
        user=staff, defaults={"number_format": "de_DE", "time_zone": "Europe/Madrid"}
    )
    values = {  # the candidates for each parameter name
        "user_id": [staff.pk, proposal.owner_id, member.pk],
        "pk": [proposal.pk],
        "proposal_id": [proposal.pk],
        "language": ["en"],
        "email": [staff.email.lower()],
    }
    return proposal, staff, values


def _loaded(instance: Model, seen: frozenset = frozenset()) -> dict:
    """The instance's loaded columns (value and type), what it defers, and the
    related objects read with it, the same way, by name (an object already met on
    the way, such as the proposal its review state points back to, by its key)."""
    key = (type(instance), instance.pk)
    if key in seen:
        return {"seen": key}
    deferred = instance.get_deferred_fields()
    return {
        "model": type(instance),
        "pk": instance.pk,
        "deferred": deferred,
        "columns": {
            field.attname: (value, type(value))
            for field in instance._meta.concrete_fields
            if field.attname not in deferred
            for value in [getattr(instance, field.attname)]
        },
        "related": {
            name: _loaded(related, seen | {key}) if related is not None else None
            for name, related in instance._state.fields_cache.items()
        },
    }


def _arguments(query: CompiledQuery, values: dict):
    """Each combination of the scene's candidates for the query's parameters."""
    names = [
        parameter.name
        for parameter in inspect.signature(query.build).parameters.values()
        if parameter.default is parameter.empty
    ]
    missing = [name for name in names if name not in values]
    assert not missing, f"{query.build}: no value for {missing} in the scene"
    return itertools.product(*(values[name] for name in names))


def _orm_rows(query: CompiledQuery, values: dict):
    """The first arguments for which the ORM finds a row, with its rows and the
    query's annotations."""
    for arguments in _arguments(query, values):
        queryset = query.build(*arguments)
        rows = list(queryset if query.many else queryset[:1])
        if rows:
            return arguments, rows, list(queryset.query.annotations)
    raise AssertionError(f"{query.build}: the scene gives it no row to compare")


def test_every_compiled_query_reads_what_the_orm_reads(scene):
    _proposal, _staff, values = scene
    assert CompiledQuery.every, "no compiled query was made"
    with transaction.atomic():  # a query that locks its row runs only in one
        for query in CompiledQuery.every:
            arguments, orm, annotations = _orm_rows(query, values)
            if query.many:
                compiled = query.all(*arguments)
            else:
                first = query.first(*arguments)
                compiled = [first] if first is not None else []
            assert [_loaded(row) for row in compiled] == [
                _loaded(row) for row in orm
            ], query.build
            for mine, theirs in zip(compiled, orm, strict=True):
                assert {name: getattr(mine, name) for name in annotations} == {
                    name: getattr(theirs, name) for name in annotations
                }, query.build
                assert mine._state.adding is False and mine._state.db == "default"


def test_a_compiled_query_takes_each_calls_values(scene):
    """Compiled with placeholders, run with the caller's values: another
    proposal's or person's rows are never the first caller's."""
    proposal, staff, values = scene
    from proposals import selectors

    other = UserFactory()
    assert selectors.review_get_for_staff(user=staff, pk=proposal.pk).pk == proposal.pk
    assert selectors.review_get_for_staff(user=other, pk=proposal.pk) is None
    assert selectors.review_revisions(proposal=proposal)
    assert {r.proposal_id for r in selectors.review_revisions(proposal=proposal)} == {
        proposal.pk
    }
    assert selectors.declared_organisations(user=staff)
    assert selectors.declared_organisations(user=other) == []
    assert [reply.title for reply in selectors.canned_replies_for(language="en")] == [
        "Thanks"
    ]
    assert list(selectors.canned_replies_for(language="de")) == []
