"""Sign-in with an OpenID Connect provider, against a real one on loopback
(django-oauth-toolkit in its own process, tests/oidc_provider/): the wizard sends the
person to the provider's authorization endpoint, the provider's own sign-in page
signs them in (a ``requests`` session stands for their browser there) and sends them
back with a code, and the wizard exchanges it at the token endpoint, checks the
RS256 ID token against the provider's JWKS and reads the userinfo, all over HTTP."""

import io
import json
import time
import zipfile
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import User
from django.core import mail
from django.core.exceptions import SuspiciousOperation

from proposals import oidc
from proposals.models import AccountProfile, Preferences, ProviderIdentity
from tests.factories import PASSWORD, UserFactory
from tests.oidc_server import OIDCProvider

CALLBACK = "http://testserver/accounts/oidc/callback/"


@pytest.fixture(scope="session")
def provider():
    running = OIDCProvider(redirect_uris=[CALLBACK]).start()
    yield running
    running.stop()


@pytest.fixture
def configured(settings, provider):
    """The wizard configured for the provider, as DJANGO_OIDC_* would."""
    for name, value in provider.settings().items():
        setattr(settings, name, value)
    oidc._discovered.clear()
    yield provider
    oidc._discovered.clear()


def sign_in(client, provider, username, *, next_url=""):
    """The whole round trip; the wizard's last answer."""
    start = client.get(
        "/accounts/oidc/start/" + (f"?next={next_url}" if next_url else "")
    )
    assert start.status_code == 302, start
    authorize = start["Location"]
    assert authorize.startswith(provider.issuer + "/authorize/")
    query = parse_qs(urlsplit(authorize).query)
    assert query["code_challenge_method"] == ["S256"] and query["nonce"]
    browser = provider.browser_session(username)
    back = browser.get(authorize, allow_redirects=False, timeout=10)
    assert back.status_code == 302, back.text[:500]
    callback = urlsplit(back.headers["Location"])
    assert f"http://{callback.netloc}{callback.path}" == CALLBACK
    assert "code" in parse_qs(callback.query)
    return client.get(f"{callback.path}?{callback.query}")


def signed_in_user(client):
    return client.get("/accounts/settings/").context["user"]


def test_no_provider_configured_changes_nothing(client, db):
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert "Sign in with" not in page.content.decode()
    assert client.get("/accounts/oidc/start/").status_code == 404
    assert client.get("/accounts/oidc/callback/?code=x&state=y").status_code == 404


def test_login_page_offers_the_provider_beside_the_password(client, db, configured):
    page = client.get("/accounts/login/?next=/proposals/").content.decode()
    assert 'name="password"' in page
    assert "Sign in with Test provider" in page
    assert 'href="/accounts/oidc/start/?next=/proposals/"' in page


def test_a_new_person_gets_an_account(client, catalogue, configured):
    answer = sign_in(client, configured, "grace")
    assert answer.status_code == 302
    user = User.objects.get(email="grace@example.org")
    assert signed_in_user(client) == user
    assert user.username == "grace" and user.get_full_name() == "Grace Hopper"
    assert user.is_active and not user.has_usable_password()
    profile = AccountProfile.objects.get(user=user)
    assert profile.email == "grace@example.org" and profile.verified_at is not None
    assert Preferences.objects.filter(user=user).exists()
    identity = ProviderIdentity.objects.get(user=user)
    assert identity.issuer == configured.issuer and identity.subject
    assert mail.outbox == []  # the provider vouched for the address
    # The person's data names the link too.
    archive = zipfile.ZipFile(
        io.BytesIO(client.get("/accounts/settings/data.zip").content)
    )
    linked = json.loads(archive.read("account.json"))["account"]["provider_identities"]
    assert [(i["issuer"], i["email"]) for i in linked] == [
        (configured.issuer, "grace@example.org")
    ]


def test_next_address_is_kept_across_the_provider(client, catalogue, configured):
    answer = sign_in(client, configured, "grace", next_url="/accounts/settings/")
    assert answer["Location"] == "/accounts/settings/"


def test_confirmed_account_is_linked_and_keeps_its_password(
    client, catalogue, configured
):
    ada = UserFactory(username="ada_local", email="Ada@example.org")
    answer = sign_in(client, configured, "ada")
    assert answer.status_code == 302
    assert signed_in_user(client) == ada
    assert ProviderIdentity.objects.get().user == ada
    assert User.objects.filter(email__iexact="ada@example.org").count() == 1
    client.logout()
    login = {"username": "ada_local", "password": PASSWORD}
    assert client.post("/accounts/login/", login).status_code == 302
    assert signed_in_user(client) == ada
    # The second time the link is used (one identity, whatever the address).
    client.logout()
    sign_in(client, configured, "ada")
    assert signed_in_user(client) == ada
    assert ProviderIdentity.objects.count() == 1


def test_account_with_unconfirmed_address_is_not_taken_over(
    client, catalogue, configured
):
    """The provider vouches for the address, but the local owner never confirmed
    it: no link, nobody signed in."""
    local = UserFactory(username="ada_local", email="ada@example.org", verified=False)
    answer = sign_in(client, configured, "ada")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    page = client.get(answer["Location"]).content.decode()
    assert "already uses ada@example.org" in page
    assert not ProviderIdentity.objects.exists()
    assert client.get("/accounts/settings/").status_code == 302  # not signed in
    local.refresh_from_db()
    assert local.check_password(PASSWORD)


