"""A PDF whose worker is killed mid-render (issue 20), with the real worker process
and WeasyPrint: while it lays out the pages the worker stamps the export's heartbeat
from another thread; after a SIGKILL the stamps stop, and the export counts as stalled
``RENDER_STALLED_AFTER`` after the last one, not five minutes after the start."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.utils import timezone

from proposals.models import PdfExport

ROOT = Path(__file__).resolve().parents[2]

# A document that takes WeasyPrint well over 15 s, so the kill lands mid-render.
CREATE_EXPORT = """
from django.db import transaction
from proposals.models import PdfExport
from proposals.services.exports import render_pdf_export
from tests.factories import ProposalFactory
row = "<tr><td>{i}</td><td>" + "word " * 20 + "</td></tr>"
html = "<table>" + "".join(row.format(i=i) for i in range(6000)) + "</table>"
with transaction.atomic():
    export = PdfExport.objects.create(
        proposal=ProposalFactory(), content_key="k" * 64, html=html
    )
    render_pdf_export.enqueue(export.pk)
"""


def _row(database: Path) -> tuple[str, datetime | None, datetime | None]:
    with sqlite3.connect(database, timeout=20) as db:
        status, started, beat = db.execute(
            "SELECT status, started_at, heartbeat_at FROM proposals_pdfexport"
        ).fetchone()

    def parse(value):
        return datetime.fromisoformat(value).replace(tzinfo=UTC) if value else None

    return status, parse(started), parse(beat)


def _stalled_at(monkeypatch, moment: datetime, status, started, beat) -> bool:
    """The model's own rule, judged at ``moment``."""
    export = PdfExport(status=status, started_at=started, heartbeat_at=beat)
    export.created_at = started
    with monkeypatch.context() as patch:
        patch.setattr(timezone, "now", lambda: moment)
        return export.is_stalled


def test_a_killed_render_stops_beating_and_is_stalled_after_30_seconds(
    tmp_path, monkeypatch
):
    database = tmp_path / "db.sqlite3"
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{database}",
    )
    for args in (["migrate", "--noinput", "-v0"], ["shell", "-c", CREATE_EXPORT]):
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=300,
        )
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-reload"]
        + ["--no-startup-delay", "--interval=0.2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        every = PdfExport.HEARTBEAT_EVERY.total_seconds()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, started, beat = _row(database)
            if beat and started and beat > started:
                break
            time.sleep(0.5)
        assert status == "rendering" and beat > started, "no heartbeat while rendering"
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        status, started, last = _row(database)
        assert status == "rendering", "the render finished before the kill"
        time.sleep(every * 1.5)
        assert _row(database)[2] == last, "a heartbeat after the kill"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    limit = PdfExport.RENDER_STALLED_AFTER
    second = timedelta(seconds=1)
    assert not _stalled_at(monkeypatch, last + limit - second, status, started, last)
    assert _stalled_at(monkeypatch, last + limit + second, status, started, last)
    # Before the heartbeat, this render was offered again only after 5 minutes.
    assert last + limit + second < started + PdfExport.STALLED_AFTER
