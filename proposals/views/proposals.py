"""Proposal list, creation and the plain edit page. Thin: reads via selectors, writes
via services."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods

from proposals import selectors, services
from proposals.forms import ProposalCreateForm
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
    proposal = owned_proposal(request, pk, children=False)
    return redirect("proposals:step", pk=proposal.pk, step="organisation")


@login_required
@require_GET
def proposal_edit(request, pk):
    """The wizard's first step (kept as a stable "edit" link)."""
    return proposal_detail(request, pk)
