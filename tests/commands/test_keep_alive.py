"""`make run` keeps the task worker alive (issue 20): the worker runs under
scripts/keep_alive.sh, which starts it again when it exits and stops it when told."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEEP_ALIVE = ROOT / "scripts" / "keep_alive.sh"

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc"
)


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc/N/stat, which every Linux
    kernel has)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (command) state ppid ...": the command may hold spaces.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def _worker_pid(supervisor: int, other_than: int | None = None, timeout=30) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in _children(supervisor):
            if "db_worker" in _command(pid) and pid != other_than:
                return pid
        time.sleep(0.1)
    raise AssertionError("no worker process under keep_alive.sh")


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


def test_make_run_starts_the_worker_under_keep_alive():
    recipe = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    [line] = [line for line in recipe.splitlines() if "manage.py db_worker" in line]
    assert line.index("scripts/keep_alive.sh") < line.index("manage.py db_worker")


def test_make_run_on_another_port_mails_links_to_that_port():
    """``make run PORT=8101`` (the README's hint when 8000 is busy) once mailed
    confirmation links to port 8000: the worker, which sends the mail, and the
    server both get the port's address (unless DJANGO_SITE_URL says otherwise)."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SITE_URL"}
    recipe = subprocess.run(
        ["make", "-n", "run", "PORT=8101"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    joined = recipe.replace("\\\n", " ")
    [line] = [line for line in joined.splitlines() if "manage.py db_worker" in line]
    export = line[line.index("export DJANGO_SITE_URL") :].split(";")[0]
    exported = subprocess.run(
        ["bash", "-c", f'{export}; echo "$DJANGO_SITE_URL"'],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    assert exported == "http://127.0.0.1:8101"
    assert line.index("DJANGO_SITE_URL") < line.index("manage.py db_worker")
    assert "manage.py runserver 127.0.0.1:8101" in line


def test_a_killed_worker_is_started_again_and_stops_with_its_supervisor(tmp_path):
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        KEEP_ALIVE_DELAY="0.2",
    )
    log = tmp_path / "keep_alive.log"
    with open(log, "w") as out:
        supervisor = subprocess.Popen(
            ["bash", str(KEEP_ALIVE), sys.executable, "manage.py", "db_worker"]
            + ["--no-reload", "--no-startup-delay"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        first = _worker_pid(supervisor.pid)
        os.kill(first, signal.SIGKILL)
        second = _worker_pid(supervisor.pid, other_than=first)
        assert supervisor.poll() is None
        assert "exited with status 137; starting it again" in log.read_text()

        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=20) == 0
        deadline = time.monotonic() + 10
        while not _gone(second) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(second), "the worker outlived its supervisor"
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
            supervisor.wait()
