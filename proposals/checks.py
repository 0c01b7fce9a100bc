"""System checks of the data the code relies on (``manage.py check --database
default``; ``migrate`` runs them too)."""

from django.core import checks
from django.db import DatabaseError

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

    try:
        terms = terms_from_db()
    except DatabaseError:  # not migrated yet: migrate creates the rows
        return []
    return [
        checks.Error(
            problem,
            hint="Edit the call terms in the admin (Call families), or load "
            "fixtures/call_terms.json with `python manage.py migrate`; a new "
            "family is added in proposals/domain/types.py and its terms together.",
            id="proposals.E001",
        )
        for problem in family_mismatch(terms, CALL_FAMILY_LABELS)
    ]
