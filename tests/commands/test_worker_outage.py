"""The task worker rides out a database outage (issue 20): ``manage.py db_worker``
runs against a throwaway PostgreSQL cluster, the cluster is stopped for a while and
started again, and the worker, still alive, delivers the mails queued before and after
the outage, logging the failures and the recovery."""

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests import pg_cluster

ROOT = Path(__file__).resolve().parents[2]
OUTAGE_SECONDS = 10  # the outage was 15 s; the worker's longest wait is 2 s

pytestmark = pytest.mark.skipif(
    pg_cluster.unavailable_reason() is not None,
    reason=f"no throwaway PostgreSQL cluster: {pg_cluster.unavailable_reason()}",
)

QUEUE_MAIL = """
from datetime import timedelta
from django.db import transaction
from django.utils import timezone
from proposals.models import OutgoingMail
from proposals.notifications import Mail
from proposals.services.mail import deliver_mail, mail_queue
subject, delay = {subject!r}, {delay!r}
with transaction.atomic():
    if delay:
        # Stored now, due in ``delay`` seconds (during the outage).
        mail = OutgoingMail.objects.create(to="a@example.org", subject=subject, body="")
        due = timezone.now() + timedelta(seconds=delay)
        deliver_mail.using(run_after=due).enqueue(mail.pk)
    else:
        mail_queue(mails=[Mail("a@example.org", subject, "Body")])
"""


@pytest.fixture
def cluster():
    cluster = pg_cluster.Cluster()
    try:
        cluster.create()
        yield cluster
    finally:
        cluster.destroy()


def _env(cluster) -> dict:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="1",
        DATABASE_URL=cluster.url,
        # The development default: mails are printed in the worker's output.
        DJANGO_EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend",
        PYTHONUNBUFFERED="1",
    )
    return env


def _manage(cluster, *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=_env(cluster),
        check=True,
        timeout=180,
        stdout=subprocess.DEVNULL,
    )


def _queue_mail(cluster, subject: str, delay: float = 0) -> None:
    _manage(cluster, "shell", "-c", QUEUE_MAIL.format(subject=subject, delay=delay))


def _status(cluster, subject: str) -> str | None:
    with psycopg.connect(cluster.url.replace("postgres://", "postgresql://")) as conn:
        row = conn.execute(
            "SELECT status FROM proposals_outgoingmail WHERE subject = %s", [subject]
        ).fetchone()
    return row[0] if row else None


def _wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_the_worker_rides_out_a_postgresql_outage(cluster, tmp_path):
    _manage(cluster, "migrate", "--noinput", "-v0")
    log_path = tmp_path / "worker.log"
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload"]
            + ["--no-startup-delay", "--interval=0.2"]
            + ["--retry-delay=0.5", "--max-retry-delay=2"],
            cwd=ROOT,
            env=_env(cluster),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _queue_mail(cluster, "Before the outage")
        _wait_until(
            lambda: _status(cluster, "Before the outage") == "sent",
            60,
            "the first mail",
        )
        # Due while the database is down.
        _queue_mail(cluster, "Due during the outage", delay=OUTAGE_SECONDS / 2)

        cluster.stop()
        time.sleep(OUTAGE_SECONDS)
        assert worker.poll() is None, log_path.read_text()
        cluster.start()

        _queue_mail(cluster, "After the outage")
        for subject in ("Due during the outage", "After the outage"):
            _wait_until(
                lambda s=subject: _status(cluster, s) == "sent",
                30,
                f"the mail {subject!r} ({log_path.read_text()})",
            )
        assert worker.poll() is None
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    output = log_path.read_text()
    failures = output.count("Database unavailable")
    # Doubling from 0.5 s, at most 2 s apart: several attempts in 10 s, each logged.
    assert failures >= 4, output
    assert "Database reachable again after" in output
    # The console backend printed all three mails.
    for subject in ("Before the outage", "Due during the outage", "After the outage"):
        assert f"Subject: {subject}" in output
