"""The Team page of a proposal (members, invitations, the record of changes, the
reader's mail switch) and the invitation link's page. Thin: the services check
the role again and refuse with a message shown on the page."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from proposals import services
from proposals.domain.team import Capability, Role
from proposals.forms import TeamInviteForm, TeamRoleForm
from proposals.models import ROLE_LABELS, Invitation, Membership
from proposals.selectors import member_may
from proposals.selectors.team import invitations_waiting, team_of
from proposals.services.team import (
    TeamError,
    display_name,
    invitation_for_token,
    invitation_problem,
)
from proposals.views import member_proposal

# Where an anonymous visitor's invitation link is kept until they have an
# account (the address confirmation opens it again).
SESSION_INVITATION = "invitation_token"


def _team_page(request, proposal, *, invite_form=None, status=200):
    context = {
        "proposal": proposal,
        "team": team_of(proposal=proposal, reader=request.user),
        "invite_form": invite_form or TeamInviteForm(),
        "role_form": TeamRoleForm(),
        "role_labels": {role.value: label for role, label in ROLE_LABELS.items()},
        "can_manage": member_may(proposal, Capability.MANAGE),
        "my_role": proposal.member_role,
    }
    return TemplateResponse(request, "proposals/team.html", context, status=status)


def _back(proposal):
    return redirect("proposals:team", proposal.pk)


@login_required
@require_GET
def team(request, pk):
    """Who is on the team, what they may do, and every change to it."""
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    return _team_page(request, proposal)


@login_required
@require_POST
def team_invite(request, pk):
    proposal = member_proposal(request, pk, may=Capability.MANAGE, children=False)
    form = TeamInviteForm(request.POST)
    if not form.is_valid():
        return _team_page(request, proposal, invite_form=form, status=400)
    try:
        services.team_invite(
            proposal=proposal,
            by=request.user,
            email=form.cleaned_data["email"],
            role=form.cleaned_data["role"],
        )
    except TeamError as error:
        form.add_error("email", str(error))
        return _team_page(request, proposal, invite_form=form, status=400)
    messages.success(
        request,
        _("Invitation stored: the mail to %(email)s is on its way.")
        % {"email": form.cleaned_data["email"]},
    )
    return _back(proposal)


def _membership(proposal, member_id) -> Membership:
    return get_object_or_404(
        Membership.objects.select_related("user", "proposal"),
        pk=member_id,
        proposal=proposal,
    )


def _done_or_error(request, proposal, action, success: str):
    try:
        action()
    except TeamError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, success)
    return _back(proposal)


@login_required
@require_POST
def team_revoke(request, pk, invitation_id):
    proposal = member_proposal(request, pk, may=Capability.MANAGE, children=False)
    invitation = get_object_or_404(Invitation, pk=invitation_id, proposal=proposal)
    return _done_or_error(
        request,
        proposal,
        lambda: services.invitation_revoke(invitation=invitation, by=request.user),
        _("The invitation of %(email)s is revoked: its link no longer works.")
        % {"email": invitation.email},
    )


@login_required
@require_POST
def team_role(request, pk, member_id):
    proposal = member_proposal(request, pk, may=Capability.MANAGE, children=False)
    membership = _membership(proposal, member_id)
    form = TeamRoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose editor or viewer."))
        return _back(proposal)
    role = form.cleaned_data["role"]
    return _done_or_error(
        request,
        proposal,
        lambda: services.member_set_role(
            membership=membership, role=role, by=request.user
        ),
        _("%(name)s is now %(role)s.")
        % {
            "name": display_name(membership.user),
            "role": ROLE_LABELS[Role(role)],
        },
    )


@login_required
@require_POST
def team_remove(request, pk, member_id):
    proposal = member_proposal(request, pk, may=Capability.MANAGE, children=False)
    membership = _membership(proposal, member_id)
    return _done_or_error(
        request,
        proposal,
        lambda: services.member_remove(membership=membership, by=request.user),
        _("%(name)s is no longer on the team.")
        % {"name": display_name(membership.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def team_transfer(request, pk, member_id):
    """Hand the proposal over to a member: a page that asks first."""
    proposal = member_proposal(request, pk, may=Capability.MANAGE, children=False)
    membership = _membership(proposal, member_id)
    if request.method == "POST":
        return _done_or_error(
            request,
            proposal,
            lambda: services.ownership_transfer(
                proposal=proposal, to=membership, by=request.user
            ),
            _("%(name)s is the owner now; you stay on the team as an editor.")
            % {"name": display_name(membership.user)},
        )
    return TemplateResponse(
        request,
        "proposals/team_transfer.html",
        {"proposal": proposal, "member": membership},
    )


@login_required
@require_POST
def team_leave(request, pk):
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    membership = Membership.objects.filter(proposal=proposal, user=request.user).first()
    if membership is None:  # the owner: hands the proposal over first
        messages.error(
            request,
            _("The owner cannot leave: hand the proposal over to a member first."),
        )
        return _back(proposal)
    try:
        services.member_remove(membership=membership, by=request.user)
    except TeamError as error:
        messages.error(request, str(error))
        return _back(proposal)
    messages.success(
        request, _("You left the team of “%(title)s”.") % {"title": proposal.title}
    )
    return redirect("proposals:list")


@login_required
@require_POST
def team_notifications(request, pk):
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    on = request.POST.get("notify") == "on"
    services.team_notifications_set(proposal=proposal, user=request.user, on=on)
    messages.success(
        request,
        _("Saved: you get mail about comments and status changes of this proposal.")
        if on
        else _("Saved: you get no mail about this proposal any more."),
    )
    return _back(proposal)


def _accept(request, invitation):
    try:
        services.invitation_accept(invitation=invitation, user=request.user)
    except TeamError as error:
        messages.error(request, str(error))
        return redirect("proposals:list")
    request.session.pop(SESSION_INVITATION, None)
    messages.success(
        request,
        _("You joined the team of “%(title)s” as %(role)s.")
        % {
            "title": invitation.proposal.title,
            "role": ROLE_LABELS[Role(invitation.role)],
        },
    )
    return redirect("proposals:step", invitation.proposal_id, "organisation")


@require_http_methods(["GET", "POST"])
def invitation(request, token):
    """The invitation link: who invites whom to what; accepted with a button (a
    mail scanner that opens links accepts nothing). Someone without an account
    signs up with the invited address, and the confirmation brings them back."""
    found = invitation_for_token(token)
    if found is None:
        raise Http404("No such invitation.")
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?{urlencode({'next': request.path})}")
        return _accept(request, found)
    problem = ""
    if request.user.is_authenticated:
        problem = invitation_problem(found, request.user)
    else:
        request.session[SESSION_INVITATION] = token
    signup = f"{reverse('signup')}?{urlencode({'email': found.email})}"
    return TemplateResponse(
        request,
        "proposals/invitation.html",
        {
            "invitation": found,
            "problem": problem,
            "inviter": display_name(found.invited_by),
            "role_label": ROLE_LABELS[Role(found.role)],
            "signup_url": signup,
        },
    )


@login_required
@require_POST
def invitation_accept(request, invitation_id):
    """Accept one of the invitations listed for the person's confirmed address."""
    waiting = {i.pk: i for i in invitations_waiting(user=request.user)}
    if invitation_id not in waiting:
        raise Http404("No such invitation.")
    return _accept(request, waiting[invitation_id])


def invitation_after_signup(request) -> str | None:
    """The invitation page to open once a new account is confirmed, if the
    person came from an invitation link."""
    token = request.session.get(SESSION_INVITATION)
    if token and invitation_for_token(token) is not None:
        return reverse("proposals:invitation", args=[token])
    return None
