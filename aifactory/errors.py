"""Error answers: a 503 with ``Retry-After`` when the database is unreachable.

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

from aifactory.requestlog import current_request_id

logger = logging.getLogger(__name__)

# Errors that mean "the database cannot be reached", not "this query is wrong".
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 30


def database_unavailable(request) -> HttpResponse:
    """The 503 page, rendered without a request context (no session, no user)."""
    content = loader.render_to_string("503.html", {"retry_after": RETRY_AFTER_SECONDS})
    response = HttpResponse(content, status=503)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Answer 503 instead of 500 when a view (or the template it returns) fails because
    the database is unreachable, in debug mode too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, DATABASE_UNAVAILABLE):
            logger.error(
                "Database unavailable while handling %s",
                request.path,
                exc_info=exception,
            )
            response = database_unavailable(request)
            # Logged just above, with the traceback. Marked so that Django does not
            # log it again as a "Service Unavailable" error, which with ADMINS set
            # mails the admins once per request (every autosave) for the whole
            # outage; a monitor on /readyz is what alerts.
            response._has_been_logged = True
            return response
        return None


@requires_csrf_token
def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """``handler500``: a database outage met outside a view (for example while a
    middleware saves the session) is a 503 too; anything else is our 500 page."""
    if isinstance(sys.exc_info()[1], DATABASE_UNAVAILABLE):
        return database_unavailable(request)
    # The page shows the request's id, which the log's lines about it carry.
    request_id = getattr(request, "request_id", None) or current_request_id()
    content = loader.render_to_string(template_name, {"request_id": request_id})
    return HttpResponseServerError(content)
