"""``make loadtest``: N simulated typists against gunicorn + PostgreSQL (issue 16).

What it does, bounded in time and on the loopback interface only:

1. creates a scratch database on the PostgreSQL server named by ``LOADTEST_PG`` (an
   admin URL on 127.0.0.1 / localhost / ::1, a user allowed to create databases),
   migrates it, collects the static files into a temporary directory, and creates
   one user and one proposal (the LUMI Fast Lane example) per typist;
2. starts gunicorn (``gunicorn.conf.py``, debug off) and a task worker on a free
   loopback port;
3. for each N (``LOADTEST_TYPISTS``, default 10,20,30): N typists, each its own
   user, session and proposal, each sending one autosave per second for
   ``LOADTEST_SECONDS`` (default 20) with the wizard's real protocol: the step's
   whole form as the page holds it, the CSRF token, ``autosave=1`` with the htmx
   header, and ``bases`` (per-field revisions) taken from each answer's
   out-of-band ``bases`` input, as the page's htmx does. Every typist appends a
   word to its optimisation narrative, so each acknowledged save contains all the
   earlier ones;
4. prints throughput, p50 / p95 / p99 latency and errors per N, then checks that
   every acknowledged value is in the database (each proposal's narrative is its
   typist's last acknowledged text);
5. soaks the task worker: ``LOADTEST_SOAK_PDFS`` (default 100) PDFs of new content
   one after another, rendered by ``db_worker --max-tasks LOADTEST_SOAK_MAX_TASKS``
   (default 40) under a loop that restarts it as systemd does, printing the worker's
   resident memory as it goes (0 skips it); then stops the servers and drops the
   database.

Exit status: 0 when every target was met (no error, no lost write, each round's p95,
the one-typist ratio, what PDFs add), 1 when one was missed (printed "MISSED" or
"ABOVE target"), 2 when it cannot run (no PostgreSQL). The load generator shares the
machine with the server: a missed latency target on a busy machine is worth a rerun.
"""

from __future__ import annotations

import html
import http.client
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "fixtures" / "examples" / "lumi-fast-lane.json"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
STEP = "optimisation"
FIELD = "optimisation_narrative"
TARGET_P95_MS = 150
TARGET_RATIO = 3  # autosave / the owner's SELECT + UPDATE, one typist
TARGET_PDF_EXTRA_MS = 50  # what PDFs being rendered add to an autosave's p95
PDF_PROPOSALS = 40  # distinct PDFs the worker renders during the PDF round
PDF_TYPISTS = 10
SINGLE_REPEAT = 200  # autosaves (and baselines) of the one-typist timing


def fail(message: str, status: int = 2):
    print(f"loadtest: {message}", file=sys.stderr)
    sys.exit(status)


# --------------------------------------------------------------------------------
# The page's form, read as a browser would submit it
# --------------------------------------------------------------------------------


