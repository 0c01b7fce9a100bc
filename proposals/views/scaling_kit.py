"""The scaling kit pages (issue 37): a preview of the scripts that measure what the
proposal's scaling data lacks, and their zip. Thin: the selector plans and renders,
the service records a download."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from proposals.domain.scaling_kit import DEFAULT_STEPS, LAUNCHERS, KitError
from proposals.domain.scaling_scripts import render_files, submit_all
from proposals.domain.team import Capability
from proposals.selectors.scaling_kit import scaling_kit_of, scaling_kit_zip
from proposals.services.scaling_kit import scaling_kit_record
from proposals.views import member_proposal


def _options(request) -> tuple[str | None, int]:
    """The launcher and steps asked for (an unknown launcher is the code's own)."""
    launcher = request.GET.get("launcher")
    steps = request.GET.get("steps", "")
    return (
        launcher if launcher in LAUNCHERS else None,
        int(steps)
        if steps.isascii() and steps.isdigit() and len(steps) < 7
        else DEFAULT_STEPS,
    )


@login_required
@require_GET
def kit_preview(request, pk):
    """The kit's counts, steps, hours, total and the system facts it uses."""
    proposal = member_proposal(request, pk, may=Capability.EXPORT)
    launcher, steps = _options(request)
    error = ""
    try:
        kit = scaling_kit_of(proposal=proposal, launcher=launcher, steps=steps)
    except KitError as exc:
        error = str(exc)
        kit = scaling_kit_of(proposal=proposal, launcher=launcher)
    files = render_files(kit)
    return TemplateResponse(
        request,
        "proposals/scaling_kit.html",
        {
            "proposal": proposal,
            "kit": kit,
            "error": error,
            "launchers": LAUNCHERS,
            "submit_all": submit_all(kit),
            "first_script": next(iter(files.values()), ""),
        },
    )


@login_required
@require_GET
def kit_zip(request, pk):
    """The kit's scripts and README in a zip."""
    proposal = member_proposal(request, pk, may=Capability.EXPORT)
    launcher, steps = _options(request)
    try:
        kit = scaling_kit_of(proposal=proposal, launcher=launcher, steps=steps)
    except KitError:
        kit = scaling_kit_of(proposal=proposal, launcher=launcher)
    scaling_kit_record(proposal=proposal, user=request.user, kit=kit)
    folder = f"scaling-kit-{proposal.pk}"
    response = HttpResponse(
        scaling_kit_zip(kit=kit, folder=folder), content_type="application/zip"
    )
    response["Content-Disposition"] = f'attachment; filename="{folder}.zip"'
    return response
