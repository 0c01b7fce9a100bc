"""A throwaway PostgreSQL cluster for tests that must stop and start the database
server: ``initdb`` in a temporary directory, ``pg_ctl`` on a free loopback port, trust
authentication for one role. As root (CI) the server runs as the ``postgres`` user,
since PostgreSQL refuses to run as root."""

import contextlib
import glob
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

ROLE = "wizard"


def postgres_bin_dir() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl`` (Debian keeps them out of PATH)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def unavailable_reason() -> str | None:
    """Why no throwaway cluster can be made here, or None."""
    if postgres_bin_dir() is None:
        return "initdb not found (install postgresql-15)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a 'postgres' user to run the server"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    def __init__(self):
        self.bin = postgres_bin_dir()
        self.dir = Path(tempfile.mkdtemp(prefix="aifactory-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            os.chmod(self.dir, 0o755)
            os.chown(self.dir, pwd.getpwnam("postgres").pw_uid, -1)

    @property
    def url(self) -> str:
        return f"postgres://{ROLE}@127.0.0.1:{self.port}/{ROLE}"

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            command = ["su", "postgres", "-s", "/bin/sh", "-c", shlex.join(command)]
        subprocess.run(
            command,
            check=True,
            timeout=timeout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.dir,
        )

    def create(self) -> None:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            ROLE,
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",
            timeout=120,
        )
        self.start()
        subprocess.run(
            [str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port)]
            + ["-U", ROLE, ROLE],
            check=True,
            timeout=30,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # not running
            self.stop(mode="immediate")
        shutil.rmtree(self.dir, ignore_errors=True)
