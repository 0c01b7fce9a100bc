"""Compute planning pages: compare the catalogue systems for a proposal, and make a
copy retargeted to one of them. Thin: the domain compares, a service copies."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from proposals import selectors
from proposals.assess import assess_proposal
from proposals.domain.numbers import grouped, hours
from proposals.domain.team import Capability
from proposals.services.row_operations import TableFull
from proposals.services.systems import (
    CannotRescale,
    UnknownSystem,
    proposal_retarget_copy,
    proposal_retarget_copy_rescaled,
)
from proposals.views import member_proposal


@login_required
@require_GET
def compare_systems(request, pk):
    """Every catalogue system with this proposal's request converted."""
    proposal = member_proposal(request, pk, may=Capability.READ)
    assessment = assess_proposal(proposal)
    return TemplateResponse(
        request,
        "proposals/compare_systems.html",
        {
            "proposal": proposal,
            "assessment": assessment,
            "comparison": assessment.systems_comparison,
            # The copy buttons: a viewer makes no copy (retarget_copy refuses it).
            "can_copy": selectors.member_may(proposal, Capability.DUPLICATE),
        },
    )


@login_required
@require_POST
def retarget_copy(request, pk):
    """A copy of the proposal aimed at the posted system: as entered, or with the
    comparison's rescaled figures when ``rescale`` is posted."""
    proposal = member_proposal(request, pk, may=Capability.DUPLICATE)
    system = request.POST.get("system", "")
    try:
        if request.POST.get("rescale"):
            copy, option = proposal_retarget_copy_rescaled(
                proposal=proposal, owner=request.user, system_slug=system
            )
        else:
            copy, option = (
                proposal_retarget_copy(
                    proposal=proposal, owner=request.user, system_slug=system
                ),
                None,
            )
    except UnknownSystem:
        messages.error(request, _("Choose one of the systems listed."))
        return redirect("proposals:compare_systems", pk=proposal.pk)
    except (CannotRescale, TableFull) as error:
        messages.error(request, str(error))
        return redirect("proposals:compare_systems", pk=proposal.pk)
    if option is not None:
        values = {
            "title": copy.title,
            "system": copy.system.name,
            "hours": hours(copy.total_gpu_hours),
            "tier": option.tier_label,
            "factor": grouped(option.factor, 2, trim=False),
            "basis": option.basis_words,
        }
        sentences = [
            (
                _(
                    "“%(title)s” is a new draft aimed at %(system)s with %(hours)s "
                    "GPU-hours (%(tier)s) and job walltimes ×%(factor)s (%(basis)s)."
                )
                if option.tier_label
                else _(
                    "“%(title)s” is a new draft aimed at %(system)s with %(hours)s "
                    "GPU-hours and job walltimes ×%(factor)s (%(basis)s)."
                )
            )
            % values,
            option.caveat,
            _("Check them before you submit."),
        ]
        messages.warning(request, " ".join(s for s in sentences if s))
        return redirect("proposals:step", pk=copy.pk, step="selection")
    messages.success(
        request,
        _(
            "“%(title)s” is a new draft copied from “%(original)s”, aimed at "
            "%(system)s. Its GPU-hours and job plan are as you entered them: "
            "check them against the comparison's figures."
        )
        % {
            "title": copy.title,
            "original": proposal.title,
            "system": copy.system.name,
        },
    )
    return redirect("proposals:step", pk=copy.pk, step="selection")
