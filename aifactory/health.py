"""Health endpoints for a load balancer or a monitor: ``/healthz`` (the process
answers; touches no database) and ``/readyz`` (the database answers, and the cache
does: its table exists where the database cache is used, Redis answers a ``PING``
where ``DJANGO_CACHE_URL`` names it).

Readiness is about this instance only. The task queue is shared by every instance: a
backlog (PDFs at a deadline) or stopped workers would fail every instance at once and
take them all out of the load balancer, while each could serve. The queue's depth and
age are reported by ``/metrics`` (aifactory/metrics.py), answered here too.

They are answered by a middleware near the top of the stack, before the host check,
the HTTPS redirect, sessions and login: a probe sent to ``127.0.0.1:8000`` with no
``Host`` of the site and no ``X-Forwarded-Proto`` gets its answer, and nothing else.
The answer says which checks passed and nothing more (no ages, no versions, no
error text): 200 when all passed, 503 otherwise.
"""

import logging

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, connection
from django.http import HttpResponseNotAllowed, JsonResponse

from aifactory import caching, metrics

logger = logging.getLogger(__name__)

LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"


def check_database() -> bool:
    """A query reaches the database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone() == (1,)


def check_cache() -> bool:
    """Every Redis cache answers (a stopped Redis does not fail the pages, which go
    on without it, but it fails the rate-limited forms and puts every session
    read on the database), and every database cache's table exists."""
    redis_answers = all(
        caches[alias].ping()
        for alias, params in settings.CACHES.items()
        if params["BACKEND"] == caching.REDIS_BACKEND
    )
    return redis_answers and check_cache_table()


def check_cache_table() -> bool:
    """Every database cache's table exists (``manage.py createcachetable``; migrate
    creates it too). True when no cache lives in the database."""
    tables = {
        DatabaseCache(params["LOCATION"], params)._table
        for params in settings.CACHES.values()
        if params["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    }
    if not tables:
        return True
    return tables <= set(connection.introspection.table_names())


READINESS_CHECKS = {
    "database": check_database,
    "cache": check_cache,
}


def _answer(checks: dict[str, bool]) -> JsonResponse:
    healthy = all(checks.values())
    response = JsonResponse(
        {"status": "ok" if healthy else "fail", "checks": checks},
        status=200 if healthy else 503,
    )
    response.headers["Cache-Control"] = "no-store"
    # A failed check is logged above as a warning, once per check, and the request's
    # line says 503 (aifactory/requestlog.py). Mark the answer as logged so Django's
    # own "Service Unavailable" error is not logged again, which with ADMINS set would
    # mail the admins on every probe (every few seconds per instance) for the
    # whole outage. django.utils.log.log_response skips responses marked so.
    response._has_been_logged = True
    return response


def liveness(request) -> JsonResponse:
    return _answer({"process": True})


def readiness(request) -> JsonResponse:
    results = {}
    for name, check in READINESS_CHECKS.items():
        if name != "database" and not results.get("database", True):
            results[name] = False  # it needs the database, which did not answer
            continue
        try:
            results[name] = bool(check())
        except DatabaseError:
            logger.warning("Readiness check %r failed", name, exc_info=True)
            results[name] = False
    for name, ok in results.items():
        if not ok:
            logger.warning("Readiness check %r: not ready", name)
    return _answer(results)


ENDPOINTS = {
    LIVENESS_PATH: liveness,
    READINESS_PATH: readiness,
    metrics.METRICS_PATH: metrics.metrics,
}


class HealthCheckMiddleware:
    """Answer the health endpoints and /metrics before the rest of the stack sees
    the request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        endpoint = ENDPOINTS.get(request.path_info.rstrip("/") or "/")
        if endpoint is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        return endpoint(request)
