"""A mail whose worker is killed while it talks to the relay (issue 30), with real
``manage.py db_worker`` processes: the first worker connects to a relay that accepts
the connection and then says nothing, and is killed there (SIGKILL). Its task is left
"running" and the mail "queued". A second worker, started afterwards, sees that the
first one has not been heard of for ``TASK_WORKER_LOST_AFTER``, puts the task back in
the queue and sends the mail through a working relay.

Run on SQLite (the development database) and, where a throwaway cluster can be made,
on PostgreSQL (production's)."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests import pg_cluster
from tests.smtp_sink import SmtpSink

ROOT = Path(__file__).resolve().parents[2]
LOST_AFTER = 3  # seconds: the production default is two minutes

QUEUE_MAIL = """
from django.db import transaction
from proposals.notifications import Mail
from proposals.services.mail import mail_queue
with transaction.atomic():
    mail_queue(mails=[Mail("someone@example.org", "Killed while sending", "Body")])
"""

READ_STATE = """
from django_tasks_db.models import DBTaskResult
from proposals.models import OutgoingMail
mail = OutgoingMail.objects.get()
task = DBTaskResult.objects.get()
print("STATE", mail.status, task.status, len(task.worker_ids))
"""


class SilentRelay:
    """Accepts SMTP connections and never answers: a relay hung mid-conversation."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connected = threading.Event()
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:  # closed
                return
            self.connections.append(connection)
            self.connected.set()

    def close(self):
        self.server.close()
        for connection in self.connections:
            connection.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db.sqlite3'}"
        return
    reason = pg_cluster.unavailable_reason()
    if reason is not None:
        pytest.skip(f"no throwaway PostgreSQL cluster: {reason}")
    cluster = pg_cluster.Cluster()
    try:
        cluster.create()
        yield cluster.url
    finally:
        cluster.destroy()


def _env(database_url: str, **extra: str) -> dict:
    return dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="1",
        DATABASE_URL=database_url,
        DJANGO_TASK_WORKER_LOST_AFTER=str(LOST_AFTER),
        DJANGO_EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        DJANGO_EMAIL_HOST="localhost",
        DJANGO_DEFAULT_FROM_EMAIL="wizard@example.eu",
        **extra,
    )


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _worker(env: dict, log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload"]
            + ["--no-startup-delay", "--interval=0.2"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _state(env: dict) -> tuple[str, str, int]:
    output = _manage(env, "shell", "-c", READ_STATE)
    [line] = [line for line in output.splitlines() if line.startswith("STATE ")]
    _, mail, task, claims = line.split()
    return mail, task, int(claims)


def _stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def test_a_worker_killed_while_sending_leaves_the_mail_to_the_next_one(
    database_url, tmp_path
):
    base = _env(database_url)
    _manage(base, "migrate", "--noinput", "-v0")
    _manage(base, "shell", "-c", QUEUE_MAIL)

    silent = SilentRelay()
    first = _worker(
        # Long enough for the kill to land while the worker waits for the greeting.
        dict(base, DJANGO_EMAIL_PORT=str(silent.port), DJANGO_EMAIL_TIMEOUT="300"),
        tmp_path / "first.log",
    )
    try:
        assert silent.connected.wait(timeout=90), (tmp_path / "first.log").read_text()
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        silent.close()
    # What issue 30 found: the task still "running" for a worker that is gone, the
    # mail still "queued".
    assert _state(base) == ("queued", "RUNNING", 1)

    relay = SmtpSink(
        user="wizard", password="relay-secret", certdir=tmp_path / "tls"
    ).start()
    relay_env = dict(
        base,
        DJANGO_EMAIL_PORT=str(relay.port),
        DJANGO_EMAIL_USE_TLS="1",
        DJANGO_EMAIL_HOST_USER="wizard",
        DJANGO_EMAIL_HOST_PASSWORD="relay-secret",
        DJANGO_EMAIL_TIMEOUT="10",
        SSL_CERT_FILE=str(relay.cert),
    )
    second = _worker(relay_env, tmp_path / "second.log")
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not relay.keeper.received.is_set():
            time.sleep(0.2)
        assert relay.keeper.received.is_set(), (tmp_path / "second.log").read_text()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _state(base)[0] != "sent":
            time.sleep(0.5)
    finally:
        _stop(second)
        relay.stop()
    log = (tmp_path / "second.log").read_text()
    assert [m["to"] for m in relay.messages] == [["someone@example.org"]], log
    assert "Subject: Killed while sending" in relay.messages[0]["data"]
    # Sent and recorded as sent; the task ran twice: once by each worker.
    assert _state(base) == ("sent", "SUCCESSFUL", 2), log
    assert "back in the queue" in log
