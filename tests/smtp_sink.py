"""A local SMTP relay for tests and for scripts/prod_stack.sh: STARTTLS with a
throwaway self-signed certificate, and login required (only after STARTTLS), like a
real relay on port 587. It keeps what it receives (in memory, and as ``.eml`` files
when given a directory).

Used as a module (``SmtpSink``) or from the shell:

    python -m tests.smtp_sink --port 2525 --user relay --password secret \\
        --certdir DIR --maildir DIR

The certificate (``DIR/cert.pem``, for ``localhost`` and ``127.0.0.1``) is what a
client must trust: Django's SMTP backend verifies the relay's certificate against
the system's CAs, which ``SSL_CERT_FILE=DIR/cert.pem`` replaces for the process.
"""

import argparse
import signal
import socket
import ssl
import subprocess
import threading
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate and key for localhost, valid for a day."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-days", "1",
            "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _Keeper:
    def __init__(self, maildir: Path | None):
        self.messages: list[dict] = []
        self.maildir = maildir
        self.received = threading.Event()

    async def handle_DATA(self, server, session, envelope):
        message = {
            "from": envelope.mail_from,
            "to": list(envelope.rcpt_tos),
            "data": envelope.content.decode("utf-8", "replace"),
            "tls": session.ssl is not None,
            "login": session.auth_data if session.authenticated else None,
        }
        self.messages.append(message)
        if self.maildir is not None:
            path = self.maildir / f"{len(self.messages):04d}.eml"
            path.write_text(message["data"], encoding="utf-8")
        self.received.set()
        return "250 Message accepted for delivery"


class SmtpSink:
    """Start with ``start()``, stop with ``stop()``; ``messages`` holds what came."""

    def __init__(self, *, user, password, certdir: Path, port=None, maildir=None):
        self.user, self.password = user, password
        self.port = port or free_port()
        self.cert, key = make_certificate(Path(certdir))
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(self.cert, key)
        self.keeper = _Keeper(Path(maildir) if maildir else None)
        if self.keeper.maildir:
            self.keeper.maildir.mkdir(parents=True, exist_ok=True)
        self.controller = Controller(
            self.keeper,
            hostname="127.0.0.1",
            port=self.port,
            server_hostname="localhost",
            tls_context=tls,
            require_starttls=True,
            authenticator=self._authenticate,
            auth_required=True,
            auth_require_tls=True,
        )

    @property
    def messages(self) -> list[dict]:
        return self.keeper.messages

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and (
            auth_data.login.decode(),
            auth_data.password.decode(),
        ) == (self.user, self.password)
        return AuthResult(success=ok, handled=False, auth_data=auth_data.login.decode())

    def start(self):
        self.controller.start()
        return self

    def stop(self):
        self.controller.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--certdir", type=Path, required=True)
    parser.add_argument("--maildir", type=Path, required=True)
    args = parser.parse_args()
    sink = SmtpSink(
        user=args.user,
        password=args.password,
        certdir=args.certdir,
        port=args.port,
        maildir=args.maildir,
    ).start()
    print(f"SMTP sink on 127.0.0.1:{sink.port} (STARTTLS, login)", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    sink.stop()


if __name__ == "__main__":
    main()
