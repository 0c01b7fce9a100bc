"""Call families in one place (issue 21): the code defines which families exist
(``domain.types.CALL_FAMILY_LABELS``: the proposal's choices, the JSON format) and
the admin rows hold their terms. A family without terms fails loudly (a system
check error, and an exception that says what to do) instead of being assessed with
the industrial terms."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.urls import reverse

from proposals import checks
from proposals.assess import assess_proposal
from proposals.checks import call_families_match_their_terms
from proposals.domain.terms import (
    UnknownCallFamily,
    default_terms,
    family_mismatch,
    family_terms,
)
from proposals.domain.types import CALL_FAMILY_LABELS
from proposals.models import CallFamily, CallMode
from tests.factories import ProposalFactory

pytestmark = pytest.mark.usefixtures("catalogue")

SCIENCE = "ai_for_science"


def _errors():
    return call_families_match_their_terms(databases=["default"])


def test_the_shipped_terms_and_the_code_define_the_same_families():
    assert family_mismatch(default_terms(), CALL_FAMILY_LABELS) == []
    assert _errors() == []


def test_a_family_without_terms_is_an_error_not_the_industrial_terms():
    terms = {k: v for k, v in default_terms().items() if k != SCIENCE}
    with pytest.raises(UnknownCallFamily, match="admin"):
        family_terms(terms, SCIENCE)
    assert family_terms(terms, "industrial_innovation").slug == "industrial_innovation"


def test_the_check_names_each_mismatch():
    CallMode.objects.filter(family__slug=SCIENCE).delete()
    CallFamily.objects.filter(slug="industrial_innovation").update(label="AI4I")
    CallMode.objects.create(
        family=CallFamily.objects.create(slug="ai_for_art", label="AI for Art"),
        slug="single",
    )
    messages = sorted(error.msg for error in _errors())
    assert messages == [
        "call family 'ai_for_science' (AI for Science and Collaborative EU Projects) "
        "has no call terms",
        "call family 'industrial_innovation' is labelled 'AI4I' in the call terms "
        "and 'AI for Industrial Innovation' in the code",
        "call terms for 'ai_for_art', a call family the code does not define",
    ]
    assert {error.id for error in _errors()} == {"proposals.E001"}
    with pytest.raises(SystemCheckError, match="proposals.E001"):
        call_command("check", "--database", "default")


def test_the_check_runs_only_with_a_database():
    CallMode.objects.filter(family__slug=SCIENCE).delete()
    assert call_families_match_their_terms(databases=None) == []
    assert _errors() != []


def test_the_check_waits_for_pending_migrations(monkeypatch):
    """``migrate`` runs the checks before migrating: a data migration that brings
    a new family's terms must be able to run."""
    CallMode.objects.filter(family__slug=SCIENCE).delete()
    monkeypatch.setattr(checks, "_migrations_pending", lambda: True)
    assert _errors() == []


def test_a_proposal_of_a_family_without_terms_is_not_assessed_with_other_terms(
    user,
):
    """Main read the shipped defaults (or, for a family not shipped, the
    industrial terms) whatever the admin rows said."""
    proposal = ProposalFactory(owner=user, call_family=SCIENCE)
    assert assess_proposal(proposal).mode == SCIENCE  # its one mode
    CallMode.objects.filter(family__slug=SCIENCE).delete()
    with pytest.raises(UnknownCallFamily, match="ai_for_science"):
        assess_proposal(proposal)


def test_the_admin_edits_terms_but_neither_adds_nor_removes_families(client):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    family = CallFamily.objects.get(slug=SCIENCE)
    assert client.get(reverse("admin:proposals_callfamily_add")).status_code == 403
    delete = reverse("admin:proposals_callfamily_delete", args=[family.pk])
    assert client.get(delete).status_code == 403
    page = client.get(reverse("admin:proposals_callfamily_change", args=[family.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="slug"' not in html and 'name="label"' not in html
    assert 'name="vat_required"' in html
