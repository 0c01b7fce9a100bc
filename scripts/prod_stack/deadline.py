"""Deadline day (issue 33): PDFs pile up in the shared task queue while no worker runs.
Both instances must stay ready (``/readyz`` is about each instance, not the queue:
once, a backlog of about 120 PDFs took every instance out of the load balancer at
once), while ``/metrics`` on each instance reports the queue's depth and age, no live
worker, and the autosaves that instance answered; ``manage.py task_workers`` exits 1
(the alert's condition: stuck tasks and no worker). Then one worker drains the
backlog, including the real PDF asked for during it, and the supervised worker
comes back."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import urllib.parse

from prometheus_client.parser import text_string_to_metric_families

from .common import METRICS_TOKEN, check, wait_for
from .pages import Browser
from .stack import Stack

# The backlog: the real PDF asked for through nginx, and this many more tasks put in
# the queue directly (for an export that does not exist: the worker's no-op), so
# that the drain takes seconds, not the minutes of 120 real renders.
BACKLOG = 119
# How long the backlog has waited: past the five minutes that /readyz once allowed.
WAITED_MINUTES = 10
PDF_TASK = "proposals.services.exports.render_pdf_export"

_ENQUEUE = f"""
from datetime import timedelta
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from proposals.services.exports import render_pdf_export
ids = [render_pdf_export.enqueue(-1).id for _ in range({BACKLOG})]
DBTaskResult.objects.filter(pk__in=ids).update(
    enqueued_at=timezone.now() - timedelta(minutes={WAITED_MINUTES})
)
"""


def scrape(stack: Stack, name: str, token: str = METRICS_TOKEN):
    """An instance's /metrics, asked on its own port as Prometheus would: the HTTP
    status and the samples by (name, sorted labels)."""
    conn = http.client.HTTPConnection("127.0.0.1", stack.web_ports[name], timeout=30)
    conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    text = response.read().decode()
    samples = {}
    if response.status == 200:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                samples[key] = sample.value
    return response.status, samples


def _pdf_tasks(samples, state: str) -> float:
    return samples.get(
        (
            "aifactory_tasks",
            (("queue", "default"), ("state", state), ("task", PDF_TASK)),
        ),
        0,
    )


def _ready(stack: Stack, name: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", stack.web_ports[name], timeout=10)
    conn.request("GET", "/readyz")
    return conn.getresponse().status


def _stop_worker(stack: Stack) -> None:
    """As ``systemctl stop 'aifactory-worker@*'``: SIGTERM, the worker signs off."""
    worker = stack.processes["worker"]
    os.killpg(worker.pid, signal.SIGTERM)
    worker.wait(timeout=60)


def deadline_backlog(stack: Stack, browser: Browser, typist, proposal: int):
    for name in stack.web_ports:
        status, _ = scrape(stack, name, token="wrong-" + METRICS_TOKEN)
        check(status == 401, f"/metrics on {name} without the token: {status}")
    _stop_worker(stack)
    wait_for(
        "no task worker alive after the stop",
        lambda: (
            scrape(stack, "web-a")[1].get(
                ("aifactory_task_workers", (("state", "alive"),))
            )
            == 0
        ),
        seconds=30,
    )
    # A real PDF, of content no PDF was made of yet, asked for as a person would.
    typist.save("Deadline day: one more change before the cut-off.", via="nginx")
    response, _ = browser.request("GET", f"/proposals/{proposal}/export.pdf")
    check(response.status == 302, f"PDF during the backlog: {response.status}")
    status_url = urllib.parse.urlsplit(response.getheader("Location")).path
    stack.manage("shell", "-c", _ENQUEUE, log="deadline")

    for name in stack.web_ports:
        check(_ready(stack, name) == 200, f"{name} not ready during the backlog")
        status, samples = scrape(stack, name)
        check(status == 200, f"/metrics on {name}: {status}")
        waiting = _pdf_tasks(samples, "waiting")
        age = samples.get(
            (
                "aifactory_task_queue_oldest_age_seconds",
                (("queue", "default"), ("task", PDF_TASK)),
            ),
            0,
        )
        check(waiting == BACKLOG + 1, f"{name}: {waiting} PDF tasks waiting")
        check(age >= WAITED_MINUTES * 60, f"{name}: oldest waited {age:.0f} s")
        autosaves = sum(
            value
            for (metric, _), value in samples.items()
            if metric == "aifactory_autosave_seconds_count"
        )
        check(autosaves >= 1, f"{name} counted no autosave")
        check(
            samples.get(("aifactory_autosave_scope", (("scope", "instance"),))) == 1,
            f"{name}'s autosave histogram is not the instance's",
        )
        print(
            f"    {name}: /readyz 200, {waiting:.0f} PDF tasks waiting, oldest "
            f"{age:.0f} s, {autosaves:.0f} autosave(s) counted",
            flush=True,
        )
    response, _ = browser.request("GET", "/readyz")
    check(response.status == 200, f"/readyz through nginx: {response.status}")
    monitor = subprocess.run(
        [str(stack.python), "manage.py", "task_workers"],
        env=stack.env,
        capture_output=True,
        text=True,
    )
    check(
        monitor.returncode == 1 and "no task worker alive" in monitor.stderr,
        f"task_workers during the backlog: exit {monitor.returncode}",
    )

    # One worker drains the queue and exits; the supervised one comes back.
    stack.run(
        [
            str(stack.python), "manage.py", "db_worker", "--no-reload", "--batch",
            "--no-startup-delay",
        ],
        "deadline-drain", env=stack.env,
    )  # fmt: skip
    check("file.pdf" in browser.page(status_url), "the real PDF was not rendered")
    stack.start_worker()
    status, samples = scrape(stack, "web-b")
    check(_pdf_tasks(samples, "waiting") == 0, "PDF tasks still waiting")
    wait_for(
        "a task worker alive again",
        lambda: (
            scrape(stack, "web-b")[1].get(
                ("aifactory_task_workers", (("state", "alive"),)), 0
            )
            >= 1
        ),
        seconds=60,
    )
