"""Deleting an account with many proposals (issue 30): the statements it takes do
not grow with the number of drafts; what it keeps and removes is as for one
(``test_privacy``)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from proposals import services
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def _account_with_drafts(drafts: int, *, run_tasks):
    """A person with ``drafts`` drafts, each with a row of every kind, and one
    proposal sent for review (and under review)."""
    person = UserFactory()
    for _ in range(drafts):
        proposal = ProposalFactory(owner=person)
        code = CodeEntryFactory(proposal=proposal)
        JobTypeFactory(proposal=proposal)
        ScalingMeasurementFactory(proposal=proposal, code=code)
        UsageMonthFactory(proposal=proposal)
    sent = ProposalFactory(owner=person)
    CodeEntryFactory(proposal=sent)
    services.review_submit(proposal=sent, user=person)
    run_tasks()
    return person, sent


def test_deleting_an_account_costs_the_same_queries_for_more_drafts(
    catalogue, staff_user, run_tasks
):
    def delete(person):
        with CaptureQueriesContext(connection) as queries:
            done = services.account_delete(user=person)
        return done, len(queries)

    few, few_sent = _account_with_drafts(5, run_tasks=run_tasks)
    many, many_sent = _account_with_drafts(50, run_tasks=run_tasks)
    (few_done, few_queries), (many_done, many_queries) = delete(few), delete(many)
    assert (few_done.deleted, few_done.kept) == (5, 1)
    assert (many_done.deleted, many_done.kept) == (50, 1)
    assert many_queries == few_queries
    # Everything went as before: the drafts with their rows, the sent ones kept.
    assert list(
        Proposal.objects.order_by("pk").values_list("pk", "owner", "status")
    ) == [(few_sent.pk, None, "withdrawn"), (many_sent.pk, None, "withdrawn")]
    assert Proposal.objects.filter(deleted_at__isnull=True).count() == 0
    for model in (CodeEntry, JobType, ScalingMeasurement, UsageMonth):
        assert set(model.objects.values_list("proposal", flat=True)) <= {
            few_sent.pk,
            many_sent.pk,
        }, model
