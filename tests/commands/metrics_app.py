"""A WSGI application for test_gunicorn_conf.py: each request counts as an autosave
in aifactory/metrics.py, the way the wizard's are, and answers with the worker's
slot and process id."""

import os
from types import SimpleNamespace

from aifactory import metrics


def application(environ, start_response):
    request = SimpleNamespace()
    metrics.time_as_autosave(request)
    metrics.request_done(request, 200, 0.01)
    body = f"{os.environ.get(metrics.SLOT)} {os.getpid()}".encode()
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [body]
