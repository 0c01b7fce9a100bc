"""The staff review page's SQL statements (issue 34): bounded, the same for a small
and a large proposal (rows, comments, revisions), and no write when the desk opens
a proposal again with nothing new on it. The time it takes is measured against a
trivial view in ``make bench`` (tests/bench/test_bench_review.py)."""

from datetime import date, timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from proposals import reference_data, services
from proposals.models import (
    AccessRoute,
    Cluster,
    Cutoff,
    Proposal,
    ReviewState,
    ReviewVisit,
)
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
)

pytestmark = pytest.mark.django_db
load_routes = __import__(
    "proposals.migrations.0040_routes", fromlist=["load_routes"]
).load_routes

# The session, the user, the staff check, the proposal (with the reader's role on
# its team, its last transfer and its route), its four tables (in one query), the
# declared conflicts, the reader's preferences, comments, assessments, revisions,
# status changes, the team, the staff conflicts and the staff to hand over to,
# canned replies, the scaling kits, the e-mail check: what the page shows, never
# one per row.
MOST = 17


def _statements(queries) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]


def _proposal(owner, staff, *, rows: int, rounds: int) -> Proposal:
    """A proposal sent ``rounds`` times, with ``rows`` job rows and measurements
    and a staff question and an answer on two sections per round."""
    proposal = ProposalFactory(owner=owner, max_gpus_per_job=64)
    codes = [CodeEntryFactory(proposal=proposal, position=i) for i in range(2)]
    for i in range(rows):
        JobTypeFactory(proposal=proposal, gpus=4 + i % 8, position=i)
        ScalingMeasurementFactory(
            proposal=proposal,
            code=codes[i % 2],
            gpus=4 * 2 ** (i % 4),
            throughput=1000 * 2 ** (i % 4),
            position=i,
        )
    # The rounds send the same figures again (what is measured is the page, not
    # the sending): each is confirmed as unchanged on purpose.
    for number in range(rounds):
        services.review_submit(proposal=proposal, user=owner, unchanged_ok=True)
        if number == 0:
            services.review_assign(proposal=proposal, user=staff, to=staff)
        for section in ("general", "scalability"):
            question = services.comment_add(
                proposal=proposal, author=staff, section=section, body="Why?"
            )
            services.comment_add(
                proposal=proposal,
                author=owner,
                section=section,
                body="Because.",
                parent=question,
            )
        services.review_set_status(
            proposal=proposal,
            user=staff,
            to_status=Proposal.Status.CHANGES_REQUESTED,
            note="Two questions.",
        )
    services.review_submit(
        proposal=proposal, user=owner, note="Answered.", unchanged_ok=True
    )
    return proposal


def _second_visit(client, proposal) -> list[str]:
    url = reverse("proposals:staff_review", args=[proposal.pk])
    assert client.get(url).status_code == 200  # the first visit is recorded
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return _statements(queries)


def test_statements_are_bounded_and_flat_with_the_proposal_size(
    client, user, staff_user
):
    small = _proposal(user, staff_user, rows=1, rounds=1)
    large = _proposal(user, staff_user, rows=30, rounds=4)
    client.force_login(staff_user)
    few = _second_visit(client, small)
    many = _second_visit(client, large)
    assert len(many) == len(few), "\n".join(many)
    assert len(many) <= MOST, "\n".join(many)


def test_a_visit_with_nothing_new_writes_nothing(client, user, staff_user):
    proposal = _proposal(user, staff_user, rows=2, rounds=1)
    client.force_login(staff_user)
    statements = _second_visit(client, proposal)
    writes = [s for s in statements if s.startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == []
    opened = ReviewVisit.objects.get(proposal=proposal, user=staff_user).opened_at
    # New activity: the next visit is recorded (the queue's "new activity" mark
    # goes), and the one after it again writes nothing.
    services.comment_add(
        proposal=proposal, author=user, section="general", body="One more thing."
    )
    url = reverse("proposals:staff_review", args=[proposal.pk])
    assert client.get(url).status_code == 200
    visit = ReviewVisit.objects.get(proposal=proposal, user=staff_user)
    assert visit.opened_at > opened
    state = ReviewState.objects.get(proposal=proposal)
    assert visit.opened_at >= state.last_activity_at


def test_the_kept_routes_follow_every_edit_of_a_route_or_cut_off(catalogue):
    """The staff page and the wizard read the routes as this process keeps them
    (``reference_data.cached_routes``): a cut-off added, its systems changed and
    deleted are each seen at the next read, as the admin's edits were before."""
    load_routes(apps, None)
    route = AccessRoute.objects.get(slug="ai-for-science")
    # A day the shipped list has no cut-off on, whatever today is.
    shipped = set(route.cutoffs.values_list("date", flat=True))
    when = (timezone.now() + timedelta(days=40)).date()
    while when in shipped:
        when += timedelta(days=1)

    def kept():
        return [
            (c.date, tuple(c.systems))
            for c in reference_data.cached_routes().cutoffs
            if c.route == route.slug and c.date == when
        ]

    assert kept() == []
    cutoff = Cutoff.objects.create(
        route=route, date=when, source="test", checked=date(2026, 12, 5)
    )
    assert kept() == [(when, ())]
    system = Cluster.objects.order_by("slug").first()
    cutoff.systems.add(system)
    assert kept() == [(when, (system.slug,))]
    cutoff.delete()
    assert kept() == []
