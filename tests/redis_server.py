"""A real Redis for the tests and ``make prodcheck``: Debian's ``redis-server`` on the
loopback interface, in a temporary directory, keeping nothing on disk (no RDB
snapshot, no append-only file), so a restart starts empty as a crashed or restarted
cache server does. ``running_redis()`` skips the test, saying why, only when the
binary is not installed (``apt-get install redis-server``; CI installs it)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

BINARY = "redis-server"
NOT_INSTALLED = (
    "redis-server is not installed (apt-get install redis-server): the Redis cache "
    "tests need a real server"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """One ``redis-server`` on 127.0.0.1; ``url(db)`` names it for DJANGO_CACHE_URL."""

    def __init__(self, directory: Path | None = None, maxmemory: str | None = None):
        self.binary = shutil.which(BINARY) or "/usr/bin/redis-server"
        self.dir = Path(directory or tempfile.mkdtemp(prefix="aifactory-redis-"))
        self.maxmemory = maxmemory
        self.port = 0
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> RedisServer:
        """Start it (on the port it had, after a restart); wait until it answers."""
        for _ in range(5):  # another process may take a free port before Redis does
            port = self.port or _free_port()
            argv = [
                self.binary, "--bind", "127.0.0.1", "--port", str(port),
                "--save", "", "--appendonly", "no", "--dir", str(self.dir),
                "--daemonize", "no", "--logfile", str(self.dir / "redis.log"),
            ]  # fmt: skip
            if self.maxmemory:
                argv += ["--maxmemory", self.maxmemory]
            self.process = subprocess.Popen(
                argv,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: stopped as a group
            )
            if self._wait_until_it_answers(port):
                self.port = port
                return self
            self.process.kill()
            self.process.wait()
        log = (self.dir / "redis.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"redis-server did not start:\n{log}")

    def _wait_until_it_answers(self, port: int, seconds: float = 20) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            if self.command(b"PING", port=port) == b"+PONG":
                return True
            time.sleep(0.05)
        return False

    def command(self, *words: bytes, port: int | None = None) -> bytes | None:
        """One command in Redis's protocol; its answer as sent (a short one:
        ``+PONG``, ``:3``, a few keys), or None when nothing answers."""
        request = b"*%d\r\n" % len(words) + b"".join(
            b"$%d\r\n%s\r\n" % (len(w), w) for w in words
        )
        try:
            with socket.create_connection(("127.0.0.1", port or self.port), 1) as s:
                s.sendall(request)
                return s.recv(65536).removesuffix(b"\r\n")
        except OSError:
            return None

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self) -> None:
        """Stopped and started again on the same port, empty (nothing on disk)."""
        self.stop()
        self.start()

    def keys(self) -> int:
        """How many keys database 0 holds."""
        info = self.command(b"DBSIZE")
        return int(info[1:]) if info and info.startswith(b":") else -1

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def running_redis():
    """A real, empty redis-server on loopback while the block runs; the test is
    skipped, saying why, when Debian's redis-server is not installed. A test module
    makes it its fixture (``yield from`` in a ``scope="module"`` fixture)."""
    if not shutil.which(BINARY):
        pytest.skip(NOT_INSTALLED)
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()
