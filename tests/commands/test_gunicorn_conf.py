"""The web workers are recycled (issue 16): gunicorn.conf.py sets max_requests with a
jitter, and gunicorn itself reads it that way; the application is preloaded, and each
instance has its own control socket (issue 24)."""

import json
import os
import runpy
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

from gunicorn.config import Config
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def _gunicorn_config(monkeypatch, **env) -> Config:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = Config()
    for key, value in runpy.run_path(str(CONF)).items():
        if key in config.settings and value is not None:
            config.set(key, value)
    return config


def test_workers_are_recycled_with_jitter(monkeypatch):
    config = _gunicorn_config(monkeypatch)
    assert config.max_requests == 1000
    # As wide as the limit itself: evenly loaded workers do not restart together.
    assert config.max_requests_jitter == config.max_requests
    assert config.preload_app is True
    assert config.wsgi_app == "aifactory.wsgi"
    assert config.address == [("127.0.0.1", 8000)]


def test_the_environment_tunes_them(monkeypatch):
    config = _gunicorn_config(
        monkeypatch,
        GUNICORN_MAX_REQUESTS="50",
        GUNICORN_MAX_REQUESTS_JITTER="5",
        WEB_CONCURRENCY="3",
        GUNICORN_BIND="127.0.0.1:9123",
    )
    assert (config.max_requests, config.max_requests_jitter) == (50, 5)
    assert config.workers == 3 and config.address == [("127.0.0.1", 9123)]
    # Nonsense falls back to the defaults rather than failing to start.
    config = _gunicorn_config(monkeypatch, GUNICORN_MAX_REQUESTS="lots")
    assert config.max_requests == 1000


def test_each_instance_has_its_own_control_socket(monkeypatch, tmp_path):
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path))
    first = _gunicorn_config(monkeypatch, GUNICORN_BIND="127.0.0.1:8001")
    second = _gunicorn_config(monkeypatch, GUNICORN_BIND="127.0.0.1:8002")
    assert first.control_socket == str(tmp_path / "gunicorn-127.0.0.1-8001.ctl")
    assert second.control_socket == str(tmp_path / "gunicorn-127.0.0.1-8002.ctl")
    chosen = _gunicorn_config(monkeypatch, GUNICORN_CONTROL_SOCKET="/run/x/g.ctl")
    assert chosen.control_socket == "/run/x/g.ctl"


def test_preload_can_be_turned_off(monkeypatch):
    assert _gunicorn_config(monkeypatch, GUNICORN_PRELOAD="0").preload_app is False


def test_an_instance_s_workers_count_together_in_slots_they_hand_on(tmp_path):
    """Real gunicorn with this file, two workers recycled every few requests: every
    request is counted once in the instance's directory, the files stay one per
    slot (not one per worker ever started), and the directory goes at exit."""
    runtime = tmp_path / "run"
    runtime.mkdir()
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PROMETHEUS_MULTIPROC_DIR", "AIFACTORY_METRICS_SLOT")
    }
    env.update(
        RUNTIME_DIRECTORY=str(runtime),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
        GUNICORN_MAX_REQUESTS="3",
        GUNICORN_MAX_REQUESTS_JITTER="1",
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(CONF.parent), env.get("PYTHONPATH")])
        ),
    )
    server = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "--config", str(CONF),
            "tests.commands.metrics_app:application",
        ],
        cwd=CONF.parent, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        answers = [_get(port) for _ in range(24)]
        (directory,) = list(runtime.glob("metrics-*"))
        files = sorted(p.name for p in directory.iterdir())
        samples = {
            (s.name, s.labels.get("le")): s.value
            for family in MultiProcessCollector(
                CollectorRegistry(), path=str(directory)
            ).collect()
            for s in family.samples
        }
    finally:
        server.send_signal(signal.SIGTERM)
        _, errors = server.communicate(timeout=30)
    pids = {answer.split()[1] for answer in answers}
    assert {answer.split()[0] for answer in answers} == {"worker0", "worker1"}
    assert len(pids) > 2, errors  # workers were recycled
    assert files == ["histogram_worker0.db", "histogram_worker1.db"]
    assert samples[("aifactory_autosave_seconds_count", None)] == 24
    assert samples[("aifactory_autosave_seconds_bucket", "+Inf")] == 24
    assert list(runtime.glob("metrics-*")) == []  # removed when the arbiter exits


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(port: int) -> str:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                return r.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# Warm workers, replaced one at a time (issue 33) -----------------------------------


