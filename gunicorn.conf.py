"""gunicorn's settings, read by ``gunicorn`` started in this directory (or with
``-c gunicorn.conf.py``); command-line options override them.

The application is loaded once, in the arbiter, before the workers are forked
(``preload_app``): a worker started later, at boot or to replace a recycled one, is
a fork of a loaded process and serves at once, instead of importing Django, numpy
and matplotlib again (~1.4 s of CPU each, taken from the workers still serving).
Deploy new code with a restart (``systemctl restart``), not ``HUP``: with preload a
``HUP`` re-forks the old code.

A worker is warm before it takes a connection (aifactory/warmup.py): the arbiter
builds, once and before forking, what Django otherwise builds on a worker's first
requests (the URL configuration and every view module, the compiled templates of
both engines and the form widgets', the translation catalogues, the wizard's
compiled queries), so every fork inherits it, and each new worker opens its
database connection and brings the reference data up to date in
``post_worker_init``, before its first ``accept``. Measured with
``make warmup-bench``: a fresh worker's first autosave went from 16x a warm one's
to 4x (README, "Workers: preloading and recycling").
``GUNICORN_WARM_UP=0`` turns it off (to measure).

Workers are recycled after ``max_requests`` requests, staggered so that the
workers of an instance are replaced one at a time: the first worker in slot k of
n waits ``max_requests * (1 + k / n)`` requests (plus a jitter of at most a
quarter of ``max_requests / n``), its replacements ``max_requests``, so under an
even load one worker is replaced every ``max_requests / n`` requests of a worker
instead of several close together. ``GUNICORN_STAGGER=0`` goes back to
gunicorn's own random ``max_requests_jitter`` (as wide as ``max_requests``). A
recycled worker is replaced by a fork, so even a few restarts close together cost
little. PDFs are rendered by the task worker (``manage.py db_worker``), never
here; what recycling still bounds is native memory that matplotlib (the charts)
and fontconfig keep.

Each instance has its own control socket (``gunicornc``), named after its bind
address, so two instances on one machine never fight over one.

The workers of an instance count their autosaves' durations together for
``/metrics`` (aifactory/metrics.py): the arbiter makes a directory for them at start
(prometheus_client's ``PROMETHEUS_MULTIPROC_DIR``, in ``$RUNTIME_DIRECTORY`` or the
temporary directory) and removes it at exit; each worker writes in its slot
(``AIFACTORY_METRICS_SLOT``: 0 to workers - 1), and the worker that replaces a
recycled one takes its slot, so the counts go on and the files stay as many as the
workers.
"""

import os
import re
import shutil
import tempfile
import time
from itertools import count
from pathlib import Path
from random import randint


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isascii() and value.isdigit() else default


def _on(name: str) -> bool:
    return os.environ.get(name, "1").strip().lower() not in ("0", "false", "no")


def _control_socket(bind_address: str) -> str:
    """``$RUNTIME_DIRECTORY`` (systemd's ``RuntimeDirectory=``), else
    ``$XDG_RUNTIME_DIR``, else ``~/.gunicorn``: ``gunicorn-<bind>.ctl``."""
    directory = (
        os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
        or os.environ.get("XDG_RUNTIME_DIR")
        or str(Path.home() / ".gunicorn")
    )
    name = re.sub(r"[^A-Za-z0-9.]+", "-", bind_address).strip("-")
    return str(Path(directory) / f"gunicorn-{name}.ctl")


wsgi_app = "aifactory.wsgi"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
# WEB_CONCURRENCY is gunicorn's own variable for the number of workers. Each worker
# holds one database connection (see the README's connection budget).
workers = _int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1) + 1)
preload_app = os.environ.get("GUNICORN_PRELOAD", "1") not in ("0", "false", "no")
max_requests = _int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", max_requests)
# Warm the application before forking and each worker before it accepts; replace
# the workers of an instance one at a time (see above). Both on unless "0".
WARM_UP = _on("GUNICORN_WARM_UP")
STAGGER = _on("GUNICORN_STAGGER")
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 30
# Heartbeat files in memory, not on a disk that may stall.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET") or _control_socket(bind)


