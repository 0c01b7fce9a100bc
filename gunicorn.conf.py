"""gunicorn's settings, read by ``gunicorn aifactory.wsgi`` started in this directory
(or with ``-c gunicorn.conf.py``); command-line options override them.

Workers are recycled: each one exits after ``max_requests`` requests (plus a random
``max_requests_jitter``, so they do not all restart at once) and the arbiter starts
a fresh one, so native memory that a library never returns (WeasyPrint, matplotlib,
fontconfig caches) cannot accumulate in a long-lived process. PDFs are rendered by the
task worker (``manage.py db_worker``), never here.
"""

import os


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isascii() and value.isdigit() else default


wsgi_app = "aifactory.wsgi"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
# WEB_CONCURRENCY is gunicorn's own variable for the number of workers.
workers = _int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1) + 1)
max_requests = _int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 100)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 30
# Heartbeat files in memory, not on a disk that may stall.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None


def post_worker_init(worker):
    """The application is loaded: what it holds now (Django, numpy, matplotlib, the
    catalogue) lives as long as the worker, so the garbage collector's full passes
    need not walk it again on every request that triggers one."""
    import gc

    gc.freeze()
