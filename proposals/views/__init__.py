"""Thin views. Selectors answer ``None`` for what a user may not see; views turn
that into a 404 (never a 403, so nobody learns what exists)."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from proposals import selectors
from proposals.domain.team import Capability


def refuse_role(capability: Capability):
    """A 403 that says what the person's role on the team does not allow."""
    if capability in (Capability.DELETE, Capability.ARCHIVE, Capability.MANAGE):
        raise PermissionDenied(
            _("Only the proposal's owner can do this. Ask them on the Team page.")
        )
    raise PermissionDenied(
        _(
            "You are a viewer of this proposal: you can read it, comment and export "
            "it, but not change it. Ask its owner to make you an editor."
        )
    )


def member_proposal(request, pk, *, may: Capability, children: bool = True):
    """Proposal ``pk`` of the request user's team (children prefetched) when their
    role allows ``may``; a 404 off the team, a 403 that says why for a role that
    does not allow it."""
    proposal = selectors.proposal_get_for_member(
        user=request.user, pk=pk, children=children
    )
    if proposal is None:
        raise Http404("No such proposal.")
    if not selectors.member_may(proposal, may):
        refuse_role(may)
    return proposal


def staff_proposal(request, pk):
    """Proposal ``pk`` for the staff review pages (the request user is support staff
    and it was sent for review at least once), or a 404; a 403 that says why to a
    staff member conflicted on it (``selectors.review_conflict``): they know it
    exists (the queue lists it, marked), and read or do nothing on it as staff."""
    proposal = selectors.review_get_for_staff(user=request.user, pk=pk)
    if proposal is None:
        raise Http404("No such page.")
    conflict = selectors.review_conflict(user=request.user, proposal=proposal)
    if conflict:
        raise PermissionDenied(conflict)
    return proposal


def proposal_revision(proposal, number: int):
    """The proposal's revision ``number`` (with its snapshot), or a 404."""
    revision = selectors.review_revision(proposal=proposal, number=number)
    if revision is None:
        raise Http404("No such revision.")
    return revision
