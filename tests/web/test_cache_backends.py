"""The cache's backends under a deadline day's churn (issue 33), against a real
Debian ``redis-server`` on loopback (``tests/redis_server.py``).

The database cache, once it holds ``MAX_ENTRIES`` keys, deletes the third that sort
first by name, whatever their age or use. django-ratelimit's counters are named
``rl:`` and a hash, so a counter that stops a person's mailbox being flooded with
password-reset mails goes when enough other counters arrive (an attacker who rotates
client addresses, or a busy day), and the limit starts again. Redis never removes a
key because others were added: only when its time is up, or under ``maxmemory`` by
its ``maxmemory-policy``. Sessions with Redis are ``cached_db``: a Redis restart
signs nobody out."""

from types import SimpleNamespace
from unittest import mock

import django_ratelimit.core
import pytest
import redis
from django.core import mail
from django.core.cache import caches
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from aifactory import caching
from proposals import charts
from proposals.views.accounts import PASSWORD_RESET_PER_ADDRESS_RATE
from tests.factories import UserFactory
from tests.redis_server import running_redis

# One worker runs the module (make test runs in parallel, --dist loadgroup): its
# redis-server (module scope) is then started once, not once per worker.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("redis-cache")]


@pytest.fixture(scope="module")
def redis_server():
    with running_redis() as server:
        yield server


VICTIM = "victim@example.org"
# Small, so that a test fills it quickly; the culling is the same at 2,000.
MAX_ENTRIES = 30
# A deadline day in miniature: charts redrawn and resets asked for from other client
# addresses (IPv4: django-ratelimit counts an IPv6 /64 as one), each reset counted
# twice (per client address, per e-mail address).
CHURN = 120
# django-ratelimit names a counter by a hash that includes the hour's window, and the
# database cache culls by that name: with the clock held, the run is the same every
# time.
FROZEN_CLOCK = SimpleNamespace(time=lambda: 1_767_225_600.0)


def _database_cache():
    return {
        "default": {
            "BACKEND": caching.DATABASE_BACKEND,
            "LOCATION": "aifactory_cache_culling",
            "OPTIONS": {"MAX_ENTRIES": MAX_ENTRIES},
        }
    }


def _redis_cache(url):
    return caching.caches(url=url, backend="", key_prefix="aifactory-test")


@pytest.fixture(params=["database", "redis"])
def backend(request, settings):
    if request.param == "database":
        settings.CACHES = _database_cache()
        call_command("createcachetable", verbosity=0)
    else:
        server = request.getfixturevalue("redis_server")
        settings.CACHES = _redis_cache(server.url(1))
    caches["default"].clear()
    yield request.param
    caches["default"].clear()


def _reset(client, address, client_address):
    return client.post(
        reverse("password_reset"), {"email": address}, REMOTE_ADDR=client_address
    ).status_code


def _mails_to(address):
    return sum(address in message.to for message in mail.outbox)


def test_a_reset_limit_survives_the_churn_only_in_redis(client, catalogue, backend):
    UserFactory(email=VICTIM)
    allowed = int(PASSWORD_RESET_PER_ADDRESS_RATE.split("/")[0])
    with mock.patch.object(django_ratelimit.core, "time", FROZEN_CLOCK):
        answers = [
            _reset(client, VICTIM, f"192.0.2.{n}") for n in range(1, allowed + 2)
        ]
        assert answers == [302] * allowed + [429]
        assert _mails_to(VICTIM) == allowed

        for n in range(CHURN):
            charts.remember(n, f"{n:032x}", {"codes": [n]})
            assert _reset(client, f"other{n}@example.org", f"203.0.113.{n}") == 302

        again = _reset(client, VICTIM, "198.51.100.7")
    if backend == "database":
        # The bug: the counter was culled, the limit started again, a mail went.
        assert (again, _mails_to(VICTIM)) == (302, allowed + 1)
    else:
        assert (again, _mails_to(VICTIM)) == (429, allowed)


def test_chart_churn_alone_culls_charts_first_in_the_database(client, settings):
    """Why charts alone do not do it: their keys (``chart:``) sort before the
    counters' (``rl:``), so the database cache culls charts first."""
    settings.CACHES = _database_cache()
    call_command("createcachetable", verbosity=0)
    cache = caches["default"]
    cache.clear()
    with mock.patch.object(django_ratelimit.core, "time", FROZEN_CLOCK):
        assert _reset(client, VICTIM, "192.0.2.1") == 302
        counters = set(_counter_keys())
        for n in range(10 * MAX_ENTRIES):
            charts.remember(n, f"{n:032x}", {"codes": [n]})
    assert counters and counters <= set(_counter_keys())


def _counter_keys():
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM aifactory_cache_culling")
        return [key for (key,) in cursor.fetchall() if ":rl:" in key]


# Redis through Django ------------------------------------------------------------


def test_values_round_trip_through_redis_under_the_sites_prefix(settings, redis_server):
    settings.CACHES = _redis_cache(redis_server.url(2))
    cache = caches["default"]
    cache.clear()
    cache.set("chart:v1:svg:100:abc", b"<svg/>")
    assert cache.get("chart:v1:svg:100:abc") == b"<svg/>"
    assert cache.add("rl:counter", 1, 60) is True
    assert cache.incr("rl:counter") == 2
    # Django's key: prefix, version, key; another site's prefix keeps apart.
    client = redis.Redis.from_url(redis_server.url(2))
    assert client.get("aifactory-test:1:rl:counter") == b"2"
    assert 0 < client.ttl("aifactory-test:1:rl:counter") <= 60
    client.close()
    other = caching.caches(url=redis_server.url(2), backend="", key_prefix="other")
    settings.CACHES = other
    assert caches["default"].get("chart:v1:svg:100:abc") is None


@pytest.mark.parametrize(
    "engine, signed_in_after_restart",
    [
        ("django.contrib.sessions.backends.cached_db", True),
        # Why not "cache": the session lived only in Redis.
        ("django.contrib.sessions.backends.cache", False),
    ],
    ids=["cached_db", "cache"],
)
def test_a_redis_restart_signs_nobody_out_with_cached_db_sessions(
    client, user, settings, redis_server, engine, signed_in_after_restart
):
    settings.CACHES = _redis_cache(redis_server.url(3))
    settings.SESSION_ENGINE = engine
    caches["default"].clear()
    client.force_login(user)
    page = reverse("proposals:list")
    assert client.get(page).status_code == 200
    redis_server.restart()
    answer = client.get(page)
    assert (answer.status_code == 200) is signed_in_after_restart


def test_a_signed_in_page_reads_its_session_from_redis_not_the_database(
    user, settings, redis_server
):
    """cached_db: once the session is in Redis its SELECT leaves every request
    (issue 33: the session and the user were two statements on every autosave)."""
    page = reverse("proposals:list")
    statements = {}
    for engine, cache in [
        ("db", _database_cache()),
        ("cached_db", _redis_cache(redis_server.url(4))),
    ]:
        settings.SESSION_ENGINE = f"django.contrib.sessions.backends.{engine}"
        settings.CACHES = cache
        call_command("createcachetable", verbosity=0)
        browser = Client()  # its middleware reads SESSION_ENGINE once
        browser.force_login(user)
        browser.get(page)  # the first read from the database fills Redis
        with CaptureQueriesContext(connection) as captured:
            assert browser.get(page).status_code == 200
        statements[engine] = [query["sql"] for query in captured.captured_queries]
    assert any("django_session" in sql for sql in statements["db"])
    assert not any("django_session" in sql for sql in statements["cached_db"])
    assert len(statements["cached_db"]) == len(statements["db"]) - 1
