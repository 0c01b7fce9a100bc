"""Sign-up, e-mail verification, the account settings and the throttles on account
pages; log in, log out and password pages are Django's own auth views.

Throttles: django-axes locks a username after failed logins from one address
(settings ``AXES_*``); django-ratelimit limits the pages below that send e-mail.
"""

import unicodedata
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.views import (
    LoginView,
    PasswordChangeView,
    PasswordResetView,
)
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_str
from django.utils.http import (
    url_has_allowed_host_and_scheme,
    urlsafe_base64_decode,
)
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
)
from django_ratelimit.decorators import ratelimit

from proposals import localization, oidc, selectors, services
from proposals.accounts import verification_tokens
from proposals.domain.numbers import format_for_languages
from proposals.exports import PORTAL_LANGUAGE
from proposals.exports.account import account_archive
from proposals.forms import (
    AccountDeleteForm,
    PreferencesForm,
    SignUpForm,
)
from proposals.localization import browser_languages
from proposals.selectors.team import invitations_waiting
from proposals.views.team import invitation_after_signup
from proposals.views.two_factor import second_factor_status

# Requests per address (or account, or e-mail) and hour that may send e-mail.
SIGNUP_RATE = "10/h"
PASSWORD_RESET_RATE = "5/h"
PASSWORD_RESET_PER_ADDRESS_RATE = "3/h"
RESEND_RATE = "3/h"
# Password attempts per account and hour on the page that deletes the account.
DELETE_RATE = "10/h"


def request_preferences(request):
    """The request user's ``Preferences`` (or ``None``), read once per request."""
    if not hasattr(request, "_preferences"):
        request._preferences = localization.preferences_of(request.user)
    return request._preferences


def interface_language(request) -> str:
    """The language the signed-in person chose in Settings (``de``), or ``""``: then
    the browser's (or the anonymous switch's) language, which Django's
    ``LocaleMiddleware`` activated, stays. Read from the session (stored at login
    and on saving Settings: no query); a session from before that reads the
    preferences once and keeps the answer."""
    if not hasattr(request, "_interface_language"):
        user = getattr(request, "user", None)
        language = ""
        if user is not None and user.is_authenticated:
            language = request.session.get(localization.LANGUAGE_SESSION_KEY)
            if language is None:
                language = localization.remember_language(
                    request, request_preferences(request)
                )
        request._interface_language = (
            language if language in localization.interface_languages() else ""
        )
    return request._interface_language


def number_format(request):
    """How the request's user writes numbers: their setting, or (before they chose
    one, or signed in) their browser's convention; read once per request."""
    if not hasattr(request, "_number_format"):
        preferences = request_preferences(request)
        request._number_format = (
            preferences.number_format_spec
            if preferences is not None
            else format_for_languages(browser_languages(request))
        )
    return request._number_format


def time_zone(request):
    """The request user's time zone (Brussels' until they choose one)."""
    if not hasattr(request, "_time_zone"):
        preferences = request_preferences(request)
        request._time_zone = localization.zone_named(
            preferences.time_zone if preferences is not None else None
        )
    return request._time_zone


def _too_many(request, *, wait: str):
    response = TemplateResponse(request, "429.html", {"wait": wait}, status=429)
    return response.render()  # rendered here: middleware returns it


def too_many_attempts(request, exception):
    """``RATELIMIT_VIEW``: a rate-limited page answers 429 (every rate is hourly)."""
    return _too_many(request, wait=_("up to an hour"))


def login_locked_out(request, response, credentials):
    """``AXES_LOCKOUT_CALLABLE``: a locked login answers 429 for the cool-off time,
    the same whether or not the username exists."""
    now = timezone.now()
    return _too_many(request, wait=timeuntil(now + settings.AXES_COOLOFF_TIME, now))


