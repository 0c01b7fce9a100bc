r"""One log line per request, with a request id that the error page shows.

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
collector; the default is plain text (:class:`TextFormatter`).

A logged value cannot forge a line. In text, a record's first line is escaped as a
whole after formatting, so every value put into it, by any logger, is escaped: every
character that ``repr()`` escapes (C0 and C1 controls, DEL, U+2028/U+2029, bidi and
other format characters, unassigned code points) is written as ``\r``, ``\x1b``,
``\u2028``..., and a backslash as ``\\``, so the line reads back one way. The one
legitimate multi-line part is a traceback (or a stack): its lines follow the first
line indented by two spaces, each escaped the same way but for the backslash (source
lines quote escape sequences), so a line that starts at the left margin is always the
start of a record, even when an exception's own text spans lines. In JSON, a record is
one object on one line of ASCII (``json.dumps`` escapes every control and non-ASCII
character), values exactly as logged.

A client error (a record about a 4xx answer: Django's ``status_code``, for a
``BadRequest`` or a ``SuspiciousOperation``) is written without its traceback: one
line with the reason, the path and the request id. A server error keeps it.
"""

import contextvars
import json
import logging
import math
import re
import time
import uuid

from django.core.signals import request_finished

from aifactory import health, metrics

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
        # Django's lines about a request carry it; the development server's own
        # lines carry its socket there instead, which has no path to mask.
        path = getattr(getattr(record, "request", None), "path", None)
        if isinstance(path, str) and isinstance(record.args, tuple):
            masked = route_of(record.request)
            if path != masked:
                record.args = tuple(
                    masked if arg == path else arg for arg in record.args
                )
        return True


def escape(text: str, *, backslash: bool = True) -> str:
    """``text`` with every character that ``repr()`` escapes (controls, line and
    paragraph separators, format characters) written as its escape, and a backslash
    doubled unless ``backslash`` is false; other text (accents, CJK) as it is."""
    if text.isprintable() and not (backslash and "\\" in text):
        return text
    return "".join(_escaped(ch, backslash) for ch in text)


def _escaped(ch: str, backslash: bool) -> str:
    if ch == "\\":
        return "\\\\" if backslash else ch
    if ch.isprintable():
        return ch
    return ch.encode("unicode_escape").decode("ascii")


def is_client_error(record: logging.LogRecord) -> bool:
    """Whether the record is about a 4xx answer (Django puts ``status_code`` on its
    records about a response): the client's mistake, not a bug to trace."""
    status = getattr(record, "status_code", None)
    return isinstance(status, int) and 400 <= status < 500


# Continuation lines (a traceback, a stack) start with this; a record's first line
# never does.
INDENT = "  "


class TextFormatter(logging.Formatter):
    """The configured format on one escaped line, then the traceback (none for a
    client error) and the stack, indented; see the module's docstring."""

    def format(self, record):
        record.message = record.getMessage()
        if self.usesTime():
            record.asctime = self.formatTime(record, self.datefmt)
        lines = [escape(self.formatMessage(record))]
        trace = _traceback(self, record)
        if trace:
            lines.extend(trace.split("\n"))
        if record.stack_info:
            lines.extend(self.formatStack(record.stack_info).split("\n"))
        return "\n".join(
            [lines[0], *(INDENT + escape(line, backslash=False) for line in lines[1:])]
        )


def _traceback(formatter: logging.Formatter, record: logging.LogRecord) -> str:
    """The record's traceback, formatted once (``exc_text``, as logging caches it),
    or ``""`` when it has none or is a client error."""
    if is_client_error(record):
        return ""
    if record.exc_info and not record.exc_text:
        record.exc_text = formatter.formatException(record.exc_info)
    return record.exc_text or ""


# Attributes every LogRecord has are written by name or not at all; so is the request
# Django attaches to its records (its repr holds the whole path, login links too).
_UNWRITTEN = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request"}


def _json_value(value):
    # NaN and Infinity are not JSON.
    return (
        str(value) if isinstance(value, float) and not math.isfinite(value) else value
    )


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id, the
    fields given with ``extra=`` (method, route, status, duration_ms) and the
    traceback, if any (none for a client error). A field given with ``extra=`` never
    replaces one of the record's own."""

    def format(self, record):
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if trace := _traceback(self, record):
            entry["exception"] = trace
        for key, value in vars(record).items():
            if key not in _UNWRITTEN and not key.startswith("_"):
                entry.setdefault(key, _json_value(value))
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
        seconds = time.perf_counter() - started
        metrics.request_done(request, response.status_code, seconds)
        duration_ms = round(seconds * 1000, 1)
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
