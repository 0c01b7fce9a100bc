"""The rounds: one typist timed against baselines, N typists, PDFs being rendered."""

from __future__ import annotations

import http.client
import statistics
import threading
import time
import urllib.parse

from .config import (
    FIELD,
    PDF_TYPISTS,
    SINGLE_REPEAT,
    TARGET_P95_MS,
    TARGET_PDF_EXTRA_MS,
    fail,
)
from .typist import Typist


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def single_typist(sessions, port: int, repeat: int = SINGLE_REPEAT) -> list[tuple]:
    """One typist, one request at a time, the issue's way of timing an autosave:
    the autosave (its text changes, the chart does not) in turns with three
    baselines on the same server and connection. Returns (label, median ms)."""
    proposal, session = sessions[0]
    typist = Typist(number=0, proposal=proposal, session=session, port=port)
    typist.load()
    baselines = {
        "trivial view (GET)": ("GET", "/bench/trivial/"),
        "one SELECT + one UPDATE (GET, no user)": (
            "GET",
            f"/bench/select-update/{proposal}/",
        ),
        "the owner's SELECT + UPDATE (POST of the step's inputs)": (
            "POST",
            f"/bench/owner-select-update/{proposal}/",
        ),
    }
    times: dict[str, list[float]] = {label: [] for label in baselines}
    for i in range(repeat):
        typist.autosave(f"s{i}")
        for label, (method, url) in baselines.items():
            fields = {**typist.fields, "autosave": "1"}
            body = urllib.parse.urlencode(fields) if method == "POST" else None
            start = time.perf_counter()
            status, _ = typist._request(method, body, typist.headers(), url=url)
            times[label].append((time.perf_counter() - start) * 1000)
            if status != 200:
                fail(f"baseline {url} answered {status}")
    if typist.errors:
        fail(f"single typist: {typist.errors[:3]}")
    medians = [(label, statistics.median(ms)) for label, ms in times.items()]
    return [
        *medians,
        ("autosave, chart unchanged", statistics.median(typist.latencies)),
    ]


def run_round(
    sessions, n: int, seconds: float, port: int | list[int]
) -> tuple[list[Typist], float]:
    """``port``: one instance, or several, the typists dealt to them in turn (as a
    balancer would spread them)."""
    ports = [port] if isinstance(port, int) else port
    typists = [
        Typist(number=i, proposal=proposal, session=session, port=ports[i % len(ports)])
        for i, (proposal, session) in enumerate(sessions[:n])
    ]
    for typist in typists:
        typist.load()
    start = time.monotonic() + 0.5
    threads = [
        threading.Thread(target=t.run, args=(start, seconds, (i / n)), daemon=True)
        for i, t in enumerate(typists)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 60)
    return typists, time.monotonic() - start


def pdf_reader(pdfs: list[int], session: str, port: int, stop_at: float) -> int:
    """Ask for the PDF of each proposal in turn, one a second (each is new content:
    the task worker renders it); returns how many were asked for."""
    asked = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    while time.monotonic() < stop_at and asked < len(pdfs):
        conn.request(
            "GET",
            f"/proposals/{pdfs[asked]}/export.pdf",
            headers={"Cookie": f"sessionid={session}", "Host": f"127.0.0.1:{port}"},
        )
        response = conn.getresponse()
        response.read()
        if response.status not in (200, 302):
            raise RuntimeError(f"PDF request answered {response.status}")
        asked += 1
        time.sleep(1.0)
    return asked


def pdfs_rendered() -> int:
    from django.db import connections

    from proposals.models import PdfExport

    connections.close_all()
    return PdfExport.objects.filter(status=PdfExport.Status.DONE).count()


def lost_writes(typists: list[Typist]) -> list[str]:
    """Typists whose last acknowledged text is not what the database holds."""
    from django.db import connections

    from proposals.models import Proposal

    connections.close_all()
    stored = dict(
        Proposal.objects.filter(pk__in=[t.proposal for t in typists]).values_list(
            "pk", FIELD
        )
    )
    return [
        f"typist {t.number}: acknowledged {t.acked[-40:]!r}, "
        f"stored {stored.get(t.proposal, '')[-40:]!r}"
        for t in typists
        if t.acked is not None and stored.get(t.proposal) != t.acked
    ]


def report_round(label: str, typists: list[Typist], elapsed: float) -> tuple:
    latencies = [ms for t in typists for ms in t.latencies]
    errors = [e for t in typists for e in t.errors]
    lost = lost_writes(typists)
    acked = sum(t.acks for t in typists)
    print(
        f"{label:>8} {acked / elapsed:>8.1f} {percentile(latencies, 50):>8.1f} "
        f"{percentile(latencies, 95):>8.1f} {percentile(latencies, 99):>8.1f} "
        f"{len(errors):>7} {len(lost):>5}"
    )
    for line in errors[:5] + lost[:5]:
        print(f"         {line}")
    return latencies, errors, lost


def round_verdict(p95: float, errors, lost) -> str:
    """``ok`` for a round within its p95 target without errors or lost writes, else
    ``MISSED``: any missed target makes the run exit with 1."""
    return "ok" if p95 < TARGET_P95_MS and not errors and not lost else "MISSED"


def at_most(value: float, limit: float) -> str:
    """``ok`` or ``ABOVE target`` (a figure with a target; the run then exits 1)."""
    return "ok" if value <= limit else "ABOVE target"


def pdf_round(sessions, seconds: float, port: int) -> int:
    """The same typists with and without the task worker rendering PDFs meanwhile:
    what a PDF being rendered adds to an autosave (target: at most 50 ms)."""
    n = min(PDF_TYPISTS, len(sessions) - 1)
    pdfs, session = sessions[-1]
    print(f"\nAutosaves while the task worker renders PDFs ({n} typists):")
    quiet, quiet_elapsed = run_round(sessions, n, seconds, port)
    # Checked at once: the next round types into the same proposals.
    a, errors_a, lost_a = report_round("no PDF", quiet, quiet_elapsed)
    before = pdfs_rendered()
    asked = []
    stop_at = time.monotonic() + seconds + 0.5
    thread = threading.Thread(
        target=lambda: asked.append(pdf_reader(pdfs, session, port, stop_at)),
        daemon=True,
    )
    thread.start()
    busy, elapsed = run_round(sessions, n, seconds, port)
    thread.join(timeout=30)
    rendered = pdfs_rendered() - before
    b, errors_b, lost_b = report_round("PDFs", busy, elapsed)
    p50 = percentile(b, 50) - percentile(a, 50)
    p95 = percentile(b, 95) - percentile(a, 95)
    extra = at_most(p95, TARGET_PDF_EXTRA_MS)
    print(
        f"         {asked[0] if asked else 0} PDFs asked for, {rendered} rendered by "
        f"the worker during the round; autosave p50 {p50:+.1f} ms, p95 {p95:+.1f} ms "
        f"(target: at most +{TARGET_PDF_EXTRA_MS} ms: {extra})"
    )
    missed = errors_a or errors_b or lost_a or lost_b or extra != "ok"
    return 1 if missed else 0
