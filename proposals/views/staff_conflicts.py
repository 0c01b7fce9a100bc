"""The organisations a staff member declared a conflict of interest with (their
proposals are treated as if the staff member were on the team)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from proposals import selectors, services
from proposals.http import parse_int
from proposals.review_forms import ConflictForm
from proposals.views.review import staff_required


@staff_required
@require_http_methods(["GET", "POST"])
def staff_conflicts(request):
    """The organisations the staff member declared a conflict of interest with:
    add one, or withdraw one (``remove``)."""
    form = ConflictForm(request.POST or None) if "remove" not in request.POST else None
    if request.method == "POST" and form is None:
        removed = services.staff_conflict_remove(
            user=request.user, pk=parse_int(request.POST["remove"], name="remove")
        )
        if removed is not None:
            messages.success(
                request,
                _("Conflict with %(organisation)s withdrawn.")
                % {"organisation": removed.organisation},
            )
        return redirect("proposals:staff_conflicts")
    if request.method == "POST" and form.is_valid():
        try:
            declared = services.staff_conflict_declare(
                user=request.user, organisation=form.cleaned_data["organisation"]
            )
        except services.ReviewError as exc:
            form.add_error("organisation", str(exc))
        else:
            messages.success(
                request,
                _("Conflict with %(organisation)s declared.")
                % {"organisation": declared.organisation},
            )
            return redirect("proposals:staff_conflicts")
    return TemplateResponse(
        request,
        "proposals/staff_conflicts.html",
        {
            "form": form or ConflictForm(),
            "conflicts": selectors.staff_conflicts_list(user=request.user),
        },
        status=422 if form is not None and form.errors else 200,
    )
