"""The web workers are recycled (issue 16): gunicorn.conf.py sets max_requests with a
jitter, and gunicorn itself reads it that way; the application is preloaded, and each
instance has its own control socket (issue 24)."""

import runpy
from pathlib import Path

from gunicorn.config import Config

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
