from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from proposals.views import accounts

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="proposals:list"), name="home"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/settings/", accounts.account_settings, name="account_settings"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("", include("proposals.urls")),
]
