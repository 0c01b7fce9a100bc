"""Compute planning pages: compare the catalogue systems for a proposal, and make a
copy retargeted to one of them. Thin: the domain compares, a service copies."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST

from proposals.assess import assess_proposal
from proposals.services.systems import UnknownSystem, proposal_retarget_copy
from proposals.views import owned_proposal


@login_required
@require_GET
def compare_systems(request, pk):
    """Every catalogue system with this proposal's request converted."""
    proposal = owned_proposal(request, pk)
    assessment = assess_proposal(proposal)
    return TemplateResponse(
        request,
        "proposals/compare_systems.html",
        {
            "proposal": proposal,
            "assessment": assessment,
            "comparison": assessment.systems_comparison,
        },
    )


@login_required
@require_POST
def retarget_copy(request, pk):
    """A copy of the proposal aimed at the posted system."""
    proposal = owned_proposal(request, pk)
    try:
        copy = proposal_retarget_copy(
            proposal=proposal,
            owner=request.user,
            system_slug=request.POST.get("system", ""),
        )
    except UnknownSystem:
        messages.error(request, "Choose one of the systems listed.")
        return redirect("proposals:compare_systems", pk=proposal.pk)
    messages.success(
        request,
        f"“{copy.title}” is a new draft copied from “{proposal.title}”, aimed at "
        f"{copy.system.name}. Its GPU-hours and job plan are as you entered them: "
        "check them against the comparison's figures.",
    )
    return redirect("proposals:step", pk=copy.pk, step="selection")
