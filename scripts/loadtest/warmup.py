"""``make warmup-bench`` (``python -m scripts.loadtest.warmup``): what a recycled
gunicorn worker costs the people typing (issue 33), with the warm-up
(``gunicorn.conf.py``) off and on, against gunicorn + a scratch PostgreSQL database
as ``make loadtest`` makes it (``LOADTEST_PG``), loopback only, bounded in time.

1. **A fresh worker's first requests against a warm one's.** One worker; a typist
   loads the optimisation step and autosaves until the worker is warm, then the
   worker is stopped (``SIGTERM``), the arbiter forks its replacement, and once it
   has had time to start (``WARMUP_SETTLE`` s, default 4) the first step page and
   the first autosave it serves are timed (each round alternates which comes
   first), ``WARMUP_ROUNDS`` times (default 6). Printed: the medians of the first
   requests against the warm medians, and their ratio.
2. **Autosaves while workers recycle.** ``WARMUP_WORKERS`` workers (default 4) that
   recycle every ``WARMUP_MAX_REQUESTS`` requests (default 40, far more often than
   in production), ``WARMUP_TYPISTS`` typists (default 12, one autosave a second
   each) for ``WARMUP_SECONDS`` (default 40): p50 / p95 / p99 / max, errors, and
   how many workers were replaced. "off" is gunicorn's own random jitter and no
   warm-up (``GUNICORN_WARM_UP=0``, ``GUNICORN_STAGGER=0``); "on" is the shipped
   configuration.

Exit status 0 when it ran (figures are printed, not judged: the machine is shared),
2 when it cannot run (no PostgreSQL).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import statistics
import tempfile
import time
from pathlib import Path

from .config import ROOT
from .rounds import percentile, run_round
from .servers import (
    admin_url,
    create_database,
    drop_database,
    free_port,
    prepare,
    start_servers,
    stop,
)
from .typist import Typist

MODES = {
    "off": {"GUNICORN_WARM_UP": "0", "GUNICORN_STAGGER": "0"},
    "on": {"GUNICORN_WARM_UP": "1", "GUNICORN_STAGGER": "1"},
}


def _number(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def _workers(arbiter: int) -> set[int]:
    try:
        text = Path(f"/proc/{arbiter}/task/{arbiter}/children").read_text()
    except OSError:
        return set()
    return {int(pid) for pid in text.split()}


def _replace_the_worker(arbiter: int, settle: float) -> None:
    """Stop the one worker; return once its replacement has had ``settle`` s."""
    (old,) = _workers(arbiter)
    os.kill(old, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = _workers(arbiter)
        if now and old not in now:
            time.sleep(settle)
            return
        time.sleep(0.05)
    raise RuntimeError("no replacement worker within 60 s")


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def _page(typist: Typist) -> None:
    status, _ = typist._request("GET")
    if status != 200:
        raise RuntimeError(f"the step page answered {status}")


def _save(typist: Typist, word: str) -> None:
    errors = len(typist.errors)
    typist.autosave(word)
    if len(typist.errors) > errors:
        raise RuntimeError(f"autosave failed: {typist.errors[-1]}")


def first_requests(sessions, env, log, rounds: int, settle: float) -> dict:
    """Median ms of the warm worker's page and autosave, and of a fresh worker's
    first ones."""
    port = free_port()
    env = {**env, "WEB_CONCURRENCY": "1", "GUNICORN_MAX_REQUESTS": "0"}
    os.environ["WEB_CONCURRENCY"] = "1"
    processes = start_servers(env, port, log)
    try:
        arbiter = processes[0].pid
        pk, session = sessions[0]
        typist = Typist(number=0, proposal=pk, session=session, port=port)
        typist.load()
        for n in range(10):
            _save(typist, f"warm{n}")
        warm = {"page": [], "autosave": []}
        for n in range(20):
            warm["page"].append(_timed(lambda: _page(typist)))
            warm["autosave"].append(_timed(lambda n=n: _save(typist, f"w{n}")))
        fresh = {"page": [], "autosave": []}
        for n in range(rounds):
            _replace_the_worker(arbiter, settle)
            typist.conn.close()  # the old worker's kept-alive connection
            order = ["page", "autosave"] if n % 2 == 0 else ["autosave", "page"]
            first = order[0]
            call = (
                (lambda: _page(typist))
                if first == "page"
                else (lambda n=n: _save(typist, f"f{n}"))
            )
            fresh[first].append(_timed(call))
            if first == "page":
                _save(typist, f"after{n}")
        return {
            kind: (statistics.median(warm[kind]), statistics.median(fresh[kind]))
            for kind in warm
        }
    finally:
        stop(processes)
        os.environ.pop("WEB_CONCURRENCY", None)


def recycling(sessions, env, log, workers: int, max_requests: int, typists: int,
              seconds: float) -> dict:  # fmt: skip
    port = free_port()
    env = {
        **env,
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_MAX_REQUESTS": str(max_requests),
    }
    os.environ["WEB_CONCURRENCY"] = str(workers)
    log.flush()
    before = Path(log.name).read_text(errors="replace").count("Booting worker")
    processes = start_servers(env, port, log)
    try:
        time.sleep(2)
        done, elapsed = run_round(sessions, typists, seconds, port)
    finally:
        stop(processes)
        os.environ.pop("WEB_CONCURRENCY", None)
    log.flush()
    booted = Path(log.name).read_text(errors="replace").count("Booting worker")
    latencies = [ms for t in done for ms in t.latencies]
    return {
        "saves": len(latencies),
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "p99": percentile(latencies, 99),
        "max": max(latencies, default=float("nan")),
        "errors": sum(len(t.errors) for t in done),
        "replaced": booted - before - workers,
    }


def main() -> int:
    rounds = int(_number("WARMUP_ROUNDS", 6))
    settle = _number("WARMUP_SETTLE", 4)
    workers = int(_number("WARMUP_WORKERS", 4))
    max_requests = int(_number("WARMUP_MAX_REQUESTS", 40))
    typists = int(_number("WARMUP_TYPISTS", 12))
    seconds = _number("WARMUP_SECONDS", 40)
    admin = admin_url()
    name, database_url = create_database(admin)
    static = tempfile.mkdtemp(prefix="aifactory-warmup-static-")
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(48),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_STATIC_ROOT=static,
        DJANGO_CACHE_BACKEND="db",
        DJANGO_LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        GUNICORN_MAX_REQUESTS_JITTER="",
    )
    os.environ.update(env)
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in ``finally``)
        prefix="aifactory-warmup-", suffix=".log", delete=False
    )
    try:
        print(f"warmup-bench: database {name}, log {log.name}", flush=True)
        sessions = prepare(typists)
        from django.core.management import call_command

        call_command("createcachetable", verbosity=0)
        first = {}
        for mode, switches in MODES.items():
            first[mode] = first_requests(
                sessions, {**env, **switches}, log, rounds, settle
            )
        print(f"\nA fresh worker's first request, against a warm one ({rounds} "
              "replacements; medians, ms):")  # fmt: skip
        print(f"{'':>8} {'request':<10} {'warm':>8} {'first':>8} {'ratio':>7}")
        for mode, kinds in first.items():
            for kind, (warm, fresh) in kinds.items():
                print(
                    f"{mode:>8} {kind:<10} {warm:>8.1f} {fresh:>8.1f} "
                    f"{fresh / warm:>6.1f}x"
                )
        print(f"\nAutosaves while {workers} workers recycle every {max_requests} "
              f"requests ({typists} typists, {seconds:.0f} s; ms):", flush=True)  # fmt: skip
        print(f"{'':>8} {'saves':>6} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7} "
              f"{'errors':>7} {'replaced':>9}")  # fmt: skip
        for mode, switches in MODES.items():
            r = recycling(sessions, {**env, **switches}, log, workers,
                          max_requests, typists, seconds)  # fmt: skip
            print(
                f"{mode:>8} {r['saves']:>6} {r['p50']:>7.1f} {r['p95']:>7.1f} "
                f"{r['p99']:>7.1f} {r['max']:>7.1f} {r['errors']:>7} "
                f"{r['replaced']:>9}",
                flush=True,
            )
        warmups = re.findall(
            r"Worker \d+ warmed up in (\d+) ms", Path(log.name).read_text()
        )
        if warmups:
            ms = sorted(int(v) for v in warmups)
            print(
                f"\nA worker's warm-up before it accepts: median {ms[len(ms) // 2]} "
                f"ms, longest {ms[-1]} ms ({len(ms)} workers)"
            )
        return 0
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(admin, name)
        shutil.rmtree(static, ignore_errors=True)
        log.close()


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT))
    sys.exit(main())
