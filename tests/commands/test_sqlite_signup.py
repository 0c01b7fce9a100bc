"""Sign-up on the embedded default (issue 20): `make run` serves from a SQLite file
while the task worker polls the same file from another process. Sign-up used to
answer 503 ("database is locked") 5 times of 5: the password hash ran inside a
deferred transaction that had read, and the worker's exclusive poll made its upgrade
to a write fail at once. Here the development server and a worker polling ten times a
second share one SQLite file, with the real password hasher, and every sign-up
succeeds."""

import http.cookiejar
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIGNUPS = 5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_server(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


def _sign_up(base: str, number: int) -> tuple[int, str]:
    """One person's sign-up, as a browser does it: the page, then the form."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    page = opener.open(f"{base}/accounts/signup/", timeout=60).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token,
            "username": f"newcomer{number}",
            "email": f"newcomer{number}@example.org",
            "password1": "a long enough passphrase 42",
            "password2": "a long enough passphrase 42",
        }
    ).encode()
    try:
        with opener.open(f"{base}/accounts/signup/", form, timeout=60) as answer:
            return answer.status, answer.url
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")[:300]


def test_sign_up_succeeds_while_the_worker_polls_the_same_sqlite_file(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="aifactory.settings",  # the real password hasher
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{database}",
        PYTHONUNBUFFERED="1",
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    logs = tmp_path / "processes.log"
    with open(logs, "w") as log:
        processes = [
            subprocess.Popen(
                [sys.executable, "manage.py", "db_worker", "--no-reload"]
                + ["--no-startup-delay", "--interval=0.1"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            ),
            subprocess.Popen(
                [sys.executable, "manage.py", "runserver", "--noreload"]
                + [f"127.0.0.1:{port}"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            ),
        ]
    try:
        _wait_for_server(f"{base}/accounts/login/")
        answers = [_sign_up(base, number) for number in range(SIGNUPS)]
        assert all(process.poll() is None for process in processes)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
    statuses = [status for status, _ in answers]
    assert answers == [(200, f"{base}/accounts/signup/sent/")] * SIGNUPS, (
        f"sign-up statuses {statuses}\n{logs.read_text()[-3000:]}"
    )
    with sqlite3.connect(database) as db:
        stored = db.execute(
            "SELECT COUNT(*) FROM auth_user WHERE username LIKE 'newcomer%'"
        ).fetchone()[0]
    assert stored == SIGNUPS
