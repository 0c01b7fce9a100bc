"""Sign-in with an OpenID Connect provider (MyAccessID for EuroHPC users, a hosting
site's Keycloak), through mozilla-django-oidc: its views run the authorization code
flow (state, nonce, PKCE); this module adds what it leaves to the site.

- The provider is named by its issuer alone (``DJANGO_OIDC_ISSUER``): its endpoints
  come from its discovery document, read when a sign-in needs them and kept for an
  hour, never at start (a provider that is down stops no instance).
- The ID token's signature, issuer, audience and expiry are checked (the library
  checks the signature and the nonce only), and the userinfo's ``sub`` must be the
  token's.
- Which account the person gets is decided by ``services.account_from_provider``:
  the one linked to this provider identity, or the account whose confirmed address
  the provider vouches for (``email_verified``), or a new one.

Unconfigured (no issuer), the views answer 404 and the backend nothing.
"""

import logging
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import jwt
import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from django.http import Http404
from django.shortcuts import redirect, resolve_url
from django.utils.translation import gettext as _
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

logger = logging.getLogger(__name__)

# How long a discovery document is kept (a provider that rotates endpoints is rare;
# its signing keys are read on every sign-in).
DISCOVERY_KEPT_SECONDS = 3600


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be read or is not usable."""


@dataclass(frozen=True)
class Provider:
    """What the discovery document says (OpenID Connect Discovery 1.0)."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    jwks_uri: str


_lock = threading.Lock()
_discovered: dict[str, tuple[float, Provider]] = {}


def enabled() -> bool:
    """Whether the site offers sign-in with a provider."""
    return bool(settings.OIDC_ISSUER)


def label() -> str:
    """The provider's name on the button: ``DJANGO_OIDC_LABEL``, else its host."""
    return settings.OIDC_LABEL or (urlsplit(settings.OIDC_ISSUER).hostname or "")


