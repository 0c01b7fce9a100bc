"""Proposal list, creation and the plain edit page. Thin: reads via selectors, writes
via services."""

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from proposals import selectors, services
from proposals.domain.sections import STEP_SLUGS
from proposals.domain.team import Capability, Role, allows
from proposals.forms import ProposalCreateForm, ProposalDuplicateForm
from proposals.models import ROLE_LABELS, Proposal
from proposals.selectors.team import invitations_waiting
from proposals.services.team import member_name
from proposals.views import member_proposal


@dataclass(frozen=True)
class ListedProposal:
    """One line of the list: the proposal, whose it is when it is shared with the
    reader, and the actions the reader's role allows (``domain.team.allows``)."""

    proposal: Proposal
    role: str

    @classmethod
    def of(cls, proposal: Proposal) -> "ListedProposal":
        return cls(proposal, proposal.member_role)

    @property
    def shared(self) -> bool:
        """Shared with the reader by its owner (the reader is a member)."""
        return self.role != Role.OWNER

    @property
    def owner_name(self) -> str:
        return member_name(self.proposal.owner)

    @property
    def role_label(self) -> str:
        return ROLE_LABELS[Role(self.role)]

    @property
    def may_duplicate(self) -> bool:
        return allows(self.role, Capability.DUPLICATE)

    @property
    def may_archive(self) -> bool:
        return allows(self.role, Capability.ARCHIVE)

    @property
    def may_delete(self) -> bool:
        return allows(self.role, Capability.DELETE)


@login_required
@require_GET
def proposal_list(request):
    """The current proposals, or the archived ones with ``?show=archived``: the
    reader's own and those shared with them, each with what their role allows."""
    archived = request.GET.get("show") == "archived"
    proposals = selectors.proposal_list_for_member(user=request.user, archived=archived)
    return TemplateResponse(
        request,
        "proposals/proposal_list.html",
        {
            "proposals": [ListedProposal.of(proposal) for proposal in proposals],
            "archived": archived,
            "invitations": invitations_waiting(user=request.user),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def proposal_create(request):
    form = ProposalCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        proposal = services.proposal_create(owner=request.user, **form.cleaned_data)
        return redirect(proposal)
    return TemplateResponse(request, "proposals/proposal_create.html", {"form": form})


@login_required
@require_GET
def proposal_detail(request, pk):
    """Open the wizard: on the first step with a staff comment waiting for the
    applicant when the staff asked for changes, else on the first step."""
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    step = STEP_SLUGS[0]
    if proposal.status == Proposal.Status.CHANGES_REQUESTED:
        waiting = selectors.review_open_comments_by_step(proposal=proposal)
        step = next((s for s in STEP_SLUGS if waiting.get(s)), step)
    return redirect("proposals:step", pk=proposal.pk, step=step)


@login_required
@require_GET
def proposal_edit(request, pk):
    """The wizard's first step (kept as a stable "edit" link)."""
    return proposal_detail(request, pk)


@login_required
@require_http_methods(["GET", "POST"])
def proposal_delete(request, pk):
    """Ask, then delete. A proposal that was ever sent for review stays for staff."""
    proposal = member_proposal(request, pk, may=Capability.DELETE, children=False)
    if request.method == "POST":
        kept = services.proposal_delete(proposal=proposal)
        message = (
            _("“%(title)s” was deleted. The support staff keep the copy you sent them.")
            if kept
            else _("“%(title)s” was deleted.")
        )
        messages.success(request, message % {"title": proposal.title})
        return redirect("proposals:list")
    return TemplateResponse(
        request,
        "proposals/proposal_confirm_delete.html",
        {
            "proposal": proposal,
            "kept_for_staff": services.proposal_was_sent_for_review(proposal=proposal),
        },
    )


@login_required
@require_POST
def proposal_archive(request, pk):
    """Archive (``archived=1``) or bring back (``archived=0``) a proposal."""
    proposal = member_proposal(request, pk, may=Capability.ARCHIVE, children=False)
    archived = request.POST.get("archived", "1") != "0"
    services.proposal_set_archived(proposal=proposal, archived=archived)
    if archived:
        messages.success(
            request,
            _("“%(title)s” was archived: find it under “Archived”.")
            % {"title": proposal.title},
        )
        return redirect("proposals:list")
    messages.success(
        request,
        _("“%(title)s” is back in your proposals.") % {"title": proposal.title},
    )
    return redirect(f"{reverse('proposals:list')}?show=archived")


@login_required
@require_http_methods(["GET", "POST"])
def proposal_duplicate(request, pk):
    """A copy as a new draft, under a title the applicant sets."""
    proposal = member_proposal(request, pk, may=Capability.DUPLICATE, children=False)
    form = ProposalDuplicateForm(
        request.POST or None,
        initial={"title": _("Copy of %(title)s") % {"title": proposal.title}},
    )
    if request.method == "POST" and form.is_valid():
        try:
            copy = services.proposal_duplicate(
                proposal=proposal, owner=request.user, title=form.cleaned_data["title"]
            )
        except services.TableFull as error:  # a table over the format's limit
            form.add_error(None, str(error))
        else:
            messages.success(
                request,
                _("“%(title)s” is a new draft copied from “%(original)s”.")
                % {"title": copy.title, "original": proposal.title},
            )
            return redirect(copy)
    return TemplateResponse(
        request,
        "proposals/proposal_duplicate.html",
        {"proposal": proposal, "form": form},
    )
