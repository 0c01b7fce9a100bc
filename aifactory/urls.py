from django.contrib import admin
from django.urls import include, path

from proposals import oidc
from proposals.views import accounts, public, two_factor

handler500 = "aifactory.errors.server_error"

urlpatterns = [
    path("", public.home, name="home"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/settings/", accounts.account_settings, name="account_settings"),
    path("accounts/signup/sent/", accounts.signup_done, name="signup_done"),
    path("accounts/settings/data.zip", accounts.account_data, name="account_data"),
    path("accounts/settings/delete/", accounts.account_delete, name="account_delete"),
    path("privacy/", public.privacy, name="privacy"),
    path("accessibility/", public.accessibility, name="accessibility"),
    # The language switch for visitors who are not signed in (Django's set_language).
    path("i18n/", include("django.conf.urls.i18n")),
    path(
        "accounts/verify/<uidb64>/<token>/", accounts.verify_email, name="verify_email"
    ),
    path(
        "accounts/verify/again/",
        accounts.verify_email_resend,
        name="verify_email_resend",
    ),
    # Before Django's auth URLs: the login page with the provider's button.
    path("accounts/login/", accounts.SignInView.as_view(), name="login"),
    path(
        "accounts/password_change/",
        accounts.PasswordChange.as_view(),
        name="password_change",
    ),
    # Sign-in with an OpenID Connect provider (404 unless DJANGO_OIDC_ISSUER is set);
    # the callback is the redirect URI registered at the provider.
    path("accounts/oidc/start/", oidc.ProviderStartView.as_view(), name="oidc_start"),
    path(
        "accounts/oidc/callback/",
        oidc.ProviderCallbackView.as_view(),
        name="oidc_callback",
    ),
    # The second factor for staff (proposals/two_factor.py).
    path(
        "accounts/two-factor/", two_factor.two_factor_verify, name="two_factor_verify"
    ),
    path(
        "accounts/two-factor/setup/",
        two_factor.two_factor_setup,
        name="two_factor_setup",
    ),
    path(
        "accounts/two-factor/recovery-codes/",
        two_factor.recovery_codes_new,
        name="recovery_codes_new",
    ),
    # Before Django's auth URLs, so that this throttled view wins.
    path("accounts/password_reset/", accounts.password_reset, name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("", include("proposals.urls")),
]