def on_starting(server):
    _make_metrics_directory(server)
    server.slots_started = set()  # the slots that have had a worker
    # With preload the application is loaded already, and no socket is bound yet:
    # warming here delays the instance's start, not a request.
    if WARM_UP and server.cfg.preload_app:
        from aifactory import warmup

        seconds = warmup.warm_code()
        server.log.info("Application warmed up in %d ms", seconds * 1000)


def on_exit(server):
    _remove_metrics_directory(server)


def pre_fork(server, worker):
    """No database connection opened while loading may be shared with a child."""
    if server.cfg.preload_app:
        from django.db import connections

        connections.close_all()
    _give_metrics_slot(server, worker)
    if STAGGER:
        _stagger_recycling(server, worker)


def post_fork(server, worker):
    _take_metrics_slot(server, worker)


def post_worker_init(worker):
    """Before the worker's first ``accept``: warm it (without preload, all of it;
    with preload, what a fork does not inherit). Then what it holds (Django, numpy,
    matplotlib, the catalogue, what the warm-up built) lives as long as the worker,
    so the garbage collector's full passes need not walk it again on every request
    that triggers one."""
    import gc

    if WARM_UP:
        from aifactory import warmup

        start = time.perf_counter()
        if not worker.cfg.preload_app:
            warmup.warm_code()
        warmup.warm_worker()
        worker.log.info(
            "Worker %s warmed up in %d ms (slot %s, recycled after %s requests)",
            worker.pid,
            (time.perf_counter() - start) * 1000,
            getattr(worker, "metrics_slot", "-"),
            worker.max_requests if worker.cfg.max_requests else "no",
        )
    gc.freeze()


def _stagger_recycling(server, worker):
    """Phase the workers' request limits by their slot (0 to n - 1): the first
    worker of slot k gets ``max_requests * (1 + k / n)``, a replacement
    ``max_requests``; a small jitter (a quarter of the spacing) keeps two instances
    started together from recycling in step."""
    limit = server.cfg.max_requests
    if limit <= 0:
        return
    slot = worker.metrics_slot
    spacing = limit // max(server.num_workers, 1)
    first = slot not in getattr(server, "slots_started", set())
    server.slots_started.add(slot)
    offset = slot * spacing if first else 0
    worker.max_requests = limit + offset + randint(0, spacing // 4)


# The instance's metrics directory and its workers' slots (aifactory/metrics.py).
METRICS_DIRECTORY = "PROMETHEUS_MULTIPROC_DIR"
METRICS_SLOT = "AIFACTORY_METRICS_SLOT"


def _make_metrics_directory(server):
    """A fresh, empty directory for this instance's workers, unless the operator
    named one (``PROMETHEUS_MULTIPROC_DIR``: then it is theirs to empty before a
    start, one per instance). Made before any worker is forked, which inherit it."""
    server.metrics_directory = None
    if os.environ.get(METRICS_DIRECTORY):
        return
    base = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0] or None
    directory = tempfile.mkdtemp(prefix="metrics-", dir=base)
    os.environ[METRICS_DIRECTORY] = directory
    server.metrics_directory = directory


def _remove_metrics_directory(server):
    directory = getattr(server, "metrics_directory", None)
    if directory:
        shutil.rmtree(directory, ignore_errors=True)


def _give_metrics_slot(server, worker):
    """The lowest slot no live worker holds (a replaced worker has been reaped
    before its replacement is forked, so its slot is free again)."""
    held = {getattr(w, "metrics_slot", None) for w in server.WORKERS.values()}
    worker.metrics_slot = next(slot for slot in count() if slot not in held)


def _take_metrics_slot(server, worker):
    """In the new worker: write in the slot's file, in the directory made at start
    (in an operator's own directory the process id names the file, as
    prometheus_client does by default)."""
    if getattr(server, "metrics_directory", None):
        os.environ[METRICS_SLOT] = f"worker{worker.metrics_slot}"
