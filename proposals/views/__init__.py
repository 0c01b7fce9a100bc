"""Thin views. Selectors answer ``None`` for what a user may not see; views turn
that into a 404 (never a 403, so nobody learns what exists)."""

from django.http import Http404

from proposals import selectors


def owned_proposal(request, pk, *, children: bool = True):
    """The request user's proposal ``pk`` (children prefetched), or a 404."""
    proposal = selectors.proposal_get_for_owner(
        user=request.user, pk=pk, children=children
    )
    if proposal is None:
        raise Http404("No such proposal.")
    return proposal


def staff_proposal(request, pk):
    """Proposal ``pk`` for the staff review pages (the request user is support staff
    and it was sent for review at least once), or a 404."""
    proposal = selectors.review_get_for_staff(user=request.user, pk=pk)
    if proposal is None:
        raise Http404("No such page.")
    return proposal


def proposal_revision(proposal, number: int):
    """The proposal's revision ``number`` (with its snapshot), or a 404."""
    revision = selectors.review_revision(proposal=proposal, number=number)
    if revision is None:
        raise Http404("No such revision.")
    return revision
