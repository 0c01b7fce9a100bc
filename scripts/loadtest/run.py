"""The whole run: set up, time, load, soak, report, tear down."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile

from .config import TARGET_P95_MS, TARGET_RATIO
from .rounds import (
    at_most,
    lost_writes,
    pdf_round,
    percentile,
    round_verdict,
    run_round,
    single_typist,
)
from .servers import (
    admin_url,
    create_database,
    drop_database,
    free_port,
    prepare,
    start_servers,
    start_web,
    stop,
    workers_per_instance,
)
from .soak import report_soak, worker_soak


def main() -> int:
    counts = [int(n) for n in os.environ.get("LOADTEST_TYPISTS", "10,20,30").split(",")]
    seconds = float(os.environ.get("LOADTEST_SECONDS", "20"))
    instances = int(os.environ.get("LOADTEST_INSTANCES", "1"))
    cache_url = os.environ.get("LOADTEST_CACHE_URL", "")
    admin = admin_url()
    name, database_url = create_database(admin)
    static = tempfile.mkdtemp(prefix="aifactory-loadtest-static-")
    port = free_port()
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(48),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_STATIC_ROOT=static,
        # The database cache, as on one machine; LOADTEST_CACHE_URL=redis://... runs
        # the instances on a shared Redis instead (cache, sessions and rate limits),
        # as docs/operators.md advises for several instances.
        DJANGO_CACHE_BACKEND="" if cache_url else "db",
        DJANGO_CACHE_URL=cache_url,
        DJANGO_LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="aifactory.settings",
    )
    os.environ.update(env)
    processes = []
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in ``finally``)
        prefix="aifactory-loadtest-", suffix=".log", delete=False
    )
    status = 0
    try:
        print(
            f"loadtest: database {name}, gunicorn on 127.0.0.1:{port}, log {log.name}"
        )
        from django.core.management import call_command  # noqa: F401 (settings check)

        sessions = prepare(max(counts))
        import django.core.management

        django.core.management.call_command("createcachetable", verbosity=0)
        processes = start_servers(env, port, log, instances)
        # More instances (LOADTEST_INSTANCES): the rounds' typists spread over them;
        # the one-typist timing, the PDF round and the soak use the first.
        ports = [port, *(free_port() for _ in range(instances - 1))]
        processes += [start_web(env, p, log, instances) for p in ports[1:]]
        workers = os.environ.get("WEB_CONCURRENCY") or workers_per_instance(instances)
        print(f"loadtest: {instances} instance(s) on {ports}, {workers} workers each")
        timed = single_typist(sessions, port)
        print("One typist, one request at a time (medians):")
        for label, ms in timed:
            print(f"  {label:<58} {ms:>7.2f} ms")
        autosave_ms, owner_ms = timed[-1][1], timed[-2][1]
        ratio = at_most(autosave_ms / owner_ms, TARGET_RATIO)
        print(
            f"  {f'ratio autosave / owner SELECT + UPDATE (target <= {TARGET_RATIO}x)':<58} "
            f"{autosave_ms / owner_ms:>7.1f}x {ratio}"
        )
        if ratio != "ok":
            status = 1
        print(
            f"  {'ratio autosave / anonymous SELECT + UPDATE':<58} "
            f"{autosave_ms / timed[1][1]:>7.1f}x\n"
        )
        print(
            f"{'typists':>8} {'saves/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
            f"{'errors':>7} {'lost':>5}  target p95 < {TARGET_P95_MS} ms"
        )
        for n in counts:
            typists, elapsed = run_round(sessions, n, seconds, ports)
            latencies = [ms for t in typists for ms in t.latencies]
            errors = [e for t in typists for e in t.errors]
            acked = sum(t.acks for t in typists)
            lost = lost_writes(typists)
            p95 = percentile(latencies, 95)
            verdict = round_verdict(p95, errors, lost)
            print(
                f"{n:>8} {acked / elapsed:>8.1f} {percentile(latencies, 50):>8.1f} "
                f"{p95:>8.1f} {percentile(latencies, 99):>8.1f} {len(errors):>7} "
                f"{len(lost):>5}  {verdict}"
            )
            for line in errors[:5] + lost[:5]:
                print(f"         {line}")
            if verdict != "ok":
                status = 1
        status = max(status, pdf_round(sessions, seconds, port))
        soak = int(os.environ.get("LOADTEST_SOAK_PDFS", "100"))
        if soak:
            max_tasks = int(os.environ.get("LOADTEST_SOAK_MAX_TASKS", "40"))
            # The soak's worker is the only one: the plain worker stops first.
            stop(processes[1:])
            processes = processes[:1]
            found = worker_soak(env, sessions, port, log, soak, max_tasks)
            status = max(status, report_soak(*found, max_tasks))
    finally:
        stop(processes)
        from django.db import connections

        connections.close_all()
        drop_database(admin, name)
        shutil.rmtree(static, ignore_errors=True)
        log.close()
    return status
