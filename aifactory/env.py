"""Small, strict readers for settings that come from the environment."""

import os
from email.utils import getaddresses

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """Return the variable's value, or ``default`` when it is unset."""
    return os.environ.get(name, default)


def env_bool(name: str, *, default: bool) -> bool:
    """Parse a boolean flag; anything but the usual spellings is a configuration error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be a boolean (1/0, true/false), not {raw!r}"
    )


def env_list(name: str, *, default: list[str]) -> list[str]:
    """Split a comma-separated variable into a list, ignoring blanks."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, *, default: int) -> int:
    """Parse a whole number (ASCII digits); anything else is a configuration error."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = raw.strip()
    if not (value.isascii() and value.isdigit()):
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}")
    return int(value)


def env_addresses(name: str) -> list[tuple[str, str]]:
    """Read comma-separated mail addresses ("Ops <ops@example.eu>, b@example.eu") as
    the (name, address) pairs of Django's ``ADMINS``; an entry without an ``@`` is a
    configuration error."""
    raw = os.environ.get(name, "")
    pairs = getaddresses([raw]) if raw.strip() else []
    for display, address in pairs:
        if "@" not in address:
            raise ImproperlyConfigured(
                f"{name} must list mail addresses, not {(display or address)!r}"
            )
    return [(display or address, address) for display, address in pairs]


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def oidc_settings_problem(
    *, issuer: str, client_id: str, client_secret: str, scopes: str, debug: bool
) -> str:
    """Why the OpenID Connect settings cannot work (``""``: they can): a client id
    and secret go with an issuer, which is an ``https://`` address (``http://`` only
    on loopback or in debug), and the scopes ask for ``openid`` and ``email``."""
    from urllib.parse import urlsplit

    parts = urlsplit(issuer)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return f"DJANGO_OIDC_ISSUER must be an https:// address, not {issuer!r}"
    if parts.scheme == "http" and not debug and parts.hostname not in _LOOPBACK:
        return f"DJANGO_OIDC_ISSUER must be an https:// address, not {issuer!r}"
    if not client_id:
        return "DJANGO_OIDC_CLIENT_ID must be set with DJANGO_OIDC_ISSUER."
    if not client_secret:
        return "DJANGO_OIDC_CLIENT_SECRET must be set with DJANGO_OIDC_ISSUER."
    if not {"openid", "email"} <= set(scopes.split()):
        return "DJANGO_OIDC_SCOPES must include openid and email."
    return ""


def dev_server_url(argv: list[str]) -> str:
    """The development server's own address when this process is ``manage.py
    runserver [addr:]port`` (``runserver 8101`` serves at http://127.0.0.1:8101, so
    its mailed links must point there), or "" for any other command."""
    if len(argv) < 2 or argv[1] != "runserver":
        return ""
    addrport = next((a for a in argv[2:] if not a.startswith("-")), "8000")
    host, _, port = addrport.rpartition(":")
    if not port.isdigit():
        return ""
    host = host.strip("[]")
    if host in ("", "0", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"
