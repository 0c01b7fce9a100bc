"""The staff queue's search is served by the trigram indexes of migration 0018 on
PostgreSQL (issue 16): the index expressions match what the search compares, so the
planner can use them. Elsewhere the migration adds nothing and the search still works.
"""

import pytest
from django.db import connection

from proposals.models import Proposal
from proposals.selectors import review_queue
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db

INDEXES = ("proposal_title_trgm", "proposal_org_trgm")


def _index_names() -> set[str]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(
            cursor, Proposal._meta.db_table
        )
    return set(constraints)


def test_search_finds_titles_and_organisations_case_insensitively(catalogue):
    rows = queue_rows(30, owners=3)
    Proposal.objects.filter(pk=rows[4].pk).update(title="Protein Folding at scale")
    Proposal.objects.filter(pk=rows[7].pk).update(organisation_name="Kestrel Labs")
    found = {s.proposal_id for s in review_queue(search="protein fold")}
    assert found == {rows[4].pk}
    assert {s.proposal_id for s in review_queue(search="KESTREL")} == {rows[7].pk}
    assert review_queue(search="  ").count() == 30


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only")
def test_the_search_can_use_the_trigram_indexes(catalogue):
    assert set(INDEXES) <= _index_names()
    queue_rows(200, owners=3)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE proposals_proposal")
        # A table this small is cheaper to scan (or to walk by its key); forbid
        # both to see whether the indexes match the search's expression at all.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
    plan = review_queue(search="proposal 12").explain()
    for name in INDEXES:
        assert name in plan, plan


@pytest.mark.skipif(connection.vendor == "postgresql", reason="not PostgreSQL")
def test_other_databases_get_no_trigram_index(catalogue):
    assert not set(INDEXES) & _index_names()
