"""Several instances sharing one Redis (issue 33): ``DJANGO_CACHE_URL=redis://...``
read from the environment in fresh processes, two development servers (two
instances, one SQLite file between them) and Debian's ``redis-server`` on loopback
(``tests/redis_server.py``). A session made on one instance is valid on the other
and survives a Redis restart; the rate limits count across both; a wrong URL stops
the start with its reason."""

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from proposals.views.accounts import PASSWORD_RESET_RATE
from tests.commands.test_sqlite_signup import _free_port, _wait_for_server
from tests.redis_server import running_redis

ROOT = Path(__file__).resolve().parents[2]


# One worker runs the module (make test runs in parallel, --dist loadgroup):
# its redis-server and two development servers (module scope) are then started
# once, not once per worker.
pytestmark = pytest.mark.xdist_group("redis-instances")


@pytest.fixture(scope="module")
def redis_server():
    with running_redis() as server:
        yield server


PASSWORD = "a long enough passphrase 42"
SESSION_PREFIX = b"django.contrib.sessions.cached_db"

SHOW = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({"CACHES": s.CACHES, "SESSION_ENGINE": s.SESSION_ENGINE,
                  "RATELIMIT_USE_CACHE": s.RATELIMIT_USE_CACHE}))
"""


def _environment(**extra) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="1",
        PYTHONUNBUFFERED="1",
        **extra,
    )
    return env


def _run(args, **extra):
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=_environment(**extra),
        capture_output=True,
        text=True,
        timeout=300,
    )


# The settings, read from the environment ------------------------------------------


def test_a_redis_url_moves_the_cache_sessions_and_rate_limits_to_redis():
    done = _run(["-c", SHOW], DJANGO_CACHE_URL="redis://cache.example.eu:6379/2")
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    (default,) = values["CACHES"].values()
    assert (
        default["BACKEND"] == "aifactory.caching.RedisCache"
    )  # Django's, outage-proof
    assert default["LOCATION"] == "redis://cache.example.eu:6379/2"
    assert default["KEY_PREFIX"] == "aifactory"
    assert default["OPTIONS"]["socket_timeout"] > 0
    assert values["SESSION_ENGINE"] == "django.contrib.sessions.backends.cached_db"
    assert values["RATELIMIT_USE_CACHE"] == "default"
    done = _run(
        ["-c", SHOW],
        DJANGO_CACHE_URL="unix:///run/redis/redis-server.sock?db=1",
        DJANGO_CACHE_KEY_PREFIX="wizard-staging",
    )
    assert done.returncode == 0, done.stderr
    (default,) = json.loads(done.stdout)["CACHES"].values()
    assert default["KEY_PREFIX"] == "wizard-staging"


@pytest.mark.parametrize(
    "backend, expected",
    [("", "locmem.LocMemCache"), ("db", "db.DatabaseCache")],
)
def test_without_a_redis_url_nothing_changes(backend, expected):
    done = _run(["-c", SHOW], DJANGO_CACHE_BACKEND=backend)
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    assert values["CACHES"]["default"]["BACKEND"].endswith(expected)
    assert values["CACHES"]["default"]["OPTIONS"] == {"MAX_ENTRIES": 2000}
    assert values["SESSION_ENGINE"] == "django.contrib.sessions.backends.db"


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"DJANGO_CACHE_URL": "http://cache.example.eu"}, "must start with redis://"),
        ({"DJANGO_CACHE_URL": "redis://cache.example.eu/cache"}, "database's number"),
        ({"DJANGO_CACHE_URL": "redis://cache.example.eu:99999/0"}, "Port out of range"),
        ({"DJANGO_CACHE_URL": "redis:///0"}, "names no host"),
        ({"DJANGO_CACHE_URL": "unix://"}, "names the socket's path"),
        (
            {"DJANGO_CACHE_URL": "redis://h/0", "DJANGO_CACHE_BACKEND": "db"},
            "not both",
        ),
        ({"DJANGO_CACHE_BACKEND": "redis"}, "DJANGO_CACHE_URL=redis://"),
        (
            {"DJANGO_CACHE_URL": "redis://h/0", "DJANGO_CACHE_KEY_PREFIX": ""},
            "DJANGO_CACHE_KEY_PREFIX must not be empty",
        ),
    ],
)
def test_a_wrong_cache_setting_stops_the_start_with_its_reason(extra, message):
    done = _run(["manage.py", "check"], **extra)
    assert done.returncode != 0
    assert message in done.stderr


def test_a_password_in_a_wrong_url_is_not_printed():
    done = _run(["-c", SHOW], DJANGO_CACHE_URL="redis://:hunter2-secret@h/x")
    assert done.returncode != 0
    assert "database's number" in done.stderr
    assert "hunter2-secret" not in done.stderr


# Two instances, one Redis ----------------------------------------------------------


@pytest.fixture(scope="module")
def instances(redis_server, tmp_path_factory):
    """Two development servers sharing one SQLite file and one Redis; a user."""
    directory = tmp_path_factory.mktemp("instances")
    env = dict(
        DATABASE_URL=f"sqlite:///{directory / 'db.sqlite3'}",
        DJANGO_CACHE_URL=redis_server.url(0),
    )
    migrated = _run(["manage.py", "migrate", "--noinput", "-v0"], **env)
    assert migrated.returncode == 0, migrated.stderr
    made = _run(
        ["manage.py", "shell", "-c",
         "from django.contrib.auth.models import User\n"
         "for name in ('typist', 'locked'):\n"
         f"    User.objects.create_user(name, name + '@example.org', {PASSWORD!r})"],
        **env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    ports = [_free_port(), _free_port()]
    log = directory / "instances.log"
    with open(log, "w") as out:
        servers = [
            subprocess.Popen(
                [sys.executable, "manage.py", "runserver", "--noreload"]
                + [f"127.0.0.1:{port}"],
                cwd=ROOT,
                env=_environment(**env),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            for port in ports
        ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base in bases:
            _wait_for_server(f"{base}/accounts/login/")
        yield bases, log
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)


class Browser:
    """One person's browser; its cookies go to both instances (one host name)."""

    def __init__(self):
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
            _NoRedirect,
        )

    def get(self, url) -> tuple[int, str]:
        return self._open(url)

    def post(self, url, form: dict, *, token_from: str) -> tuple[int, str]:
        """The form on ``token_from``'s page (its CSRF token), posted to ``url``."""
        _, page = self.get(token_from)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token[1], **form})
        return self._open(url, data.encode())

    def _open(self, url, data=None) -> tuple[int, str]:
        try:
            with self.opener.open(url, data, timeout=60) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Location", "")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a 302 is answered as it is (its Location)


