"""Where the cache lives: the settings' ``CACHES`` from the environment.

One cache (the ``default`` alias) holds the rendered charts and the data their URLs
stand for, the reference data's freshness stamp and django-ratelimit's counters
(sign-up, password reset, "send the link again", account deletion); with Redis it
also holds the sessions (``cached_db``, written to the database as well). django-axes
counts failed logins in the database (``AccessAttempt``), whatever the cache.

- ``DJANGO_CACHE_URL=redis://host:6379/0`` (or ``rediss://`` for TLS, or
  ``unix:///run/redis/redis.sock?db=0``): Django's own ``RedisCache``, one server
  shared by every instance, on this machine or several. Redis removes a key when its
  time is up or, under ``maxmemory``, by its own ``maxmemory-policy``; never because
  other keys were added.
  When Redis cannot be reached, the site goes on without it (``RedisCache``
  below): what is only a copy (sessions, kept in the database too, charts, the
  reference data's stamp) is read from where it comes from, and what needs the
  cache (the rate limits' counters) fails, answered with the 503 page that names
  the cache (aifactory/errors.py); ``/readyz`` says ``"cache": false``.
- otherwise ``DJANGO_CACHE_BACKEND``: ``db``, the database cache (shared by the
  processes of a site; when it holds ``MAX_ENTRIES`` it deletes the third of its keys
  that sort first by name, whatever their age or use), or ``locmem`` (the default:
  each process its own).
"""

from __future__ import annotations

import logging
import re
import time
from urllib.parse import urlsplit

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)

REDIS_BACKEND = "aifactory.caching.RedisCache"
DATABASE_BACKEND = "django.core.cache.backends.db.DatabaseCache"
LOCMEM_BACKEND = "django.core.cache.backends.locmem.LocMemCache"
BACKENDS = {"locmem": LOCMEM_BACKEND, "db": DATABASE_BACKEND}

# A chart (and the data its URL stands for) is kept a day after it was drawn.
TIMEOUT = 60 * 60 * 24
# The database cache's table is culled beyond this many entries (locmem's too).
MAX_ENTRIES = 2000
# The Redis connection's waits: a Redis that stops answering costs a request two
# seconds and an error, not gunicorn's whole timeout. A URL may say otherwise
# (``?socket_timeout=5``): redis-py lets the URL's options win.
REDIS_OPTIONS = {
    "socket_connect_timeout": 2,
    "socket_timeout": 2,
    # A pooled connection idle this long is checked before use, so the first request
    # after a Redis restart does not fail on a connection that Redis closed.
    "health_check_interval": 30,
}

_SCHEMES = ("redis", "rediss", "unix")
_DB_PATH = re.compile(r"/?(\d*)")


def _shown(url: str) -> str:
    """``url`` with any password replaced, for an error message."""
    parts = urlsplit(url)
    if parts.password is not None:
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{user}:***@{host}")
    query = re.sub(r"(^|&)(password=)[^&]*", r"\1\2***", parts.query)
    return parts._replace(query=query).geturl()


def redis_location(url: str) -> str:
    """``url`` (``DJANGO_CACHE_URL``; several, comma-separated, name a primary and
    its read replicas, as Django's ``RedisCache`` reads them) when redis-py can
    connect with it as meant; ``ImproperlyConfigured`` saying what is wrong
    otherwise (redis-py itself would take ``redis://host/one`` for database 0)."""
    try:
        from redis.connection import parse_url
    except ImportError as exc:  # pragma: no cover - it is in both lock files
        raise ImproperlyConfigured(
            "DJANGO_CACHE_URL needs the redis package (requirements/production.txt)."
        ) from exc
    urls = [part.strip() for part in url.split(",")]
    for one in urls:
        problem = None
        try:
            parts = urlsplit(one)
            scheme = parts.scheme.lower()
            if scheme not in _SCHEMES or not one.lower().startswith(f"{scheme}://"):
                problem = "it must start with redis://, rediss:// or unix://"
            elif scheme == "unix" and not parts.path:
                problem = "a unix:// URL names the socket's path"
            elif scheme != "unix" and not parts.hostname:
                problem = "it names no host"
            elif scheme != "unix" and not _DB_PATH.fullmatch(parts.path):
                problem = "the path is the database's number (/0 to /15 by default)"
            else:
                parts.port  # noqa: B018 - raises ValueError for a bad port
                parse_url(one)
        except ValueError as exc:
            problem = str(exc)
        if problem:
            reason = problem.rstrip(".")
            raise ImproperlyConfigured(
                f"DJANGO_CACHE_URL {_shown(one)!r} is not a Redis URL: {reason}. "
                "Examples: redis://127.0.0.1:6379/0, "
                "rediss://:PASSWORD@cache.example.eu:6380/0, "
                "unix:///run/redis/redis-server.sock?db=0."
            )
    return ",".join(urls)


