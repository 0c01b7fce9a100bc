"""The staff review page (issue 34): the page a staff member opens to review a
proposal, on the demo's Large Scale proposal (sent for review, handled, marked ready,
then answered in comments on several sections and sent again), against a trivial
authenticated view in the same run. Target: at most 8x, the median of seven
alternated rounds printed with its spread (a miss only when the whole spread is
beyond it). The SQL statements per view are counted and printed; the test suite
bounds them (tests/web/test_review_page_queries.py)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import reverse

from tests.bench.conftest import Spread, meets, meets_spread, report, rounds_ms
from tests.review_data import large_scale_under_review

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.bench.urls")]

TARGET = 8  # x the trivial authenticated view
TRIVIAL = "/bench/trivial-signed-in/"  # the session and the user read
STATEMENTS = 24  # the issue measured 24 before; printed against it, not a target


def _statements(queries) -> int:
    return sum(
        not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
        for q in queries.captured_queries
    )


@override_settings(DEBUG=False)
def test_staff_review_page_against_trivial_view(client, catalogue):
    proposal, staff = large_scale_under_review()
    client.force_login(staff)
    url = reverse("proposals:staff_review", args=[proposal.pk])

    def review():
        response = client.get(url)
        assert response.status_code == 200
        return response

    assert client.get(TRIVIAL).status_code == 200
    page = review().content.decode()
    assert proposal.title in page and "how was it measured?" in page
    # A second visit, as the desk opens it again: nothing new since the first.
    with CaptureQueriesContext(connection) as queries:
        review()
    statements = _statements(queries)  # now: each new request empties the log
    writes = sum(
        q["sql"].startswith(("INSERT", "UPDATE", "DELETE"))
        for q in queries.captured_queries
    )
    times = rounds_ms(
        {"trivial": lambda: client.get(TRIVIAL), "review": review},
        repeat=15,
    )
    ratio = Spread.ratio(times, "review", "trivial")
    report(
        "Staff review page (Large Scale demo, 2 revisions, 6 comments)",
        [
            (
                "trivial authenticated view, median",
                Spread.of(times, "trivial").shown(unit=" ms"),
            ),
            ("staff review page, median", Spread.of(times, "review").shown(unit=" ms")),
            (
                f"ratio to the trivial view (target <= {TARGET}x)",
                f"{ratio.shown('.1f')} "
                + meets_spread("staff review / trivial view", ratio, TARGET),
            ),
            (
                f"SQL statements per view (were {STATEMENTS})",
                f"{statements} ({writes} writes) "
                + meets("staff review statements", statements, STATEMENTS),
            ),
            ("page size", f"{len(page) / 1024:.0f} KB"),
        ],
    )
