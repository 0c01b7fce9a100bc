"""A person signs in with their institution's account in Chromium: the wizard's
login page, the provider's own sign-in page (django-oauth-toolkit on loopback, a
real OpenID Connect provider), and back signed in; then a staff member's sign-in
through the provider still asks for the second factor."""

import re

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Page, expect

from proposals import oidc
from proposals.models import ProviderIdentity
from tests.factories import UserFactory
from tests.oidc_server import PASSWORD, OIDCProvider


@pytest.fixture
def provider(live_server, settings):
    running = OIDCProvider(
        redirect_uris=[f"{live_server.url}/accounts/oidc/callback/"]
    ).start()
    for name, value in running.settings(label="MyAccessID").items():
        setattr(settings, name, value)
    oidc._discovered.clear()
    yield running
    running.stop()
    oidc._discovered.clear()


def provider_sign_in(page: Page, base: str, username: str, next_url: str = ""):
    page.goto(f"{base}/accounts/login/{next_url}")
    page.get_by_role("link", name="Sign in with MyAccessID").click()
    expect(page.get_by_role("heading", name="Test identity provider")).to_be_visible()
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Sign in at the provider").click()


def test_sign_in_with_the_provider(
    page: Page, live_server, e2e_catalogue, provider, artifacts
):
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.screenshot(path=artifacts / "oidc-1-login.png", full_page=True)
    provider_sign_in(page, base, "grace")
    expect(page).to_have_url(re.compile(re.escape(base) + "/"))
    page.goto(f"{base}/accounts/settings/")
    expect(page.get_by_text("Signed in as grace", exact=True)).to_be_visible()
    expect(
        page.get_by_role("heading", name="Sign-in with your institution")
    ).to_be_visible()
    page.screenshot(path=artifacts / "oidc-2-signed-in.png", full_page=True)
    user = User.objects.get(username="grace")
    assert ProviderIdentity.objects.get(user=user).issuer == provider.issuer


def test_staff_through_the_provider_still_pass_the_second_factor(
    page: Page, live_server, e2e_catalogue, provider, settings, artifacts
):
    settings.STAFF_2FA = "required"
    staff = UserFactory(username="ada_staff", email="ada@example.org")
    staff.groups.add(Group.objects.get(name="Support staff"))
    provider_sign_in(page, live_server.url, "ada", "?next=/staff/review/")
    expect(page).to_have_url(re.compile(r"/accounts/two-factor/setup/"))
    expect(page.get_by_test_id("totp-qr")).to_be_visible()
    page.screenshot(path=artifacts / "oidc-3-staff-second-factor.png", full_page=True)
    assert ProviderIdentity.objects.get().user == staff
