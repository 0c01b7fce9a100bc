"""The staff's second factor: the code at sign-in, setting up an authenticator app,
new recovery codes (proposals/two_factor.py says who must)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django_otp import login as otp_login
from django_otp import verify_token as otp_verify_token

from proposals import services, two_factor
from proposals.forms import SecondFactorForm


def _next_url(request, default: str = "proposals:landing") -> str:
    """The ``next`` address of the request if it is this site's, else ``default``."""
    next_url = request.POST.get("next") or request.GET.get("next", "")
    if next_url and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return reverse(default)


@login_required
@require_http_methods(["GET", "POST"])
def two_factor_verify(request):
    """The second step of a sign-in for those who have an authenticator (staff):
    the code it shows now, or one of their recovery codes."""
    user = request.user
    next_url = _next_url(request)
    if user.is_verified():
        return redirect(next_url)
    device = two_factor.authenticator(user)
    if device is None:
        return redirect(
            f"{reverse('two_factor_setup')}?{urlencode({'next': next_url})}"
        )
    form = SecondFactorForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        code = form.cleaned_data["code"]
        # Six digits: the app's code; anything else: a recovery code (each of the
        # two devices counts its own failures and makes the next try wait).
        used = device if code.isdigit() else two_factor.recovery_device(user)
        if used is not None and otp_verify_token(user, used.persistent_id, code):
            otp_login(request, used)
            if used != device:
                left = used.token_set.count()
                messages.warning(
                    request,
                    ngettext(
                        "Recovery code used: %(count)s left. Make new ones in "
                        "Settings.",
                        "Recovery code used: %(count)s left. Make new ones in "
                        "Settings.",
                        left,
                    )
                    % {"count": left},
                )
            return redirect(next_url)
        form.add_error(
            "code",
            _(
                "That code is not right, or came too soon after a wrong one. Type "
                "the code your app shows now."
            ),
        )
    return TemplateResponse(
        request,
        "registration/two_factor_verify.html",
        {"form": form, "next": next_url, "page_title": _("Two-factor sign-in")},
    )


@login_required
@require_http_methods(["GET", "POST"])
def two_factor_setup(request):
    """Set up an authenticator app (staff only): scan the QR code (or type the
    key), type the code it shows; then the recovery codes, shown once."""
    user = request.user
    if not two_factor.is_staff_member(user):
        raise Http404
    next_url = _next_url(request)
    if two_factor.authenticator(user) is not None and not user.is_verified():
        # Replacing an authenticator takes the current one first.
        return redirect(
            f"{reverse('two_factor_verify')}?{urlencode({'next': next_url})}"
        )
    device = services.second_factor_start(user=user)
    form = SecondFactorForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        codes = services.second_factor_confirm(
            user=user, device=device, code=form.cleaned_data["code"]
        )
        if codes is not None:
            device.refresh_from_db()
            otp_login(request, device)
            return TemplateResponse(
                request,
                "registration/recovery_codes.html",
                {
                    "codes": codes,
                    "next": next_url,
                    "page_title": _("Your recovery codes"),
                    "just_set_up": True,
                },
            )
        form.add_error(
            "code",
            _("That code is not right. Type the code your app shows now."),
        )
    return TemplateResponse(
        request,
        "registration/two_factor_setup.html",
        {
            "form": form,
            "next": next_url,
            "qr": two_factor.qr_data_uri(device.config_url),
            "key": two_factor.key_for_typing(device),
            "required": two_factor.required_for(user),
            "page_title": _("Set up two-factor sign-in"),
        },
    )


@login_required
@require_POST
def recovery_codes_new(request):
    """New recovery codes (the old ones stop working), for a staff member who
    passed the second factor in this session."""
    if not request.user.is_verified():
        raise Http404
    codes = services.recovery_codes_renew(user=request.user)
    return TemplateResponse(
        request,
        "registration/recovery_codes.html",
        {
            "codes": codes,
            "next": reverse("account_settings"),
            "page_title": _("Your recovery codes"),
        },
    )


def second_factor_status(user) -> dict | None:
    """What Settings says about the second factor (staff only)."""
    if not two_factor.is_staff_member(user):
        return None
    recovery = two_factor.recovery_device(user)
    return {
        "on": two_factor.authenticator(user) is not None,
        "required": two_factor.required_for(user),
        "verified": user.is_verified(),
        "recovery_left": recovery.token_set.count() if recovery else 0,
    }
