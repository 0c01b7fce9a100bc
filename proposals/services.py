"""Every write. Keyword-only arguments, one transaction each."""

from django.db import transaction

from proposals.models import CodeEntry, Proposal


@transaction.atomic
def proposal_create(*, owner, title: str, call_family: str = "", system=None) -> Proposal:
    """Create a draft with one code entry ready for the main training or inference loop."""
    proposal = Proposal.objects.create(
        owner=owner,
        title=title,
        call_family=call_family or Proposal.CallFamily.INDUSTRIAL_INNOVATION,
        system=system,
    )
    CodeEntry.objects.create(proposal=proposal, role=CodeEntry.Role.MAIN, position=0)
    return proposal