def _same_issuer(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")


def provider() -> Provider:
    """The configured provider's endpoints, from its discovery document (kept for
    ``DISCOVERY_KEPT_SECONDS`` in this process)."""
    issuer = settings.OIDC_ISSUER
    now = time.monotonic()
    with _lock:
        kept = _discovered.get(issuer)
    if kept is not None and now - kept[0] < DISCOVERY_KEPT_SECONDS:
        return kept[1]
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        answer = requests.get(url, timeout=settings.OIDC_TIMEOUT)
        answer.raise_for_status()
        document = answer.json()
        found = Provider(
            issuer=document["issuer"],
            authorization_endpoint=document["authorization_endpoint"],
            token_endpoint=document["token_endpoint"],
            userinfo_endpoint=document["userinfo_endpoint"],
            jwks_uri=document["jwks_uri"],
        )
    except (requests.RequestException, ValueError, KeyError, TypeError) as exc:
        raise ProviderUnavailable(f"{url}: {exc}") from exc
    if not _same_issuer(found.issuer, issuer):
        # Discovery 1.0, section 4.3: the document must be the issuer's own.
        raise ProviderUnavailable(f"{url} names the issuer {found.issuer!r}")
    with _lock:
        _discovered[issuer] = (now, found)
    return found


def _email_verified(claims: dict) -> bool:
    """Whether the provider vouches for the address (some send the string)."""
    value = claims.get("email_verified")
    return value is True or (isinstance(value, str) and value.lower() == "true")


class ProviderBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend with the endpoints from discovery (looked up
    only during a sign-in: Django makes a backend on every request of a person who
    signed in with it), the ID token checked in full, and the account chosen by
    ``services.account_from_provider``."""

    OIDC_RP_IDP_SIGN_KEY = None

    def __init__(self, *args, **kwargs):
        # Not the library's: it reads every endpoint here.
        self.UserModel = get_user_model()

    @property
    def OIDC_RP_CLIENT_ID(self):  # noqa: N802 (the library's attribute names)
        return settings.OIDC_RP_CLIENT_ID

    @property
    def OIDC_RP_CLIENT_SECRET(self):  # noqa: N802
        return settings.OIDC_RP_CLIENT_SECRET

    @property
    def OIDC_RP_SIGN_ALGO(self):  # noqa: N802
        return settings.OIDC_RP_SIGN_ALGO

    @property
    def OIDC_OP_TOKEN_ENDPOINT(self):  # noqa: N802
        return provider().token_endpoint

    @property
    def OIDC_OP_USER_ENDPOINT(self):  # noqa: N802
        return provider().userinfo_endpoint

    @property
    def OIDC_OP_JWKS_ENDPOINT(self):  # noqa: N802
        return provider().jwks_uri

    def authenticate(self, request, **kwargs):
        # Only the callback view passes a nonce; a password login (which may carry
        # ``?code=`` in its address) never reaches the provider.
        if not enabled() or request is None or "nonce" not in kwargs:
            return None
        if "password" in kwargs:
            return None
        return super().authenticate(request, **kwargs)

    def _verify_jws(self, payload, key):
        """The signature with the configured algorithm only, and the claims that
        make the token this sign-in's: issued by the provider, for this client,
        not expired (a minute's leeway for clocks)."""
        try:
            algorithm = jwt.get_unverified_header(payload).get("alg")
        except jwt.InvalidTokenError as exc:
            raise SuspiciousOperation(f"ID token unreadable: {exc}") from exc
        if algorithm != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation(
                f"ID token signed with {algorithm!r}, not {self.OIDC_RP_SIGN_ALGO!r}"
            )
        try:
            return jwt.decode(
                payload,
                key,
                algorithms=[algorithm],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=provider().issuer,
                leeway=60,
                options={"require": ["iss", "aud", "sub", "exp", "iat"]},
            )
        except jwt.InvalidTokenError as exc:
            raise SuspiciousOperation(f"ID token refused: {exc}") from exc

    def get_userinfo(self, access_token, id_token, payload):
        claims = super().get_userinfo(access_token, id_token, payload)
        # OpenID Connect Core 5.3.2: the userinfo is only this person's when its
        # ``sub`` is the ID token's.
        if str(claims.get("sub")) != str(payload.get("sub")):
            raise SuspiciousOperation("userinfo sub differs from the ID token's")
        return claims

    def get_or_create_user(self, access_token, id_token, payload):
        from proposals import services
        from proposals.domain.numbers import format_for_languages
        from proposals.localization import browser_languages

        claims = self.get_userinfo(access_token, id_token, payload)
        try:
            return services.account_from_provider(
                issuer=provider().issuer,
                subject=str(payload["sub"]),
                email=str(claims.get("email") or ""),
                email_verified=_email_verified(claims),
                username=str(claims.get("preferred_username") or ""),
                first_name=str(claims.get("given_name") or ""),
                last_name=str(claims.get("family_name") or ""),
                number_format=format_for_languages(
                    browser_languages(self.request)
                ).name,
            )
        except services.AccountError as exc:
            messages.error(self.request, str(exc))
            return None


def _failed(request) -> None:
    """Tell the person, once, that the sign-in did not work."""
    if not any(m.level == messages.ERROR for m in messages.get_messages(request)):
        messages.error(
            request,
            _(
                "Signing in with %(provider)s did not work. Try again, or sign in "
                "with your username and password."
            )
            % {"provider": label()},
        )
    # get_messages() marked them read: keep them for the login page.
    messages.get_messages(request).used = False


class ProviderStartView(OIDCAuthenticationRequestView):
    """``/accounts/oidc/start/``: off to the provider (``?next=`` is kept)."""

    def __init__(self, *args, **kwargs):
        # Not the library's: it reads the endpoint here (at every request).
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)

    def get(self, request):
        if not enabled():
            raise Http404
        try:
            self.OIDC_OP_AUTH_ENDPOINT = provider().authorization_endpoint
        except ProviderUnavailable as exc:
            logger.warning("OpenID Connect provider unavailable: %s", exc)
            _failed(request)
            return self.login_failure()
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        return super().get(request)

    def login_failure(self):
        return redirect(settings.LOGIN_REDIRECT_URL_FAILURE)


class ProviderCallbackView(OIDCAuthenticationCallbackView):
    """``/accounts/oidc/callback/``: where the provider sends the person back (the
    redirect URI to register at the provider)."""

    def get(self, request):
        if not enabled():
            raise Http404
        try:
            return super().get(request)
        except (
            SuspiciousOperation,
            requests.RequestException,
            ProviderUnavailable,
        ) as exc:
            logger.warning("OpenID Connect sign-in refused: %s", exc)
            return self.login_failure()

    @property
    def failure_url(self):
        return resolve_url(settings.LOGIN_REDIRECT_URL_FAILURE)

    def login_failure(self):
        _failed(self.request)
        return super().login_failure()
