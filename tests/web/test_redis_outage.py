"""A Redis outage with ``DJANGO_CACHE_URL`` set (issue 33), against a real Debian
``redis-server`` on loopback that is stopped (``tests/redis_server.py``).

What it must do: ``/readyz`` answers 503 with ``"cache": false``; the pages go on,
their sessions read from the database (``cached_db``), the charts drawn again and
the reference data read from the database; the forms whose rate limit is counted in
the cache answer the 503 page that names the cache, never a 500. Before, a signed-in
page was a 500 (``cached_db`` wrote the session it had read from the database back
to Redis without catching the error), and ``/readyz`` said ready."""

import json

import pytest
import redis
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from aifactory import caching
from tests.redis_server import running_redis
from tests.web.test_row_races import autosave, load, status_of, step_url

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def redis_server():
    with running_redis() as server:
        yield server


@pytest.fixture
def on_redis(settings, redis_server):
    """The site on Redis, as ``DJANGO_CACHE_URL`` sets it; Redis running."""
    if redis_server.process.poll() is not None:
        redis_server.start()
    settings.CACHES = caching.caches(
        url=redis_server.url(5), backend="", key_prefix="aifactory-outage"
    )
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    _forget_the_outage()
    caches["default"].clear()
    yield redis_server
    if redis_server.process.poll() is not None:
        redis_server.start()
    _forget_the_outage()


def _forget_the_outage():
    """Ask Redis at once again (the process pauses its questions after a failure)."""
    if hasattr(caching, "RedisCache"):
        caching.RedisCache._down_until = 0.0


def _keys(server) -> int:
    with redis.Redis.from_url(server.url(5)) as client:
        return client.dbsize()


def _browser(user=None) -> Client:
    """A browser that sees what a person would (a 500 as a 500, not a traceback)."""
    browser = Client(raise_request_exception=False)
    if user is not None:
        browser.force_login(user)
    return browser


def _readiness(browser) -> tuple[int, dict]:
    answer = browser.get("/readyz")
    return answer.status_code, json.loads(answer.content)["checks"]


def test_readiness_names_the_cache_while_redis_is_stopped(on_redis):
    browser = _browser()
    assert _readiness(browser) == (200, {"database": True, "cache": True})
    on_redis.stop()
    assert _readiness(browser) == (503, {"database": True, "cache": False})
    on_redis.start()
    assert _readiness(browser) == (200, {"database": True, "cache": True})


def test_signed_in_pages_and_autosaves_go_on_from_the_database(
    on_redis, user, proposal
):
    browser = _browser(user)
    pages = [reverse("proposals:list"), step_url(proposal, "scalability")]
    for page in pages:  # sessions and reference data in Redis
        assert browser.get(page).status_code == 200
    on_redis.stop()
    for page in pages:
        answer = browser.get(page)
        assert answer.status_code == 200, page
        assert user.username in answer.content.decode()  # still signed in
    data = load(browser, proposal)
    answer = autosave(browser, proposal, data)
    assert answer.status_code == 200
    assert status_of(answer.content.decode()) == "saved"
    # Back again: the same session, from Redis once more.
    on_redis.start()
    _forget_the_outage()
    assert browser.get(pages[0]).status_code == 200
    assert _keys(on_redis) > 0


def test_a_rate_limited_form_answers_503_naming_the_cache(on_redis):
    browser = _browser()
    page = reverse("password_reset")
    assert browser.get(page).status_code == 200
    on_redis.stop()
    answer = browser.post(page, {"email": "someone@example.org"})
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "30"
    text = answer.content.decode()
    assert "cannot reach its cache" in text
    assert "database" not in text.split('data-testid="unavailable-service"')[1][:200]


def test_a_hung_redis_is_asked_again_only_after_a_pause(on_redis, user):
    """A process that met a failure leaves Redis alone for a few seconds, so the
    reads of one page do not each wait for a Redis that does not answer."""
    cache = caches["default"]
    on_redis.stop()
    assert cache.get("anything", "missing") == "missing"
    on_redis.start()
    # Redis is back, but this process does not ask before the pause is over...
    cache_key = "noted-while-paused"
    cache.set(cache_key, 1)
    assert _keys(on_redis) == 0
    # ...and readiness, which always asks, ends the pause.
    assert cache.ping() is True
    cache.set(cache_key, 1)
    assert cache.get(cache_key) == 1
