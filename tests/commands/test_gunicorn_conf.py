"""The web workers are recycled (issue 16): gunicorn.conf.py sets max_requests with a
jitter, and gunicorn itself reads it that way; the application is preloaded, and each
instance has its own control socket (issue 24)."""

import os
import runpy
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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
