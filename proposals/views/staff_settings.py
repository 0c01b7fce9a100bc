"""A staff member's own settings: the calendar their working days follow, which
staff mail they get, and their declared conflicts of interest."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from proposals import reference_data, selectors, services
from proposals.http import parse_int
from proposals.review_forms import ConflictForm, DeskSettingsForm
from proposals.views.accounts import request_preferences
from proposals.views.review import staff_required


@staff_required
@require_http_methods(["GET", "POST"])
def staff_settings(request):
    """Show and change the staff member's desk settings."""
    preferences = request_preferences(request)
    initial = {
        name: getattr(preferences, name)
        for name in ("holiday_calendar", "staff_mail", "digest_hour")
        if preferences is not None
    }
    form = DeskSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.staff_settings_set(user=request.user, **form.cleaned_data)
        messages.success(request, _("Desk settings saved."))
        return redirect("proposals:staff_settings")
    return TemplateResponse(
        request,
        "proposals/staff_settings.html",
        {
            "form": form,
            "desk_calendar": settings.HOLIDAY_COUNTRY,
            "closures": reference_data.cached_closure_rows(),
        },
        status=422 if form.errors else 200,
    )


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
