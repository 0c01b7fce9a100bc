"""A real OpenID Connect provider on loopback for the tests (django-oauth-toolkit, in
its own process: ``tests/oidc_provider/``), with one registered client and a few
people. ``OIDCProvider(...).start()`` waits until its discovery document answers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
CLIENT_ID = "aifactory-wizard"
CLIENT_SECRET = "test-client-secret-0123456789"
PASSWORD = "provider-pass-4821"
# The people the provider knows (their password: PASSWORD).
PEOPLE = [
    # A confirmed address that a local account also holds (confirmed): linked.
    {"username": "ada", "email": "ada@example.org", "email_verified": True,
     "first_name": "Ada", "last_name": "Lovelace"},
    # A new person, address confirmed by the provider: a new account.
    {"username": "grace", "email": "grace@example.org", "email_verified": True,
     "first_name": "Grace", "last_name": "Hopper"},
    # The provider did not confirm this address.
    {"username": "mallory", "email": "ada.unconfirmed@example.org",
     "email_verified": False},
    {"username": "eve", "email": "eve@example.org", "email_verified": False},
]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class OIDCProvider:
    """The provider's process; ``issuer`` is what DJANGO_OIDC_ISSUER would say."""

    def __init__(self, *, redirect_uris: list[str], directory: Path | None = None):
        """``directory``: where its database, setup and log go (made and removed
        by the caller); a temporary one, removed by :meth:`stop`, without it."""
        self.redirect_uris = redirect_uris
        self.owns_dir = directory is None
        self.dir = directory or Path(tempfile.mkdtemp(prefix="aifactory-oidc-"))
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}/o"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def settings(self, label: str = "Test provider") -> dict:
        """The wizard's settings for this provider (as the environment gives them)."""
        return {
            "OIDC_ISSUER": self.issuer,
            "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_LABEL": label,
        }

    def start(self) -> OIDCProvider:
        setup = self.dir / "setup.json"
        people = [{**person, "password": PASSWORD} for person in PEOPLE]
        client = {"id": CLIENT_ID, "secret": CLIENT_SECRET}
        client["redirect_uris"] = self.redirect_uris
        setup.write_text(json.dumps({"client": client, "people": people}))
        self.port = _free_port()
        env = {
            **os.environ,
            "OIDC_PROVIDER_PORT": str(self.port),
            "OIDC_PROVIDER_DB": str(self.dir / "provider.sqlite3"),
            "OIDC_PROVIDER_SETUP": str(setup),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("DJANGO_SETTINGS_MODULE", None)
        self.log = open(self.dir / "provider.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.oidc_provider.serve"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        discovery = f"{self.issuer}/.well-known/openid-configuration"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if requests.get(discovery, timeout=2).ok:
                    return self
            except requests.ConnectionError:
                pass
            time.sleep(0.2)
        log = (self.dir / "provider.log").read_text(errors="replace")
        self.stop()
        raise RuntimeError(f"the test OpenID Connect provider did not start:\n{log}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None
        if getattr(self, "log", None) is not None:
            self.log.close()
        if self.owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def browser_session(self, username: str) -> requests.Session:
        """A ``requests`` session signed in at the provider as ``username`` (what a
        person's browser holds after the provider's own sign-in page)."""
        session = requests.Session()
        page = session.get(f"{self.base}/login/", timeout=10)
        page.raise_for_status()
        token = session.cookies["provider_csrftoken"]
        answer = session.post(
            f"{self.base}/login/",
            data={
                "username": username,
                "password": PASSWORD,
                "csrfmiddlewaretoken": token,
                "next": "/o/.well-known/openid-configuration",
            },
            headers={"Referer": f"{self.base}/login/"},
            timeout=10,
        )
        answer.raise_for_status()
        if "provider_session" not in session.cookies:
            raise AssertionError(f"{username} could not sign in at the provider")
        return session
