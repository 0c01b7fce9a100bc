"""A staff member's own desk settings: the calendar their working days follow."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from proposals import reference_data, services
from proposals.review_forms import DeskSettingsForm
from proposals.views.accounts import _preferences
from proposals.views.review import staff_required


@staff_required
@require_http_methods(["GET", "POST"])
def staff_settings(request):
    """Show and change the staff member's desk settings."""
    preferences = _preferences(request)
    initial = {"holiday_calendar": getattr(preferences, "holiday_calendar", "")}
    form = DeskSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.staff_calendar_set(
            user=request.user, holiday_calendar=form.cleaned_data["holiday_calendar"]
        )
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
