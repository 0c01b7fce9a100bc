"""What every part of the check shares: where it runs, its failures, its waits."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
RELAY_USER, RELAY_PASSWORD = "wizard-relay", "relay-" + os.urandom(6).hex()
# What a Prometheus scraper sends to /metrics (the instances' DJANGO_METRICS_TOKEN).
METRICS_TOKEN = "prodcheck-metrics-" + os.urandom(24).hex()
APPLICANT = ("prodcheck", "prodcheck@example.eu", "Prod-check-" + os.urandom(6).hex())


class StackError(Exception):
    """A step of the walk did not do what the README promises."""


def check(condition, message: str):
    if not condition:
        raise StackError(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what: str, probe, seconds: float = 60, every: float = 0.3):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = probe()
        if result:
            return result
        time.sleep(every)
    raise StackError(f"{what}: not within {seconds:.0f} s")