def caches(*, url: str, backend: str, key_prefix: str) -> dict:
    """Django's ``CACHES`` for ``DJANGO_CACHE_URL`` (Redis when set) or else
    ``DJANGO_CACHE_BACKEND``; ``key_prefix`` (``DJANGO_CACHE_KEY_PREFIX``) begins
    every Redis key, so sites that share a Redis database keep apart."""
    if url:
        if backend:
            raise ImproperlyConfigured(
                "Set DJANGO_CACHE_URL (Redis) or DJANGO_CACHE_BACKEND (locmem, db), "
                "not both: remove DJANGO_CACHE_BACKEND."
            )
        if not key_prefix.strip():
            raise ImproperlyConfigured(
                "DJANGO_CACHE_KEY_PREFIX must not be empty with DJANGO_CACHE_URL: "
                "it keeps this site's keys apart from another's in the same Redis."
            )
        return {
            "default": {
                "BACKEND": REDIS_BACKEND,
                "LOCATION": redis_location(url),
                "KEY_PREFIX": key_prefix,
                "TIMEOUT": TIMEOUT,
                "OPTIONS": dict(REDIS_OPTIONS),
            }
        }
    chosen = backend or "locmem"
    if chosen not in BACKENDS:
        hint = " (Redis: DJANGO_CACHE_URL=redis://...)" if "redis" in chosen else ""
        raise ImproperlyConfigured(
            f"DJANGO_CACHE_BACKEND must be locmem or db, not {backend!r}{hint}."
        )
    return {
        "default": {
            "BACKEND": BACKENDS[chosen],
            "LOCATION": "aifactory_cache",
            "TIMEOUT": TIMEOUT,
            "OPTIONS": {"MAX_ENTRIES": MAX_ENTRIES},
        }
    }


def cache_unavailable_errors() -> tuple[type[BaseException], ...]:
    """redis-py's errors for "the server cannot be reached or did not answer in
    time", as opposed to a wrong command; empty when redis is not installed."""
    try:
        import redis
    except ImportError:  # pragma: no cover - it is in both lock files
        return ()
    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


class CacheUnavailable(Exception):
    """The cache cannot be reached and the operation cannot do without it."""


# While Redis does not answer, a process asks it again only after this many seconds:
# a Redis that hangs (not one that refuses at once) would otherwise cost every cache
# read of every request ``socket_timeout`` seconds.
RETRY_AFTER_SECONDS = 5


class RedisCache(DjangoRedisCache):
    """Django's ``RedisCache`` that a Redis outage does not turn into server errors.

    Reads and writes of what is only a copy (``get``, ``set``, ``delete``, their
    ``_many`` forms, ``has_key``, ``touch``) answer "not there" / do nothing when
    Redis cannot be reached, so the callers fall back to the source: ``cached_db``
    sessions to the database (nobody is signed out), a chart is drawn again, the
    reference data is read from the database. ``add`` and ``incr`` (the rate
    limits' counters) raise :class:`CacheUnavailable` instead: a limit that cannot
    be counted must not let everything through. After a failure the process leaves
    Redis alone for ``RETRY_AFTER_SECONDS``; the first failure of an outage is
    logged with its reason, and the first success after it."""

    _down_until = 0.0  # monotonic; shared by the process's copies of the cache

    def _down(self) -> bool:
        return time.monotonic() < RedisCache._down_until

    def _failed(self, exc: BaseException) -> None:
        if not RedisCache._down_until:
            logger.error("Redis cache unavailable, going on without it: %s", exc)
        RedisCache._down_until = time.monotonic() + RETRY_AFTER_SECONDS

    def _answered(self) -> None:
        if RedisCache._down_until:
            RedisCache._down_until = 0.0
            logger.warning("Redis cache reachable again")

    def _copy(self, method, *args, missing=None, **kwargs):
        if self._down():
            return missing
        try:
            result = method(*args, **kwargs)
        except cache_unavailable_errors() as exc:
            self._failed(exc)
            return missing
        self._answered()
        return result

    def _needed(self, method, *args, **kwargs):
        if self._down():
            raise CacheUnavailable("the Redis cache is not answering")
        try:
            result = method(*args, **kwargs)
        except cache_unavailable_errors() as exc:
            self._failed(exc)
            raise CacheUnavailable(str(exc)) from exc
        self._answered()
        return result

    def ping(self) -> bool:
        """Redis answers now (``/readyz``), whatever the process last saw."""
        try:
            answered = bool(self._cache.get_client(None).ping())
        except cache_unavailable_errors():
            return False
        if answered:
            self._answered()
        return answered

    def get(self, key, default=None, version=None):
        return self._copy(super().get, key, default, version, missing=default)

    def get_many(self, keys, version=None):
        return self._copy(super().get_many, keys, version, missing={})

    def has_key(self, key, version=None):
        return self._copy(super().has_key, key, version, missing=False)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._copy(super().set, key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        failed = list(data)
        return self._copy(super().set_many, data, timeout, version, missing=failed)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._copy(super().touch, key, timeout, version, missing=False)

    def delete(self, key, version=None):
        return self._copy(super().delete, key, version, missing=False)

    def delete_many(self, keys, version=None):
        self._copy(super().delete_many, keys, version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._needed(super().add, key, value, timeout, version)

    def incr(self, key, delta=1, version=None):
        return self._needed(super().incr, key, delta, version)

    def clear(self):
        return self._needed(super().clear)
