"""Fixtures of the web tests: proposals sent for review and extra staff members."""

from pathlib import Path

import pytest
from django.core import mail

from proposals import domain, services
from tests.factories import CodeEntryFactory, ProposalFactory, StaffUserFactory

EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"


@pytest.fixture
def applicant_proposal(user):
    """A Playground draft owned by ``user`` with one complete code entry."""
    proposal = ProposalFactory(owner=user, title="Vision model fine-tuning")
    CodeEntryFactory(proposal=proposal, position=0)
    return proposal


@pytest.fixture
def submitted(
    applicant_proposal, user, staff_user, django_capture_on_commit_callbacks, run_tasks
):
    """The proposal after its first "send for review" (revision 1), its mail sent."""
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=applicant_proposal, user=user)
    run_tasks()
    mail.outbox.clear()
    applicant_proposal.refresh_from_db()
    return applicant_proposal


@pytest.fixture
def second_staff(catalogue):
    return StaffUserFactory()


@pytest.fixture
def sent(user, staff_user, django_capture_on_commit_callbacks):
    """The LUMI Fast Lane example, imported and sent for review (revision 1)."""
    text = (EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8")
    proposal = services.proposal_import(owner=user, document=domain.loads(text))
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=proposal, user=user)
    proposal.refresh_from_db()
    return proposal
