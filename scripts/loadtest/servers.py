"""Set-up: the scratch database, the users and proposals, gunicorn and the worker."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse

from .config import EXAMPLE, LOOPBACK, PDF_PROPOSALS, ROOT, fail

# --------------------------------------------------------------------------------
# Set-up: database, users, proposals, servers
# --------------------------------------------------------------------------------


def admin_url() -> urllib.parse.SplitResult:
    url = os.environ.get("LOADTEST_PG") or os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        fail(
            "needs PostgreSQL: set LOADTEST_PG=postgres://USER:PASSWORD@127.0.0.1:5432/"
            "postgres (a user allowed to create databases)"
        )
    parts = urllib.parse.urlsplit(url)
    if parts.hostname not in LOOPBACK:
        fail(
            f"refusing {parts.hostname}: the load test runs on the loopback interface only"
        )
    return parts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_database(admin: urllib.parse.SplitResult) -> tuple[str, str]:
    import psycopg

    name = f"aifactory_loadtest_{os.getpid()}"
    with psycopg.connect(urllib.parse.urlunsplit(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, urllib.parse.urlunsplit(admin._replace(path=f"/{name}"))


def drop_database(admin: urllib.parse.SplitResult, name: str):
    import psycopg

    with psycopg.connect(urllib.parse.urlunsplit(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def prepare(count: int) -> list[tuple[int, str]]:
    """Migrate, then one user, proposal and session per typist (in this process)."""
    import django
    from django.core.management import call_command

    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    from django.contrib.auth.models import User
    from django.test import Client

    from proposals import domain, services

    document = domain.loads(EXAMPLE.read_text(encoding="utf-8"))
    typists = []
    for i in range(count):
        user = User.objects.create_user(f"typist{i}", f"typist{i}@example.org", None)
        proposal = services.proposal_import(owner=user, document=document)
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        typists.append((proposal.pk, client.cookies["sessionid"].value))
    # A reader who asks for PDFs of many proposals while the typists type.
    reader = User.objects.create_user("pdf-reader", "pdf-reader@example.org", None)
    pdfs = [
        services.proposal_import(owner=reader, document=document).pk
        for _ in range(PDF_PROPOSALS)
    ]
    client = Client()
    client.force_login(reader, backend="django.contrib.auth.backends.ModelBackend")
    typists.append((pdfs, client.cookies["sessionid"].value))
    from django.db import connections

    connections.close_all()
    return typists


def workers_per_instance(instances: int) -> int:
    """gunicorn's rule of thumb, 2 x CPUs + 1 workers, is for the machine: instances
    that share one machine share it (at least 2 workers each), as docs/operators.md
    advises. ``WEB_CONCURRENCY`` overrides it."""
    return max(2, (2 * (os.cpu_count() or 1) + 1) // max(1, instances))


def start_web(env: dict, port: int, log, instances: int = 1) -> subprocess.Popen:
    """One gunicorn instance on ``port`` (``start_servers`` starts the first), one of
    ``instances`` on this machine."""
    python = sys.executable
    gunicorn = [
        python,
        "-m",
        "gunicorn",
        "-c",
        "gunicorn.conf.py",
        "--bind",
        f"127.0.0.1:{port}",
    ]
    if os.environ.get("WEB_CONCURRENCY") is None:
        gunicorn += ["--workers", str(workers_per_instance(instances))]
    # The web server also answers the baselines of ``single_typist`` (loopback only).
    web_env = {**env, "DJANGO_SETTINGS_MODULE": "tests.bench.server_settings"}
    web = subprocess.Popen(
        gunicorn, cwd=ROOT, env=web_env, stdout=log, stderr=log, start_new_session=True
    )
    wait_for_web(web, port)
    return web


def start_servers(
    env: dict, port: int, log, instances: int = 1
) -> list[subprocess.Popen]:
    web = start_web(env, port, log, instances)
    python = sys.executable
    # The task worker yields the CPU to the web workers (as README advises).
    worker = subprocess.Popen(
        ["nice", "-n", "10", python, "manage.py", "db_worker", "--no-reload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    return [web, worker]


def wait_for_web(web: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if web.poll() is not None:
            fail("gunicorn did not start; see its log above")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
            if conn.getresponse().status < 500:
                return
        except OSError:
            time.sleep(0.3)
    fail("gunicorn did not answer within 60 s")


def stop(processes: list[subprocess.Popen]):
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
