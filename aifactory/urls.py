from django.contrib import admin
from django.urls import include, path

from proposals.views import accounts, public

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
    # Before Django's auth URLs, so that this throttled view wins.
    path("accounts/password_reset/", accounts.password_reset, name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("", include("proposals.urls")),
]
