"""Proposal list, creation and the plain edit page. Thin: reads via selectors, writes
via services."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods

from proposals import selectors, services
from proposals.domain.sections import STEP_SLUGS
from proposals.forms import ProposalCreateForm
from proposals.models import Proposal
from proposals.views import owned_proposal


@login_required
@require_GET
def proposal_list(request):
    proposals = selectors.proposal_list_for_owner(user=request.user)
    return TemplateResponse(
        request, "proposals/proposal_list.html", {"proposals": proposals}
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
    proposal = owned_proposal(request, pk, children=False)
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
