"""One log line per request, with a request id that the error page shows.

The id is taken from the ``X-Request-ID`` header when the reverse proxy sends one
(nginx's ``$request_id``: see deploy/nginx/aifactory.conf) and it looks like an id,
otherwise made here; it is returned in the ``X-Request-ID`` response header, shown on
the 500 page, and written on every log record emitted while the request runs, so the
line a person reads out ("error id 3f9c...") finds the traceback in the log.

The line gives the path without its query string, and with the parts of an e-mail
confirmation or password-reset link that log a person in replaced by their names
(``/accounts/verify/<uidb64>/<token>/``): those must not end up in a log. Successful
health probes are not logged (a load balancer asks every few seconds).

``DJANGO_LOG_FORMAT=json`` writes each record as one JSON object per line for a
collector; the default is plain text.
"""

import contextvars
import json
import logging
import re
import time
import uuid

from django.core.signals import request_finished

from aifactory import health

REQUEST_ID_HEADER = "X-Request-ID"
# What we accept from the proxy: nginx's 32 hex digits, a UUID, or the like.
_VALID_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{7,63}", re.ASCII)
_current_id: contextvars.ContextVar[str] = contextvars.ContextVar(
    "request_id", default="-"
)

logger = logging.getLogger("aifactory.request")

# URL arguments that log a person in (e-mail confirmation, password reset): never
# written to a log.
SECRET_URL_ARGUMENTS = frozenset({"uidb64", "token"})


def current_request_id() -> str:
    """The id of the request being handled in this thread, or ``-``."""
    return _current_id.get()


def request_id_from(request) -> str:
    """The proxy's id when it is a plausible one, else a fresh one."""
    offered = request.headers.get(REQUEST_ID_HEADER, "")
    return offered if _VALID_ID.fullmatch(offered) else uuid.uuid4().hex


def route_of(request) -> str:
    """The request's path with the URL's secret parts (a confirmation or reset
    link's ``<uidb64>`` and ``<token>``) replaced by their names."""
    match = getattr(request, "resolver_match", None)
    secrets = {
        str(value): f"<{name}>"
        for name, value in (match.kwargs.items() if match else ())
        if name in SECRET_URL_ARGUMENTS
    }
    if not secrets:
        return request.path
    return "/".join(secrets.get(part, part) for part in request.path.split("/"))


class RequestIdFilter(logging.Filter):
    """Put the current request id on every record (``%(request_id)s``), and keep
    login links out of Django's own lines about a request ("Not Found: <path>")."""

    def filter(self, record):
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id()
        request = getattr(record, "request", None)
        if request is not None and isinstance(record.args, tuple):
            path, masked = getattr(request, "path", None), route_of(request)
            if path != masked:
                record.args = tuple(
                    masked if arg == path else arg for arg in record.args
                )
        return True


# Attributes every LogRecord has are written by name or not at all; so is the request
# Django attaches to its records (its repr holds the whole path, login links too).
_UNWRITTEN = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id, the
    fields given with ``extra=`` (method, route, status, duration_ms) and the
    traceback, if any."""

    def format(self, record):
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(
            (key, value)
            for key, value in vars(record).items()
            if key not in _UNWRITTEN and not key.startswith("_")
        )
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def _forget_request_id(**kwargs):
    _current_id.set("-")


class RequestLogMiddleware:
    """First in the stack: give the request its id, answer with it, log the line."""

    def __init__(self, get_response):
        self.get_response = get_response
        request_finished.connect(_forget_request_id, dispatch_uid=__name__)

    def __call__(self, request):
        request_id = request_id_from(request)
        request.request_id = request_id
        # Kept until the response is closed (request_finished): Django logs a 4xx
        # after the last middleware has returned.
        _current_id.set(request_id)
        started = time.perf_counter()
        response = self.get_response(request)
        response.headers[REQUEST_ID_HEADER] = request_id
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        route = route_of(request)
        probe = (request.path_info.rstrip("/") or "/") in health.ENDPOINTS
        if response.status_code == 200 and probe:
            return response  # a load balancer's probe, every few seconds
        logger.log(
            logging.ERROR if response.status_code >= 500 else logging.INFO,
            "%s %s %s %.1fms",
            request.method,
            route,
            response.status_code,
            duration_ms,
            extra={
                "method": request.method,
                "route": route,
                "status": response.status_code,
                "duration_ms": duration_ms,
            },
        )
        return response