class FormReader(HTMLParser):
    """The named controls of ``<form id="wizard-form">`` with the values a browser
    would submit (checked boxes only, the selected option, textarea text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.depth = 0
        self.fields: list[tuple[str, str]] = []
        self._textarea: str | None = None
        self._text: list[str] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._option_value: str | None = None
        self._option_selected = False
        self._option_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == "wizard-form":
            self.inside = True
            return
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = (a.get("type") or "text").lower()
            if kind in ("submit", "button", "image", "reset", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            value = a.get("value")
            self.fields.append(
                (name, "on" if value is None and kind == "checkbox" else value or "")
            )
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []
        elif tag == "select" and name:
            self._select, self._options = name, []
        elif tag == "option" and self._select is not None:
            self._option_value = a.get("value")
            self._option_selected = "selected" in a
            self._option_text = []

    def handle_data(self, data):
        if self._textarea is not None:
            self._text.append(data)
        if self._option_value is not None or (
            self._select and self._option_text is not None
        ):
            self._option_text.append(data)

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._text)
            # The HTML parser keeps the newline a browser drops after <textarea>.
            self.fields.append(
                (self._textarea, text[1:] if text.startswith("\n") else text)
            )
            self._textarea = None
        elif tag == "option" and self._select is not None:
            value = self._option_value
            if value is None:
                value = "".join(self._option_text).strip()
            self._options.append((value, self._option_selected))
            self._option_value = None
        elif tag == "select" and self._select is not None:
            chosen = [v for v, selected in self._options if selected]
            if chosen or self._options:
                self.fields.append((self._select, (chosen or [self._options[0][0]])[0]))
            self._select = None


BASES = re.compile(
    r'<input type="hidden" name="bases" id="bases-field" value="([^"]*)"'
)
REGION_KEY = re.compile(
    r'<input type="hidden" name="([a-z]+_key)" id="[a-z-]+-key-field" value="([^"]*)"'
)
STATE = re.compile(r'id="save-status"[^>]*data-state="([a-z]+)"')


# --------------------------------------------------------------------------------
# One typist
# --------------------------------------------------------------------------------


@dataclass
class Typist:
    number: int
    proposal: int
    session: str
    port: int
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    acked: str | None = None  # the last narrative the server acknowledged
    sent: int = 0
    acks: int = 0

    def __post_init__(self):
        self.cookies = {"sessionid": self.session}
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        self.url = f"/proposals/{self.proposal}/{STEP}/"

    def _cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def _request(self, method, body=None, headers=None, url=None):
        headers = dict(headers or {})
        headers["Cookie"] = self._cookie_header()
        headers["Host"] = f"127.0.0.1:{self.port}"
        for attempt in range(2):
            try:
                self.conn.request(method, url or self.url, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (
                http.client.RemoteDisconnected,
                ConnectionResetError,
                BrokenPipeError,
            ):
                # A recycled gunicorn worker closed the kept-alive connection.
                self.conn.close()
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=15
                )
                if attempt:
                    raise
        for header in response.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(header)
            for key, morsel in jar.items():
                self.cookies[key] = morsel.value
        return response.status, data.decode("utf-8", "replace")

    def load(self):
        status, page = self._request("GET")
        if status != 200:
            raise RuntimeError(f"typist {self.number}: step page answered {status}")
        reader = FormReader()
        reader.feed(page)
        self.fields = dict(reader.fields)
        self.field = next((n for n in self.fields if n.endswith(FIELD)), None)
        if self.field is None or "bases" not in self.fields:
            raise RuntimeError(
                f"typist {self.number}: no {FIELD} input or bases on the page"
            )
        self.text = self.fields[self.field]

    def headers(self) -> dict:
        return {
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
            "HX-Current-URL": f"http://127.0.0.1:{self.port}{self.url}",
            "X-CSRFToken": self.cookies.get("csrftoken", ""),
        }

    def autosave(self, word: str):
        text = f"{self.text} {word}".strip()
        fields = dict(self.fields)
        fields[self.field] = text
        fields["autosave"] = "1"
        body = urllib.parse.urlencode(fields)
        headers = self.headers()
        self.sent += 1
        start = time.perf_counter()
        try:
            status, answer = self._request("POST", body, headers)
        except Exception as exc:  # timeouts, refused connections
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return
        self.latencies.append((time.perf_counter() - start) * 1000)
        state = STATE.search(answer)
        if status != 200 or state is None or state.group(1) != "saved":
            got = state.group(1) if state else "no save status"
            self.errors.append(f"HTTP {status}, {got}")
            return
        # Acknowledged: the page now holds this text, based on what was saved.
        self.text = text
        self.acked = text
        self.acks += 1
        self.fields[self.field] = text
        bases = BASES.search(answer)
        if bases:
            self.fields["bases"] = html.unescape(bases.group(1))
        # The fingerprints of the regions the page shows, as the page keeps them.
        for name, value in REGION_KEY.findall(answer):
            self.fields[name] = html.unescape(value)

    def run(self, start_at: float, seconds: float, rnd_offset: float):
        tick = 0
        while True:
            due = start_at + rnd_offset + tick
            if due >= start_at + seconds:
                return
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.autosave(f"t{self.number}w{tick}")
            tick += 1


# --------------------------------------------------------------------------------
# Set-up: database, users, proposals, servers
# --------------------------------------------------------------------------------


def _admin_url() -> urllib.parse.SplitResult:
    url = os.environ.get("LOADTEST_PG") or os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        fail(
            "needs PostgreSQL: set LOADTEST_PG=postgres://USER:PASSWORD@127.0.0.1:5432/"
            "postgres (a user allowed to create databases)"
        )
    parts = urllib.parse.urlsplit(url)
    if parts.hostname not in LOOPBACK:
        fail(
            f"refusing {parts.hostname}: the load test runs on the loopback interface only"
        )
    return parts


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_database(admin: urllib.parse.SplitResult) -> tuple[str, str]:
    import psycopg

    name = f"aifactory_loadtest_{os.getpid()}"
    with psycopg.connect(urllib.parse.urlunsplit(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, urllib.parse.urlunsplit(admin._replace(path=f"/{name}"))


def drop_database(admin: urllib.parse.SplitResult, name: str):
    import psycopg

    with psycopg.connect(urllib.parse.urlunsplit(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def prepare(count: int) -> list[tuple[int, str]]:
    """Migrate, then one user, proposal and session per typist (in this process)."""
    import django
    from django.core.management import call_command

    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    from django.contrib.auth.models import User
    from django.test import Client

    from proposals import domain, services

    document = domain.loads(EXAMPLE.read_text(encoding="utf-8"))
    typists = []
    for i in range(count):
        user = User.objects.create_user(f"typist{i}", f"typist{i}@example.org", None)
        proposal = services.proposal_import(owner=user, document=document)
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        typists.append((proposal.pk, client.cookies["sessionid"].value))
    # A reader who asks for PDFs of many proposals while the typists type.
    reader = User.objects.create_user("pdf-reader", "pdf-reader@example.org", None)
    pdfs = [
        services.proposal_import(owner=reader, document=document).pk
        for _ in range(PDF_PROPOSALS)
    ]
    client = Client()
    client.force_login(reader, backend="django.contrib.auth.backends.ModelBackend")
    typists.append((pdfs, client.cookies["sessionid"].value))
    from django.db import connections

    connections.close_all()
    return typists


def start_servers(env: dict, port: int, log) -> list[subprocess.Popen]:
    python = sys.executable
    gunicorn = [
        python,
        "-m",
        "gunicorn",
        "-c",
        "gunicorn.conf.py",
        "--bind",
        f"127.0.0.1:{port}",
    ]
    if os.environ.get("WEB_CONCURRENCY") is None:
        gunicorn += ["--workers", str(2 * (os.cpu_count() or 1) + 1)]
    # The web server also answers the baselines of ``single_typist`` (loopback only).
    web_env = {**env, "DJANGO_SETTINGS_MODULE": "tests.bench.server_settings"}
    web = subprocess.Popen(
        gunicorn, cwd=ROOT, env=web_env, stdout=log, stderr=log, start_new_session=True
    )
    # The task worker yields the CPU to the web workers (as README advises).
    worker = subprocess.Popen(
        ["nice", "-n", "10", python, "manage.py", "db_worker", "--no-reload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if web.poll() is not None:
            fail("gunicorn did not start; see its log above")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
            if conn.getresponse().status < 500:
                return [web, worker]
        except OSError:
            time.sleep(0.3)
    fail("gunicorn did not answer within 60 s")
    return []


def stop(processes: list[subprocess.Popen]):
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


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
    sessions, n: int, seconds: float, port: int
) -> tuple[list[Typist], float]:
    typists = [
        Typist(number=i, proposal=proposal, session=session, port=port)
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


def main() -> int:
    counts = [int(n) for n in os.environ.get("LOADTEST_TYPISTS", "10,20,30").split(",")]
    seconds = float(os.environ.get("LOADTEST_SECONDS", "20"))
    admin = _admin_url()
    name, database_url = create_database(admin)
    static = tempfile.mkdtemp(prefix="aifactory-loadtest-static-")
    port = _free_port()
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(48),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_STATIC_ROOT=static,
        DJANGO_CACHE_BACKEND="db",
        DJANGO_LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="aifactory.settings",
    )
    os.environ.update(env)
    processes = []
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in ``finally``)
        prefix="aifactory-loadtest-", suffix=".log", delete=False
    )
    status = 0
    try:
        print(
            f"loadtest: database {name}, gunicorn on 127.0.0.1:{port}, log {log.name}"
        )
        from django.core.management import call_command  # noqa: F401 (settings check)

        sessions = prepare(max(counts))
        import django.core.management

        django.core.management.call_command("createcachetable", verbosity=0)
        processes = start_servers(env, port, log)
        timed = single_typist(sessions, port)
        print("One typist, one request at a time (medians):")
        for label, ms in timed:
            print(f"  {label:<58} {ms:>7.2f} ms")
        autosave_ms, owner_ms = timed[-1][1], timed[-2][1]
        ratio = at_most(autosave_ms / owner_ms, TARGET_RATIO)
        print(
            f"  {f'ratio autosave / owner SELECT + UPDATE (target <= {TARGET_RATIO}x)':<58} "
            f"{autosave_ms / owner_ms:>7.1f}x {ratio}"
        )
        if ratio != "ok":
            status = 1
        print(
            f"  {'ratio autosave / anonymous SELECT + UPDATE':<58} "
            f"{autosave_ms / timed[1][1]:>7.1f}x\n"
        )
        print(
            f"{'typists':>8} {'saves/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
            f"{'errors':>7} {'lost':>5}  target p95 < {TARGET_P95_MS} ms"
        )
        for n in counts:
            typists, elapsed = run_round(sessions, n, seconds, port)
            latencies = [ms for t in typists for ms in t.latencies]
            errors = [e for t in typists for e in t.errors]
            acked = sum(t.acks for t in typists)
            lost = lost_writes(typists)
            p95 = percentile(latencies, 95)
            verdict = round_verdict(p95, errors, lost)
            print(
                f"{n:>8} {acked / elapsed:>8.1f} {percentile(latencies, 50):>8.1f} "
                f"{p95:>8.1f} {percentile(latencies, 99):>8.1f} {len(errors):>7} "
                f"{len(lost):>5}  {verdict}"
            )
            for line in errors[:5] + lost[:5]:
                print(f"         {line}")
            if verdict != "ok":
                status = 1
        status = max(status, pdf_round(sessions, seconds, port))
        soak = int(os.environ.get("LOADTEST_SOAK_PDFS", "100"))
        if soak:
            max_tasks = int(os.environ.get("LOADTEST_SOAK_MAX_TASKS", "40"))
            # The soak's worker is the only one: the plain worker stops first.
            stop(processes[1:])
            processes = processes[:1]
            found = worker_soak(env, sessions, port, log, soak, max_tasks)
            status = max(status, report_soak(*found, max_tasks))
    finally:
        stop(processes)
        from django.db import connections

        connections.close_all()
        drop_database(admin, name)
        log.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
