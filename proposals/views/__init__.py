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