def test_address_the_provider_did_not_confirm_links_nothing(
    client, catalogue, configured
):
    """``mallory`` claims an address a local account confirmed, but the provider
    does not vouch for it (email_verified false)."""
    UserFactory(username="ada2", email="ada.unconfirmed@example.org")
    answer = sign_in(client, configured, "mallory")
    assert answer["Location"] == "/accounts/login/"
    assert not ProviderIdentity.objects.exists()
    assert client.get("/accounts/settings/").status_code == 302


def test_unconfirmed_new_address_gets_the_confirmation_link(
    client, catalogue, configured, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        sign_in(client, configured, "eve")
    user = User.objects.get(email="eve@example.org")
    assert signed_in_user(client) == user
    assert AccountProfile.objects.get(user=user).verified_at is None
    assert [message.to for message in mail.outbox] == [["eve@example.org"]]


def test_wrong_client_secret_signs_nobody_in(client, catalogue, configured, settings):
    settings.OIDC_RP_CLIENT_SECRET = "not-the-secret"
    answer = sign_in(client, configured, "grace")
    assert answer["Location"] == "/accounts/login/"
    page = client.get("/accounts/login/").content.decode()
    assert "Signing in with Test provider did not work" in page
    assert not User.objects.filter(email="grace@example.org").exists()


def test_provider_down_is_told(client, db, settings):
    settings.OIDC_ISSUER = "http://127.0.0.1:9/o"  # discard port: nothing listens
    settings.OIDC_RP_CLIENT_ID = "x"
    settings.OIDC_RP_CLIENT_SECRET = "y"
    oidc._discovered.clear()
    answer = client.get("/accounts/oidc/start/")
    assert answer["Location"] == "/accounts/login/"
    assert "did not work" in client.get("/accounts/login/").content.decode()


def test_password_login_with_a_code_in_its_address_never_asks_the_provider(
    client, catalogue, configured
):
    user = UserFactory()
    answer = client.post(
        "/accounts/login/?code=stolen&state=x",
        {"username": user.username, "password": PASSWORD},
    )
    assert answer.status_code == 302
    assert signed_in_user(client) == user


@pytest.mark.parametrize(
    "change",
    [{"aud": "another-client"}, {"iss": "http://127.0.0.1:1/o"}, {"exp": 1}],
    ids=["audience", "issuer", "expired"],
)
def test_id_token_for_someone_else_is_refused(configured, change):
    """The library checks the signature and the nonce; the wizard also checks the
    issuer, the audience and the expiry (signed with a key of our own here, the
    check is of the claims, not the signature)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    claims = {
        "iss": configured.issuer,
        "aud": "aifactory-wizard",
        "sub": "1",
        "iat": int(time.time()),
        "exp": int(time.time()) + 300,
    }
    backend = oidc.ProviderBackend()
    good = jwt.encode(claims, key, algorithm="RS256")
    assert backend._verify_jws(good, key.public_key())["sub"] == "1"
    bad = jwt.encode({**claims, **change}, key, algorithm="RS256")
    with pytest.raises(SuspiciousOperation):
        backend._verify_jws(bad, key.public_key())


@pytest.mark.parametrize(
    ("language", "words"),
    [("de", "Anmelden mit Test provider"), ("fr", "Se connecter avec Test provider")],
)
def test_the_button_speaks_the_persons_language(
    client, db, configured, language, words
):
    page = client.get("/accounts/login/", headers={"Accept-Language": language})
    assert words in page.content.decode()


def test_a_provider_account_may_add_a_password_and_delete_itself(
    client, catalogue, configured
):
    """An account made through the provider has no password: it may set one
    (without an old one) and then sign in either way; deleting it asks for its
    username instead."""
    sign_in(client, configured, "grace")
    page = client.get("/accounts/password_change/").content.decode()
    assert 'name="old_password"' not in page and 'name="new_password1"' in page
    chosen = "a-local-password-9931"
    answer = client.post(
        "/accounts/password_change/",
        {"new_password1": chosen, "new_password2": chosen},
    )
    assert answer.status_code == 302
    client.post("/accounts/logout/")
    login = {"username": "grace", "password": chosen}
    assert client.post("/accounts/login/", login).status_code == 302
    client.post("/accounts/logout/")

    User.objects.filter(username="grace").update(password="!unusable")
    sign_in(client, configured, "grace")
    page = client.get("/accounts/settings/delete/").content.decode()
    assert "Type your username to confirm." in page
    wrong = client.post("/accounts/settings/delete/", {"password": "someone"})
    assert "That is not your username" in wrong.content.decode()
    client.post("/accounts/settings/delete/", {"password": "grace"})
    assert not User.objects.filter(username="grace").exists()
    assert not ProviderIdentity.objects.exists()


@pytest.mark.parametrize(
    ("environment", "problem"),
    [
        ({"issuer": "http://id.example.eu/realms/x"}, "must be an https://"),
        ({"client_id": ""}, "DJANGO_OIDC_CLIENT_ID must be set"),
        ({"client_secret": ""}, "DJANGO_OIDC_CLIENT_SECRET must be set"),
        ({"scopes": "openid profile"}, "must include openid and email"),
        ({}, ""),
        ({"issuer": "http://127.0.0.1:8080/o"}, ""),  # loopback: a test provider
    ],
)
def test_settings_name_what_is_missing(environment, problem):
    from aifactory.env import oidc_settings_problem

    values = {
        "issuer": "https://id.example.eu/realms/x",
        "client_id": "wizard",
        "client_secret": "s3cret",
        "scopes": "openid email profile",
        **environment,
    }
    found = oidc_settings_problem(**values, debug=False)
    assert (problem in found) if problem else found == ""
