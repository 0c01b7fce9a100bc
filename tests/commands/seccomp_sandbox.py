"""Run a program under the seccomp filters a systemd unit asks for, without
systemd: ``python -m tests.commands.seccomp_sandbox UNIT-FILE PROGRAM [ARGS...]``.

systemd builds these filters from the unit's ``SystemCallFilter=`` (allow list,
then ``~`` deny lists; groups expanded by ``systemd-analyze syscall-filter``),
``SystemCallErrorNumber=`` (what a refused call returns instead of killing the
process), ``SystemCallArchitectures=native`` (libseccomp's default: only the
native ABI), ``MemoryDenyWriteExecute=`` (no mapping both writable and
executable, no mprotect to executable, no executable shared memory) and
``RestrictAddressFamilies=`` (socket() of another family fails with
EAFNOSUPPORT). The same rules are installed here with libseccomp, then PROGRAM
is executed: what it does not survive here, it would not survive under the unit.
The file-system options (ProtectSystem=, PrivateTmp= ...) need systemd itself."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import socket
import subprocess
import sys
from pathlib import Path

ACT_ALLOW = 0x7FFF0000
CMP_MASKED_EQ = 7
CMP_NE = 1
PROT_WRITE, PROT_EXEC = 0x2, 0x4
SHM_EXEC = 0o100000


def ACT_ERRNO(number: int) -> int:  # noqa: N802 (libseccomp's name)
    return 0x00050000 | (number & 0xFFFF)


class ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def unit_service(path: Path) -> dict[str, list[str]]:
    """The [Service] section, every value of a key in order (systemd's keys
    repeat: an empty value resets the list)."""
    values: dict[str, list[str]] = {}
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "Service" and "=" in line:
            key, value = line.split("=", 1)
            if value == "":
                values[key] = []
            else:
                values.setdefault(key, []).append(value)
    return values


def expand(names: list[str], seen: set[str] | None = None) -> set[str]:
    """System call names, groups (``@system-service``) expanded as systemd does."""
    seen = set() if seen is None else seen
    calls: set[str] = set()
    for name in names:
        if not name.startswith("@"):
            calls.add(name)
            continue
        if name in seen:
            continue
        seen.add(name)
        listing = subprocess.run(
            ["systemd-analyze", "syscall-filter", name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        members = [
            line.strip()
            for line in listing.splitlines()[1:]
            if line.strip() and not line.strip().startswith("#")
        ]
        calls |= expand(members, seen)
    return calls


class Filter:
    def __init__(self, lib, default_action: int):
        self.lib = lib
        self.ctx = lib.seccomp_init(ctypes.c_uint32(default_action))
        if not self.ctx:
            raise OSError("seccomp_init failed")

    def rule(self, action: int, name: str, *conditions: tuple[int, int, int, int]):
        number = self.lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:  # not a system call on this architecture (e.g. *32)
            return
        array = (ArgCmp * max(len(conditions), 1))(*[ArgCmp(*c) for c in conditions])
        result = self.lib.seccomp_rule_add_array(
            self.ctx, ctypes.c_uint32(action), number, len(conditions), array
        )
        if result < 0:
            raise OSError(-result, f"seccomp rule for {name}")

    def load(self):
        result = self.lib.seccomp_load(self.ctx)
        if result < 0:
            raise OSError(-result, "seccomp_load")
        self.lib.seccomp_release(self.ctx)


def install(unit: Path) -> None:
    service = unit_service(unit)
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(ArgCmp),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    refused = errno.EPERM
    for value in service.get("SystemCallErrorNumber", []):
        refused = getattr(errno, value)
    # systemd: without SystemCallErrorNumber= a refused call kills the process.
    refuse = ACT_ERRNO(refused) if service.get("SystemCallErrorNumber") else 0x80000000

    if service.get("MemoryDenyWriteExecute", ["no"])[-1] in ("yes", "true", "1"):
        # systemd's seccomp_memory_deny_write_execute(), rule for rule.
        memory = Filter(lib, ACT_ALLOW)
        both = PROT_WRITE | PROT_EXEC
        memory.rule(ACT_ERRNO(errno.EPERM), "mmap", (2, CMP_MASKED_EQ, both, both))
        for name in ("mprotect", "pkey_mprotect"):
            memory.rule(
                ACT_ERRNO(errno.EPERM), name, (2, CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC)
            )
        memory.rule(
            ACT_ERRNO(errno.EPERM), "shmat", (2, CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC)
        )
        memory.load()

    families = [
        f for v in service.get("RestrictAddressFamilies", []) for f in v.split()
    ]
    if families and not families[0].startswith("~"):
        # socket() of any family but these fails with EAFNOSUPPORT, as systemd does.
        keep = sorted(getattr(socket, name) for name in families)
        sockets = Filter(lib, ACT_ALLOW)
        low = 0
        for family in [*keep, 64]:  # AF_MAX is below 64 on every Linux
            for refused_family in range(low, family):
                sockets.rule(
                    ACT_ERRNO(errno.EAFNOSUPPORT),
                    "socket",
                    (0, CMP_MASKED_EQ, 0xFFFFFFFF, refused_family),
                )
            low = family + 1
        sockets.load()

    # Last: once loaded, it refuses seccomp() itself (not an ordinary service's call).
    allowed: set[str] | None = None
    denied: set[str] = set()
    for value in service.get("SystemCallFilter", []):
        if value.startswith("~"):
            denied |= expand(value[1:].split())
        elif allowed is None:
            allowed = expand(value.split())
        else:
            allowed |= expand(value.split())
    if allowed is not None:
        calls = Filter(lib, refuse)
        for name in sorted(allowed - denied):
            calls.rule(ACT_ALLOW, name)
        calls.load()
    elif denied:
        calls = Filter(lib, ACT_ALLOW)
        for name in sorted(denied):
            calls.rule(refuse, name)
        calls.load()


def main(argv: list[str]) -> int:
    unit, program = Path(argv[0]), argv[1:]
    install(unit)
    os.execvp(program[0], program)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
