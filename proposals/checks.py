"""System checks of the data the code relies on (``manage.py check --database
default``; ``migrate`` runs them too, and they wait while migrations are pending)."""

from django.core import checks
from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor

from proposals.domain.terms import family_mismatch
from proposals.domain.types import CALL_FAMILY_LABELS


@checks.register(checks.Tags.database)
def call_families_match_their_terms(app_configs=None, databases=None, **kwargs):
    """The call families are defined in code (``types.CALL_FAMILY_LABELS``: the
    proposal's choices, the JSON format); their terms are admin rows. Each family
    needs its row with modes, and no row may name another family: an assessment of
    a family without terms fails (``terms.UnknownCallFamily``) rather than reading
    another family's terms."""
    if not databases or "default" not in databases:
        return []
    from proposals.assess import terms_from_db

    if _migrations_pending():
        return []  # ``migrate`` checks first: it must be able to load the terms
    try:
        terms = terms_from_db()
    except DatabaseError:  # no tables yet
        return []
    return [
        checks.Error(
            problem,
            hint="Give each family its terms and modes in the admin (Call "
            "families; the shipped ones are in fixtures/call_terms.json). A family "
            "is added or removed in proposals/domain/types.py, with a data "
            "migration for its terms.",
            id="proposals.E001",
        )
        for problem in family_mismatch(terms, CALL_FAMILY_LABELS)
    ]


def _migrations_pending() -> bool:
    """Whether the default database lacks migrations (a data migration may add the
    terms of a family the code has just gained)."""
    executor = MigrationExecutor(connections["default"])
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))
