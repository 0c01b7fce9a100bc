"""Sign-in with OpenID Connect on the production stack (docs/operators.md, "Sign-in
with an OpenID Connect provider"): the real provider the web tests use
(django-oauth-toolkit as its own Django project on loopback, tests/oidc_server.py),
both instances configured for it with DJANGO_OIDC_* only, and a person signed in
through nginx as a browser would do it: the login page's "Sign in with" link, the
authorization code flow with PKCE, the provider's own sign-in page, the callback,
each redirect followed by one cookie-keeping HTTP client. Then the session that
sign-in made reaches a signed-in page on each instance."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter

from tests.oidc_server import CLIENT_ID, CLIENT_SECRET, PASSWORD, OIDCProvider

from .common import check
from .pages import Browser, form_with
from .stack import Stack

LABEL = "Prodcheck provider"
PERSON = "grace"  # tests/oidc_server.PEOPLE: a new person, address confirmed
PERSON_EMAIL = "grace@example.org"


def start_provider(stack: Stack) -> OIDCProvider:
    """The provider, with the wizard's callback through nginx registered, and the
    instances' environment (``stack.env``) given DJANGO_OIDC_* for it."""
    callback = f"https://localhost:{stack.https_port}/accounts/oidc/callback/"
    directory = stack.dir / "oidc-provider"  # removed with the stack
    directory.mkdir()
    provider = OIDCProvider(redirect_uris=[callback], directory=directory)
    provider.start()
    stack.processes["oidc-provider"] = provider.process  # stopped with the stack
    stack.extra_logs.append(provider.dir / "provider.log")
    # What the operator puts in /etc/aifactory/env (docs/operators.md).
    stack.oidc_env = {
        "DJANGO_OIDC_ISSUER": provider.issuer,
        "DJANGO_OIDC_CLIENT_ID": CLIENT_ID,
        "DJANGO_OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "DJANGO_OIDC_LABEL": LABEL,
    }
    return provider


class _Trusting(HTTPAdapter):
    """Trusts what ``context`` trusts (urllib3's own context refuses the stack's
    self-signed certificate as a CA)."""

    def __init__(self, context):
        self.context = context
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["ssl_context"] = self.context
        return super().init_poolmanager(*args, **kwargs)


def _hops(answer: requests.Response) -> list[str]:
    return [r.url for r in [*answer.history, answer]]


def oidc_sign_in(stack: Stack, provider: OIDCProvider) -> None:
    origin = f"https://localhost:{stack.https_port}"
    client = requests.Session()  # the person's browser: one cookie jar, both hosts
    client.mount(origin, _Trusting(Browser(stack).tls))  # nginx's own certificate
    login = client.get(f"{origin}/accounts/login/?next=/proposals/", timeout=30)
    check(login.status_code == 200, f"the login page answered {login.status_code}")
    link = re.search(r'href="(/accounts/oidc/start/[^"]*)"', login.text)
    check(
        link and f"Sign in with {LABEL}" in login.text,
        "the login page offers no sign-in with the provider (DJANGO_OIDC_* unread?)",
    )
    at_provider = client.get(origin + html.unescape(link.group(1)), timeout=30)
    authorize = next(
        (
            u
            for u in _hops(at_provider)
            if u.startswith(provider.issuer + "/authorize/")
        ),
        None,
    )
    check(
        authorize is not None and at_provider.url.startswith(provider.base + "/login/"),
        f"the start did not reach the provider's sign-in page: {_hops(at_provider)}",
    )
    query = parse_qs(urlsplit(authorize).query)
    check(
        query.get("code_challenge_method") == ["S256"]
        and query.get("code_challenge")
        and query.get("response_type") == ["code"],
        f"the authorization request asks no PKCE code flow: {authorize}",
    )
    action, fields = form_with(at_provider.text, "username")
    fields.update(username=PERSON, password=PASSWORD)
    done = client.post(
        urljoin(at_provider.url, action or at_provider.url),
        data=fields,
        headers={"Referer": at_provider.url},
        timeout=60,
    )
    hops = _hops(done)
    callbacks = [u for u in hops if u.startswith(f"{origin}/accounts/oidc/callback/")]
    check(
        callbacks and "code" in parse_qs(urlsplit(callbacks[0]).query),
        f"the provider did not send the person back with a code: {hops}",
    )
    check(
        done.status_code == 200 and urlsplit(done.url).path == "/proposals/",
        f"the sign-in ended at {done.url} ({done.status_code}), not /proposals/: "
        f"{hops}",
    )
    signed_in = f"Signed in as <strong>{PERSON}</strong>"
    check(signed_in in done.text, "after the callback, nobody is signed in")
    # The session the callback made, on each instance (the one that did not answer
    # the callback too).
    browser = Browser(stack)
    browser.cookies = {
        c.name: c.value for c in client.cookies if c.domain.startswith("localhost")
    }
    check("sessionid" in browser.cookies, f"no session cookie: {browser.cookies}")
    for name in stack.web_ports:
        page = browser.page("/accounts/settings/", via=name)
        check(
            signed_in in page and PERSON_EMAIL in page,
            f"{name}: the signed-in session from the provider is not signed in",
        )