def _hooks(monkeypatch, **env) -> dict:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))


def _server(workers: int, max_requests: int):
    return SimpleNamespace(
        cfg=SimpleNamespace(max_requests=max_requests, preload_app=False),
        WORKERS={},
        num_workers=workers,
        slots_started=set(),
    )


def _fork(hooks, server, pid: int):
    worker = SimpleNamespace(max_requests=None)
    hooks["pre_fork"](server, worker)
    server.WORKERS[pid] = worker
    return worker


def test_an_instance_s_workers_are_recycled_one_at_a_time(monkeypatch):
    """Five workers of an instance, 1,000 requests each: the first ones' limits are
    spaced by a fifth of that (so under an even load one is replaced at a time),
    and a replacement keeps its slot's place with the plain limit."""
    hooks = _hooks(monkeypatch)
    server = _server(workers=5, max_requests=1000)
    first = [_fork(hooks, server, pid) for pid in range(5)]
    limits = sorted(w.max_requests for w in first)
    assert limits[0] >= 1000 and limits[-1] <= 1000 + 4 * 200 + 50
    assert min(b - a for a, b in zip(limits, limits[1:], strict=False)) >= 150
    # The worker in slot 2 reached its limit; its replacement takes the slot.
    recycled = next(pid for pid, w in server.WORKERS.items() if w.metrics_slot == 2)
    del server.WORKERS[recycled]
    replacement = _fork(hooks, server, 99)
    assert replacement.metrics_slot == 2
    assert 1000 <= replacement.max_requests <= 1050


def test_staggering_can_be_turned_off(monkeypatch):
    hooks = _hooks(monkeypatch, GUNICORN_STAGGER="0")
    worker = _fork(hooks, _server(workers=5, max_requests=1000), 1)
    assert worker.max_requests is None  # gunicorn's own random jitter stays


WARM_CHECK = """
import json, sys, django
django.setup()
from django.db import connection
from django.template import engines
from django.urls import get_resolver
from django.utils.translation import trans_real
from proposals.selectors.compiled import CompiledQuery

def state():
    loader = engines["django"].engine.template_loaders[0].loaders[0]  # partials, cached
    return {
        "urls": get_resolver()._populated,
        "templates": sorted(loader.get_template_cache),
        "jinja2": sorted(key[1] for key in engines["jinja2"].env.cache.keys()),
        "queries": [connection.vendor in q._by_vendor for q in CompiledQuery.every],
        "languages": sorted(trans_real._translations),
        "drawing": "proposals.chart_drawing" in sys.modules,
        "pdf": "weasyprint" in sys.modules,
    }

before = state()
from aifactory import warmup
warmup.warm_code()
print(json.dumps({"before": before, "after": state()}))
"""


def test_the_warm_up_builds_what_a_worker_s_first_requests_built(tmp_path):
    """After ``warm_code`` (in the arbiter, before forking) the URL configuration
    is loaded, the wizard's templates compiled, its compiled queries compiled and
    the German and French catalogues loaded, the chart's drawing (matplotlib)
    imported: none of it is left to a worker's first request. WeasyPrint is not
    loaded at all: the task worker renders the PDFs."""
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="x" * 50,
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    done = subprocess.run(
        [sys.executable, "-c", WARM_CHECK],
        cwd=CONF.parent, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    states = json.loads(done.stdout.strip().splitlines()[-1])
    before, after = states["before"], states["after"]
    assert not before["urls"] and after["urls"]
    # The wizard's page is Jinja2 in Django's frame (proposals/frame.py).
    page = {"proposals/wizard/page.html", "proposals/wizard/steps/scalability.html"}
    assert not page & set(before["jinja2"])
    assert page <= set(after["jinja2"])
    assert "framed.html" not in before["templates"]
    assert {"framed.html", "base.html", "503.html"} <= set(after["templates"])
    assert after["queries"] and all(after["queries"])
    assert {"de", "fr"} <= set(after["languages"])
    assert not before["drawing"] and after["drawing"]
    assert not after["pdf"]
