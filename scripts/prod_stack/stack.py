"""The stack: database, production virtual environment, relay, gunicorn, worker,
nginx; started, logged and stopped."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from tests import smtp_sink as sink

from . import nginx_site
from .common import (
    LOOPBACK,
    METRICS_TOKEN,
    RELAY_PASSWORD,
    RELAY_USER,
    ROOT,
    check,
    free_port,
    wait_for,
)

# --------------------------------------------------------------------------------
# The stack
# --------------------------------------------------------------------------------


class Stack:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="aifactory-prodcheck-"))
        self.dir.chmod(0o755)  # nginx's workers read the static files
        self.logs = self.dir / "logs"
        self.logs.mkdir()
        self.processes: dict[str, subprocess.Popen] = {}
        self.web_ports = {"web-a": free_port(), "web-b": free_port()}
        self.https_port, self.http_port = free_port(), free_port()
        self.smtp_port = free_port()
        self.admin = None
        self.database = None
        self.timings: list[tuple[str, float]] = []
        self.venv = self.dir / "venv"
        self.secret_key = "prodcheck-" + os.urandom(32).hex()
        self.python = self.venv / "bin" / "python"
        # DJANGO_OIDC_* once the OpenID Connect provider runs (oidc_sign_in.py).
        self.oidc_env: dict[str, str] = {}
        self.extra_logs: list[Path] = []  # logs kept outside self.logs

    # Steps are timed and named in the output.
    def step(self, name: str, action, *args):
        started = time.monotonic()
        print(f"==> {name}", flush=True)
        result = action(*args)
        took = time.monotonic() - started
        self.timings.append((name, took))
        print(f"    ok ({took:.1f} s)", flush=True)
        return result

    # -- set-up ---------------------------------------------------------------

    def database_server(self) -> urllib.parse.SplitResult:
        url = os.environ.get("PRODCHECK_PG") or os.environ.get("DATABASE_URL") or ""
        if not url.startswith(("postgres://", "postgresql://")):
            done = subprocess.run(
                ["bash", str(ROOT / "scripts" / "local_postgres.sh")],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                sys.exit(2)
            url = done.stdout.strip()
        parts = urllib.parse.urlsplit(url)
        if parts.hostname not in LOOPBACK:
            print(
                f"prodcheck: refusing {parts.hostname}: loopback only", file=sys.stderr
            )
            sys.exit(2)
        return parts

    def create_database(self):
        import psycopg

        self.admin = self.database_server()
        name = f"aifactory_prodcheck_{os.getpid()}"
        with psycopg.connect(urllib.parse.urlunsplit(self.admin), autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}"')
            c.execute(f'CREATE DATABASE "{name}"')
        self.database = name

    def drop_database(self):
        import psycopg

        if self.database is None:
            return
        with psycopg.connect(urllib.parse.urlunsplit(self.admin), autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def install(self):
        """The README's production install: the lock file, hashes required."""
        subprocess.run([sys.executable, "-m", "venv", str(self.venv)], check=True)
        self.run(
            [
                str(self.python), "-m", "pip", "install", "--quiet",
                "--require-hashes", "--no-deps", "-r",
                str(ROOT / "requirements" / "production.txt"),
            ],
            "install",
        )  # fmt: skip
        frozen = subprocess.run(
            [str(self.python), "-m", "pip", "freeze"], capture_output=True, text=True
        ).stdout.lower()
        for tool in ("pytest", "ruff", "playwright", "hypothesis", "aiosmtpd"):
            check(f"{tool}==" not in frozen, f"{tool} is in the production install")

    @property
    def env(self) -> dict[str, str]:
        """The operator's /etc/aifactory/env for this stack, and nothing else."""
        database = urllib.parse.urlunsplit(
            self.admin._replace(path=f"/{self.database}")
        )
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.dir),
            "LANG": "C.UTF-8",
            "MPLCONFIGDIR": str(self.dir / "mpl"),
            "XDG_CACHE_HOME": str(self.dir / "cache"),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": self.secret_key,
            "DJANGO_ALLOWED_HOSTS": "localhost",
            "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://localhost:{self.https_port}",
            "DJANGO_SITE_URL": f"https://localhost:{self.https_port}",
            "DATABASE_URL": database,
            "DJANGO_CACHE_BACKEND": "db",
            "DJANGO_STATIC_ROOT": str(self.dir / "static"),
            "DJANGO_BEHIND_PROXY": "1",
            "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "DJANGO_EMAIL_HOST": "localhost",
            "DJANGO_EMAIL_PORT": str(self.smtp_port),
            "DJANGO_EMAIL_USE_TLS": "1",
            "DJANGO_EMAIL_HOST_USER": RELAY_USER,
            "DJANGO_EMAIL_HOST_PASSWORD": RELAY_PASSWORD,
            "DJANGO_EMAIL_TIMEOUT": "10",
            "DJANGO_DEFAULT_FROM_EMAIL": "AI Factory wizard <wizard@example.eu>",
            "DJANGO_SERVER_EMAIL": "wizard-errors@example.eu",
            "DJANGO_ADMINS": "Operations <ops@example.eu>",
            "DJANGO_LOG_FORMAT": "json",
            # The relay's throwaway certificate is the one CA these processes trust.
            "SSL_CERT_FILE": str(self.dir / "smtp-tls" / "cert.pem"),
            "WEB_CONCURRENCY": "2",
            "DJANGO_METRICS_TOKEN": METRICS_TOKEN,
            **self.oidc_env,
        }

    def run(self, argv, log: str, env=None):
        with open(self.logs / f"{log}.log", "a") as out:
            done = subprocess.run(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        check(done.returncode == 0, f"{' '.join(map(str, argv[:4]))}... failed")

    def manage(self, *args, log="manage"):
        self.run([str(self.python), "manage.py", *args], log, env=self.env)

    def start(self, name: str, argv, env=None, cwd=ROOT):
        with open(self.logs / f"{name}.log", "a") as out:  # the child keeps it
            self.processes[name] = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_relay(self):
        self.start(
            "smtp",
            [
                sys.executable, "-m", "tests.smtp_sink",
                "--port", str(self.smtp_port),
                "--user", RELAY_USER, "--password", RELAY_PASSWORD,
                "--certdir", str(self.dir / "smtp-tls"),
                "--maildir", str(self.dir / "mail"),
            ],
        )  # fmt: skip
        wait_for(
            "the SMTP relay", lambda: (self.dir / "smtp-tls" / "cert.pem").exists()
        )
        wait_for("the SMTP relay's port", lambda: self._listening(self.smtp_port))

    @staticmethod
    def _listening(port: int) -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    def start_web(self, name: str):
        env = dict(
            self.env,
            GUNICORN_BIND=f"127.0.0.1:{self.web_ports[name]}",
            RUNTIME_DIRECTORY=str(self.dir / f"run-{name}"),
        )
        (self.dir / f"run-{name}").mkdir(exist_ok=True)
        self.start(name, [str(self.venv / "bin" / "gunicorn")], env=env)

    def start_worker(self):
        """The worker as systemd runs it (deploy/systemd/aifactory-worker@.service):
        it exits after --max-tasks and is started again."""
        loop = (
            'while :; do nice -n 10 "$0" manage.py db_worker --no-reload '
            '--max-tasks 1; echo "supervisor: worker exited ($?), restarting"; '
            "sleep 1; done"
        )
        self.start("worker", ["bash", "-c", loop, str(self.python)], env=self.env)

    def start_nginx(self):
        nginx = nginx_site.nginx_binary() or "nginx"
        site = nginx_site.render(
            upstreams=[self.web_ports["web-a"], self.web_ports["web-b"]],
            https_port=self.https_port,
            http_port=self.http_port,
            certificate=sink.make_certificate(self.dir / "tls"),
            static=self.dir / "static",
            www=self.dir / "www",
            access_log=self.logs / "nginx-access.log",
            version=nginx_site.nginx_version(nginx),
        )
        (self.dir / "site.conf").write_text(site)
        (self.dir / "nginx.conf").write_text(
            nginx_site.main_config(self.dir, self.logs, self.dir / "site.conf")
        )
        conf = ["-c", str(self.dir / "nginx.conf"), "-p", str(self.dir)]
        self.run([nginx, "-t", *conf], "nginx-test")
        self.start("nginx", [nginx, *conf, "-g", "daemon off;"])
        wait_for("nginx", lambda: self._listening(self.https_port))

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in self.processes.items():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print(f"    {name} ignored SIGTERM; killed", flush=True)
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def kill(self, name: str):
        """A crash, not a shutdown: the arbiter and its workers at once."""
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait()

    def print_logs(self):
        for log in [*sorted(self.logs.iterdir()), *self.extra_logs]:
            lines = log.read_text(errors="replace").splitlines()[-25:]
            print(f"---- {log.name} (last {len(lines)} lines)", file=sys.stderr)
            print("\n".join(lines), file=sys.stderr)

    def app_log(self, name: str) -> list[dict]:
        """The JSON lines of an instance's log (gunicorn's own lines are text)."""
        entries = []
        for line in (self.logs / f"{name}.log").read_text().splitlines():
            if line.startswith("{"):
                entries.append(json.loads(line))
        return entries
