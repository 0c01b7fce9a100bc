"""The staff review queue with 10,000 proposals: first page and a filtered page.

Asserts the query count (fixed, whatever the table size) and prints median times
against a trivial view; the target is under 150 ms per page.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import reverse

from tests.bench.conftest import median_ms, report
from tests.factories import StaffUserFactory
from tests.review_data import queue_rows

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.bench.urls")]

ROWS = 10_000
QUERIES = 7  # session, user, staff group, e-mail verified, system choices, count, page
TARGET_MS = 150
PAGES = {
    "first page": {},
    "filtered page": {"status": "submitted", "tier": "fast_lane", "errors": "yes"},
    "search + filter": {"q": "Org 1", "system": "lumi-g", "order": "recent"},
}


@pytest.fixture(autouse=True)
def _plain_template_rendering(monkeypatch):
    """Render templates as a server does (the test runner instruments rendering)."""
    from django.template import Template

    if hasattr(Template, "_original_render"):
        monkeypatch.setattr(Template, "_render", Template._original_render)


@override_settings(DEBUG=False)
def test_queue_with_ten_thousand_proposals(client, catalogue):
    queue_rows(ROWS, owners=100)
    client.force_login(StaffUserFactory())
    url = reverse("proposals:review_queue")
    trivial = median_ms(lambda: client.get("/bench/trivial/"), repeat=50)
    rows = [("trivial view (baseline)", f"{trivial:.1f} ms")]
    for label, params in PAGES.items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, params)
        # Read the count now: every later request resets the connection's query log.
        count = len(queries)
        assert response.status_code == 200
        assert response.content.count(b'data-testid="queue-row"') == 25
        assert count == QUERIES, [q["sql"] for q in queries]

        def get(params=params):
            return client.get(url, params)

        full = median_ms(get, repeat=20)
        htmx = median_ms(
            lambda params=params: client.get(
                url, params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="queue-results"
            ),
            repeat=20,
        )
        verdict = "ok" if full < TARGET_MS else f"ABOVE {TARGET_MS} ms target"
        rows.append(
            (
                f"{label}: full page / htmx results",
                f"{full:.1f} ms / {htmx:.1f} ms ({count} queries, {verdict}, "
                f"{full / trivial:.1f}x trivial)",
            )
        )
    report(f"Review queue, {ROWS:,} proposals", rows)
