"""What the shipped units' seccomp sandbox allows is enough for the application:
under the worker unit's filters (MemoryDenyWriteExecute=, SystemCallFilter=,
RestrictAddressFamilies=; tests/commands/seccomp_sandbox.py installs them as systemd
does) Python draws the scaling chart with matplotlib and numpy and WeasyPrint lays
out a PDF with it; under the web unit's, gunicorn starts with the production
configuration, forks its workers and answers. A JIT (writable and executable
memory) or an unusual system call anywhere in them would fail here."""

import errno
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "systemd"

pytestmark = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None or not sys.platform.startswith("linux"),
    reason="needs Linux and systemd-analyze (Debian: apt-get install systemd)",
)

DRAW_AND_LAY_OUT = """
import os
from types import SimpleNamespace as ns
import django
django.setup()
import numpy
from proposals import charts
from proposals.exports import pdf

series = ns(code=None, points=[
    ns(gpus=8, throughput=1000.0, efficiency=1.0, unit="tokens/s"),
    ns(gpus=16, throughput=1900.0, efficiency=0.95, unit="tokens/s"),
    ns(gpus=32, throughput=3500.0, efficiency=0.87, unit="tokens/s"),
])
data = charts.chart_data(ns(analysis=ns(series=[series]), projection=None), {})
png = charts.render(data, "png")
assert png.startswith(b"\\x89PNG"), png[:8]
html = ('<html><body><h1>Scaling</h1><p>' + "Préparation des données " * 400
        + '</p><img src="' + pdf.chart_data_url(png) + '"></body></html>')
document = pdf.html_to_pdf(html)
assert document.startswith(b"%PDF") and b"/Image" in document
print("drawn and laid out", len(png), len(document), float(numpy.linspace(0, 1, 5).sum()))
"""


def _sandboxed(unit: str, *argv: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tests.commands.seccomp_sandbox",
        str(DEPLOY / unit),
        *argv,
    ]


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "GUNICORN_", "DATABASE_URL"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        MPLCONFIGDIR=str(tmp_path / "mpl"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        **more,
    )
    return env


def test_the_filters_are_in_force(tmp_path):
    """The harness itself: what the units refuse is refused under it."""
    probe = (
        "import mmap, os, socket\n"
        "try:\n"
        "    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
        "except OSError as e:\n"
        "    print('wx', e.errno)\n"
        "try:\n"
        "    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)\n"
        "except OSError as e:\n"
        "    print('netlink', e.errno)\n"
        "try:\n"
        "    os.chroot('/')\n"
        "except OSError as e:\n"
        "    print('chroot', e.errno)\n"
    )
    done = subprocess.run(
        _sandboxed("aifactory-web@.service", sys.executable, "-c", probe),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == [
        f"wx {errno.EPERM}",
        f"netlink {errno.EAFNOSUPPORT}",
        f"chroot {errno.EPERM}",
    ]


def test_chart_and_pdf_under_the_worker_unit(tmp_path):
    done = subprocess.run(
        _sandboxed("aifactory-worker@.service", sys.executable, "-c", DRAW_AND_LAY_OUT),
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "drawn and laid out" in done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(port: int, path: str) -> int | None:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path)
        status = conn.getresponse().status
        conn.close()
        return status
    except OSError:
        return None


def test_gunicorn_serves_under_the_web_unit(tmp_path):
    port = _free_port()
    runtime = tmp_path / "run"
    runtime.mkdir()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen(
        _sandboxed(
            "aifactory-web@.service",
            str(gunicorn),
            "--config",
            str(ROOT / "gunicorn.conf.py"),
        ),
        cwd=ROOT,
        env=_env(
            tmp_path,
            GUNICORN_BIND=f"127.0.0.1:{port}",
            RUNTIME_DIRECTORY=str(runtime),
            WEB_CONCURRENCY="2",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and server.poll() is None:
            status = _get(port, "/healthz")
            if status == 200:
                break
            time.sleep(0.3)
        assert status == 200, f"gunicorn under the sandbox: {status}"
        # Both workers answer, one after the other (each keeps no connection).
        assert [_get(port, "/healthz") for _ in range(4)] == [200] * 4
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=60)
    assert server.returncode == 0, output
    assert "Booting worker" in output, output
