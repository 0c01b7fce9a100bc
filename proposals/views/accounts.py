"""Sign-up and the account settings; the other account pages are Django's own auth
views."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation.trans_real import parse_accept_lang_header
from django.views.decorators.http import require_http_methods

from proposals import selectors, services
from proposals.domain.numbers import format_for_languages
from proposals.forms import PreferencesForm, SignUpForm


def browser_languages(request) -> list[str]:
    """The languages of the request's Accept-Language header, preferred first."""
    header = request.headers.get("Accept-Language", "")
    return [language for language, _ in parse_accept_lang_header(header)]


def number_format(request):
    """How the request's user writes numbers (see ``selectors.number_format_for``)."""
    return selectors.number_format_for(
        user=request.user, languages=browser_languages(request)
    )


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("proposals:list")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # The number format starts as the browser's convention (shown, and changeable,
        # on the settings page).
        services.preferences_set(
            user=user,
            number_format=format_for_languages(browser_languages(request)).name,
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("proposals:list")
    return TemplateResponse(request, "registration/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request):
    current = number_format(request)
    form = PreferencesForm(
        request.POST or None, initial={"number_format": current.name}
    )
    if request.method == "POST" and form.is_valid():
        services.preferences_set(
            user=request.user, number_format=form.cleaned_data["number_format"]
        )
        messages.success(request, "Settings saved.")
        return redirect("account_settings")
    return TemplateResponse(
        request,
        "registration/account_settings.html",
        {"form": form, "page_title": "Account settings"},
    )