class SignInView(LoginView):
    """Django's login page, with "Sign in with <provider>" beside the password form
    when an OpenID Connect provider is configured (proposals/oidc.py)."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["provider_label"] = oidc.label() if oidc.enabled() else ""
        return context


class PasswordChange(PasswordChangeView):
    """Django's page; an account made by signing in with a provider has no
    password yet and sets one without an old one (then it may sign in either way)."""

    def get_form_class(self):
        if not self.request.user.has_usable_password():
            return SetPasswordForm
        return super().get_form_class()


@ratelimit(key="ip", rate=SIGNUP_RATE, method="POST")
@require_http_methods(["GET", "POST"])
def signup(request):
    """The answer is the same page whatever the sign-up did: whether the username
    or the address was taken is told only to the address."""
    if request.user.is_authenticated:
        return redirect("proposals:list")
    # From an invitation: the invited address, already typed.
    initial = {"email": request.GET.get("email", "")[:254]}
    form = SignUpForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.account_signup(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            # How the person writes numbers starts as their browser's convention
            # (shown, and changeable, on the settings page).
            number_format=format_for_languages(browser_languages(request)).name,
            language=translation.get_language() or "",
            time_zone=form.cleaned_data["time_zone"],
        )
        return redirect("signup_done")
    return TemplateResponse(request, "registration/signup.html", {"form": form})


def signup_done(request):
    days = settings.PASSWORD_RESET_TIMEOUT // int(timedelta(days=1).total_seconds())
    return TemplateResponse(request, "registration/signup_done.html", {"days": days})


def _user_for_link(uidb64: str, token: str):
    try:
        pk = force_str(urlsafe_base64_decode(uidb64))
        user = get_user_model().objects.select_related("account").get(pk=pk)
    except (ValueError, OverflowError, get_user_model().DoesNotExist):
        return None
    return user if verification_tokens.check_token(user, token) else None


@require_http_methods(["GET", "POST"])
def verify_email(request, uidb64, token):
    """The link from the e-mail: a page with a button (so that a mail scanner that
    opens links confirms nothing), which confirms the address, logs in and opens
    the "first five minutes" guide."""
    target = _user_for_link(uidb64, token)
    if request.method == "POST" and target is not None:
        try:
            services.account_verify(user=target)
        except services.AccountError as exc:
            messages.error(request, str(exc))
            return redirect("login")
        # Came from an invitation link: back to it (kept across the log-in).
        invited = invitation_after_signup(request)
        login(request, target, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request,
            _("Your e-mail address %(email)s is confirmed.") % {"email": target.email},
        )
        if invited:
            return redirect(invited)
        if invitations_waiting(user=target):
            return redirect("proposals:list")
        return redirect("proposals:guide")
    status = 200 if target is not None else 400
    return TemplateResponse(
        request, "registration/verify_email.html", {"target": target}, status=status
    )


@login_required
@ratelimit(key="user", rate=RESEND_RATE, method="POST")
@require_POST
def verify_email_resend(request):
    if services.account_send_verification(user=request.user):
        messages.success(
            request,
            _("We sent a new link to %(email)s.") % {"email": request.user.email},
        )
    next_url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = reverse("proposals:list")
    return redirect(next_url)


def _reset_address(group, request) -> str:
    """The address a reset asks for, as the reset finds its account: without the
    surrounding spaces, NFKC-normalised and case-folded, the comparison Django's
    ``PasswordResetForm.get_users`` makes before it mails an account. Every spelling
    that reaches one account (``DEMO@example.org``, ``ſec@example.org`` for
    ``sec@example.org``) has one key, so they share one budget."""
    address = request.POST.get("email", "").strip()
    return unicodedata.normalize("NFKC", address).casefold()


# Django's view, throttled per client and per address typed; the page after it is the
# same whether or not an account uses the address.
password_reset = ratelimit(key="ip", rate=PASSWORD_RESET_RATE, method="POST")(
    ratelimit(key=_reset_address, rate=PASSWORD_RESET_PER_ADDRESS_RATE, method="POST")(
        PasswordResetView.as_view()
    )
)


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request):
    current = number_format(request)
    form = PreferencesForm(
        request.POST or None,
        initial={
            "language": interface_language(request),
            "number_format": current.name,
            "time_zone": time_zone(request).key,
        },
        # The person's own region heads the number formats, then all by name.
        languages=[
            current.name,
            *browser_languages(request),
            translation.get_language(),
        ],
        browser_zone=not getattr(
            request_preferences(request), "time_zone_chosen", False
        ),
    )
    if request.method == "POST" and form.is_valid():
        preferences = services.preferences_set(
            user=request.user,
            number_format=form.cleaned_data["number_format"],
            time_zone=form.cleaned_data["time_zone"],
            language=form.cleaned_data["language"],
        )
        # The answer (and its "saved" message) in the language just chosen.
        chosen = localization.remember_language(request, preferences)
        language = chosen or translation.get_language_from_request(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        messages.success(request, _("Settings saved."))
        return redirect("account_settings")
    return TemplateResponse(
        request,
        "registration/account_settings.html",
        {
            "form": form,
            "page_title": _("Account settings"),
            "second_factor": second_factor_status(request.user),
            "provider_identities": selectors.account_provider_identities(
                user=request.user
            ),
        },
    )


@login_required
@require_GET
def account_data(request):
    """Everything the wizard holds about the person, as one zip file."""
    with translation.override(PORTAL_LANGUAGE):  # a JSON file: the portal's English
        filename, body = account_archive(user=request.user)
    response = HttpResponse(body, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@ratelimit(key="user", rate=DELETE_RATE, method="POST")
@require_http_methods(["GET", "POST"])
def account_delete(request):
    """Ask for the password, then delete the account (see
    ``services.account_delete`` for what stays with the staff)."""
    form = AccountDeleteForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        done = services.account_delete(user=request.user)
        logout(request)
        deleted = _("Your account and your drafts were deleted.")
        if done.handed_over:
            handed = ngettext(
                "%(count)s proposal with a team now belongs to its longest-standing "
                "editor.",
                "%(count)s proposals with a team now belong to their longest-standing "
                "editor.",
                done.handed_over,
            ) % {"count": done.handed_over}
            deleted = f"{deleted} {handed}"
        if done.kept:
            kept = ngettext(
                "The %(count)s proposal you sent for review stays with the help desk, "
                "without your name or address.",
                "The %(count)s proposals you sent for review stay with the help desk, "
                "without your name or address.",
                done.kept,
            ) % {"count": done.kept}
            deleted = f"{deleted} {kept}"
        messages.success(request, deleted)
        return redirect("home")
    return TemplateResponse(
        request,
        "registration/account_delete.html",
        {
            "form": form,
            "page_title": _("Delete your account"),
            "counts": selectors.account_proposal_counts(user=request.user),
            "handovers": selectors.account_team_handovers(user=request.user),
        },
    )
