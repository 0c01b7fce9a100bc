"""SCAL-3's action: "Use the job plan's total" sets the total GPU-hours to the job
plan's total (the button beside the finding:
:func:`proposals.wizard.regions.finding_links`). A write through
:func:`services.proposal_use_plan_total`, against the total the page showed; the
page says it is stored only once it is."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from proposals.domain.numbers import format_number
from proposals.domain.sections import STEP_SLUGS
from proposals.domain.team import Capability
from proposals.services.saving import (
    NoPlanTotal,
    RequestChanged,
    proposal_use_plan_total,
)
from proposals.views import member_proposal
from proposals.views.accounts import number_format

#: The request's field, where the page goes once the total is stored.
ANCHOR = "#id_total_gpu_hours"


@login_required
@require_POST
def use_plan_total(request, pk):
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    step = request.POST.get("step", "")
    step = step if step in STEP_SLUGS else "selection"
    fmt = number_format(request)
    try:
        total = proposal_use_plan_total(
            proposal=proposal, base=request.POST.get("base", ""), by=request.user
        )
    except RequestChanged as changed:
        stored = "—" if changed.stored is None else format_number(changed.stored, fmt)
        messages.warning(
            request,
            _(
                "The total GPU-hours were changed elsewhere (now %(total)s), so they "
                "were not replaced: compare them with the job plan again."
            )
            % {"total": stored},
        )
    except NoPlanTotal:
        messages.warning(
            request, _("The job plan has no total to use: nothing was changed.")
        )
    else:
        messages.success(
            request,
            _("Stored: the total GPU-hours are now %(total)s, the job plan's total.")
            % {"total": format_number(total, fmt)},
        )
    url = reverse("proposals:step", args=[proposal.pk, step]) + ANCHOR
    if request.htmx:
        # The page loads the step again, with the message (a new query: the same
        # URL with only a fragment would just scroll).
        response = HttpResponse()
        response.headers["HX-Redirect"] = url.replace("#", "?stored=1#")
        return response
    return redirect(url)
