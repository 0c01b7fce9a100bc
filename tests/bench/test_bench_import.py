"""Import of the largest file the format allows (every table at its row limit, long
texts) against a minimal file: wall time and queries, through the upload view."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from proposals.domain import limits
from proposals.models import Proposal
from tests.bench.conftest import median_ms, report
from tests.import_data import GREEK, text, with_rows
from tests.web.test_import_json import upload

pytestmark = pytest.mark.django_db
WORKER_TIMEOUT_MS = 30_000  # gunicorn's default


def test_bench_import_largest_file(user):
    client = Client()
    client.force_login(user)
    url = reverse("proposals:import_json")
    minimal = text(with_rows({}))
    description = (GREEK * 400)[: limits.NARRATIVE_CHARS // 4]
    largest = text(with_rows(limits.MAX_ROWS, description=description))
    assert len(largest) < limits.MAX_DOCUMENT_BYTES

    def post(data):
        return lambda: client.post(url, {"file": upload(data)})

    def queries(data) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert post(data)().status_code == 302
        return len(captured)

    small_q, large_q = queries(minimal), queries(largest)
    small_ms = median_ms(post(minimal), repeat=15)
    large_ms = median_ms(post(largest), repeat=7, warmup=1)
    assert Proposal.objects.filter(owner=user).count() > 20
    report(
        "Import through the upload view",
        [
            (
                "minimal file",
                f"{len(minimal):9,} bytes {small_ms:8.1f} ms {small_q} queries",
            ),
            (
                "largest allowed file",
                f"{len(largest):9,} bytes {large_ms:8.1f} ms {large_q} queries",
            ),
            (
                "rows in the largest",
                ", ".join(f"{k} {v}" for k, v in limits.MAX_ROWS.items()),
            ),
            ("time ratio largest / minimal", f"{large_ms / small_ms:8.1f}x"),
            ("worker timeout", f"{WORKER_TIMEOUT_MS} ms"),
        ],
    )
    assert large_ms < WORKER_TIMEOUT_MS / 10, "the largest import is far too slow"
