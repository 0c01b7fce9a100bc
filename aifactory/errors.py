"""Error answers: a 503 with ``Retry-After`` when the database, or the cache where
it is needed (a Redis behind ``DJANGO_CACHE_URL``: aifactory/caching.py), is
unreachable. The page names which of the two.

Our error pages (``templates/4xx.html``, ``500.html``, ``503.html``) extend
``errors/page.html``, which reads no user, session or context processor, so they render
while the database is down.
"""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, HttpResponseServerError
from django.template import loader
from django.views import defaults
from django.views.decorators.csrf import requires_csrf_token

from aifactory.caching import CacheUnavailable
from aifactory.requestlog import current_request_id

logger = logging.getLogger(__name__)

# Errors that mean "the database cannot be reached", not "this query is wrong".
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
# The cache cannot be reached and the action needs it (a rate limit's counter);
# reads of what the cache only copies never raise it.
CACHE_UNAVAILABLE = (CacheUnavailable,)
RETRY_AFTER_SECONDS = 30


def _unavailable(exception) -> str | None:
    """``"database"``, ``"cache"`` or None: what ``exception`` says is unreachable."""
    if isinstance(exception, DATABASE_UNAVAILABLE):
        return "database"
    if isinstance(exception, CACHE_UNAVAILABLE):
        return "cache"
    return None


def database_unavailable(request, service: str = "database") -> HttpResponse:
    """The 503 page, rendered without a request context (no session, no user);
    ``service`` (``database``, ``cache``) is what could not be reached."""
    content = loader.render_to_string(
        "503.html", {"retry_after": RETRY_AFTER_SECONDS, "service": service}
    )
    response = HttpResponse(content, status=503)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Answer 503 instead of 500 when a view (or the template it returns) fails because
    the database, or the cache it needs, is unreachable, in debug mode too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        service = _unavailable(exception)
        if service:
            logger.error(
                "%s unavailable while handling %s",
                service.capitalize(),
                request.path,
                exc_info=exception,
            )
            response = database_unavailable(request, service)
            # Logged just above, with the traceback. Marked so that Django does not
            # log it again as a "Service Unavailable" error, which with ADMINS set
            # mails the admins once per request (every autosave) for the whole
            # outage; a monitor on /readyz is what alerts.
            response._has_been_logged = True
            return response
        return None


@requires_csrf_token
def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """``handler500``: a database (or needed cache) outage met outside a view (for
    example while a middleware saves the session) is a 503 too; anything else is
    our 500 page."""
    service = _unavailable(sys.exc_info()[1])
    if service:
        return database_unavailable(request, service)
    # The page shows the request's id, which the log's lines about it carry.
    request_id = getattr(request, "request_id", None) or current_request_id()
    content = loader.render_to_string(template_name, {"request_id": request_id})
    return HttpResponseServerError(content)
