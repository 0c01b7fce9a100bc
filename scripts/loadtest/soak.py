"""The task worker's soak: PDFs one after another, its memory, its restarts."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from .config import ROOT, fail
from .rounds import pdfs_rendered
from .servers import stop
from .typist import Typist


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(child) for child in found]


def worker_soak(env: dict, sessions, port: int, log, count: int, max_tasks: int):
    """The task worker as systemd runs it (deploy/systemd/aifactory-worker@.service):
    ``db_worker --max-tasks`` under a loop that starts it again whenever it exits.
    COUNT PDFs of new content, one after another; the resident memory of the worker
    then running is sampled after each. Returns (samples, restarts, failures)."""
    pdfs, session = sessions[-1]
    loop = (
        'while :; do "$0" manage.py db_worker --no-reload --max-tasks "$1"; '
        'echo "soak: worker exited ($?)"; done'
    )
    supervisor = subprocess.Popen(
        ["bash", "-c", loop, sys.executable, str(max_tasks)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    samples: list[tuple[int, float, int]] = []  # (pdf, MB, worker pid)
    failed_before = pdfs_failed()
    try:
        typists = {}
        for i in range(count):
            proposal = pdfs[i % len(pdfs)]
            if proposal not in typists:
                typists[proposal] = Typist(
                    number=i, proposal=proposal, session=session, port=port
                )
                typists[proposal].load()
            typist = typists[proposal]
            typist.autosave(f"soak{i}")  # new content: a PDF to render
            before = pdfs_rendered() + pdfs_failed()
            typist._request("GET", url=f"/proposals/{proposal}/export.pdf")
            deadline = time.monotonic() + 120
            while pdfs_rendered() + pdfs_failed() == before:
                if time.monotonic() > deadline:
                    fail(f"soak: PDF {i + 1} not rendered within 120 s", 1)
                time.sleep(0.2)
            for pid in _children(supervisor.pid):
                rss = _rss_mb(pid)
                if rss is not None:
                    samples.append((i + 1, rss, pid))
    finally:
        stop([supervisor])
    log.flush()
    restarts = Path(log.name).read_text().count("soak: worker exited")
    return samples, restarts, pdfs_failed() - failed_before


def pdfs_failed() -> int:
    from proposals.models import PdfExport

    return PdfExport.objects.filter(status=PdfExport.Status.FAILED).count()


def report_soak(samples, restarts: int, failures: int, max_tasks: int) -> int:
    print(
        f"\nTask worker soak: {len(samples)} PDFs, db_worker --max-tasks {max_tasks} "
        f"restarted by its supervisor {restarts} times, {failures} failed renders"
    )
    print("  after PDF   worker RSS MB   worker pid")
    step = max(1, len(samples) // 12)
    for pdf, rss, pid in samples[::step] + ([samples[-1]] if samples else []):
        print(f"  {pdf:>9}   {rss:>13.1f}   {pid:>10}")
    per_worker: dict[int, list[float]] = {}
    for _, rss, pid in samples:
        per_worker.setdefault(pid, []).append(rss)
    for pid, values in per_worker.items():
        print(
            f"  worker {pid}: {len(values)} PDFs, RSS {values[0]:.1f} MB after the "
            f"first, peak {max(values):.1f} MB, {values[-1]:.1f} MB after the last"
        )
    return 1 if failures else 0