def test_a_session_is_valid_on_both_instances_and_survives_a_redis_restart(
    instances,
    redis_server,
):
    (a, b), log = instances
    browser = Browser()
    status, _ = browser.post(
        f"{a}/accounts/login/",
        {"username": "typist", "password": PASSWORD},
        token_from=f"{b}/accounts/login/",
    )
    assert status == 302, log.read_text()[-3000:]
    assert browser.get(f"{b}/proposals/")[0] == 200
    # The session is read from Redis (cached_db) ...
    assert SESSION_PREFIX in redis_server.command(b"KEYS", b"*")
    # ... and written to the database too: a restart (Redis keeps nothing on disk
    # here) signs nobody out, on either instance.
    redis_server.restart()
    assert redis_server.keys() == 0
    assert browser.get(f"{a}/proposals/")[0] == 200
    assert browser.get(f"{b}/proposals/")[0] == 200
    # Read from the database once, and kept in Redis again.
    assert SESSION_PREFIX in redis_server.command(b"KEYS", b"*")


def test_the_reset_limit_counts_requests_on_both_instances(instances):
    (a, b), log = instances
    allowed = int(PASSWORD_RESET_RATE.split("/")[0])
    browser = Browser()
    answers = [
        browser.post(
            f"{(a, b)[n % 2]}/accounts/password_reset/",
            {"email": f"nobody{n}@example.org"},
            token_from=f"{(b, a)[n % 2]}/accounts/password_reset/",
        )[0]
        for n in range(allowed + 1)
    ]
    assert answers == [302] * allowed + [429], log.read_text()[-3000:]


def test_a_login_locked_on_one_instance_is_locked_on_the_other(instances):
    """django-axes counts failed logins in the database: shared with or without
    Redis, and the lock keeps the right password out on the other instance too."""
    (a, b), log = instances
    browser = Browser()
    url = "/accounts/login/"
    wrong = [
        browser.post(
            f"{(a, b)[n % 2]}{url}",
            {"username": "locked", "password": "wrong"},
            token_from=f"{a}{url}",
        )[0]
        for n in range(5)
    ]
    assert set(wrong) <= {200, 429}, log.read_text()[-3000:]
    right = browser.post(
        f"{b}{url}",
        {"username": "locked", "password": PASSWORD},
        token_from=f"{a}{url}",
    )
    assert right[0] == 429
    assert browser.get(f"{a}/proposals/")[0] == 302  # not signed in
