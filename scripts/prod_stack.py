"""``make prodcheck``: the README's production path, brought up on this machine and
walked as a person would, then stopped.

It starts, on the loopback interface only, in a scratch directory it removes:

* a scratch PostgreSQL database (on ``PRODCHECK_PG``, else ``DATABASE_URL``, else
  the machine's PostgreSQL 15 through ``scripts/local_postgres.sh``), dropped at the
  end;
* a virtual environment installed from ``requirements/production.txt`` alone, with
  ``pip --require-hashes`` (no test tool in it), which runs everything below;
* ``check --deploy``, ``migrate`` (no ``createcachetable``: migrate makes the cache
  table) and ``collectstatic``, with debug off and the settings from the environment;
* two gunicorn instances (``gunicorn.conf.py``, each its own control socket), the
  task worker under a supervisor loop that restarts it as systemd's
  ``Restart=always`` does (``--max-tasks 1``, so every PDF recycles it), an SMTP
  relay that demands STARTTLS (a throwaway self-signed certificate) and a login
  (``tests/smtp_sink.py``), and nginx from Debian with ``deploy/nginx/aifactory.conf``
  (ports, paths and certificate put in), over TLS;

and then walks: the health endpoints, a static file served by nginx from the
collected directory, sign-up with the confirmation mail through the relay, a
proposal, an autosave on one instance and the next on the other, a PDF through the
worker, ``sendtestemail``; kills one instance (SIGKILL) and sees the other serve,
autosave and render the next PDF through the restarted worker; checks the request
id in the answer, the application's JSON log and nginx's log; stops all it started.

Exit status 0 when every step passed, 1 when one failed (its logs are printed),
2 when it cannot run (no PostgreSQL, no nginx).
"""

from __future__ import annotations

import email
import email.policy
import html
import http.client
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
RELAY_USER, RELAY_PASSWORD = "wizard-relay", "relay-" + os.urandom(6).hex()
APPLICANT = ("prodcheck", "prodcheck@example.eu", "Prod-check-" + os.urandom(6).hex())


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# The wizard's form as a browser submits it, and its answer's markers: read the same
# way as the load test reads them.
loadtest = _module("loadtest", ROOT / "scripts" / "loadtest.py")
sink = _module("smtp_sink", ROOT / "tests" / "smtp_sink.py")


class StackError(Exception):
    """A step of the walk did not do what the README promises."""


def check(condition, message: str):
    if not condition:
        raise StackError(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what: str, probe, seconds: float = 60, every: float = 0.3):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = probe()
        if result:
            return result
        time.sleep(every)
    raise StackError(f"{what}: not within {seconds:.0f} s")


# --------------------------------------------------------------------------------
# Forms on ordinary pages
# --------------------------------------------------------------------------------


class Forms(HTMLParser):
    """Every ``<form method="post">`` of a page: its action and the values a
    browser would submit."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[tuple[str, dict[str, str]]] = []
        self._fields: dict[str, str] | None = None
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self._fields = {}
            self.forms.append((a.get("action") or "", self._fields))
        if self._fields is None:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = (a.get("type") or "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind not in ("submit", "button", "file"):
                self._fields[name] = a.get("value") or ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select:
            value = a.get("value") or ""
            first = self._select not in self._fields and value
            if first or "selected" in a:  # the first real option, or the selected
                self._fields[self._select] = value
        elif tag == "textarea" and name:
            self._textarea = name
            self._fields[name] = ""

    def handle_data(self, data):
        if self._textarea and self._fields is not None:
            self._fields[self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._fields = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def form_with(page: str, field: str) -> tuple[str, dict[str, str]]:
    reader = Forms()
    reader.feed(page)
    for action, fields in reader.forms:
        if field in fields:
            return action, dict(fields)
    raise StackError(f"no form with a {field!r} field on the page")


# --------------------------------------------------------------------------------
# A browser: one cookie jar, through nginx (TLS) or straight to one instance
# --------------------------------------------------------------------------------


class Browser:
    def __init__(self, stack: Stack):
        self.stack = stack
        self.cookies: dict[str, str] = {}
        self.tls = ssl.create_default_context(
            cafile=str(stack.dir / "tls" / "cert.pem")
        )

    @property
    def origin(self) -> str:
        return f"https://localhost:{self.stack.https_port}"

    def request(self, method, path, *, via="nginx", body=None, headers=None):
        """``via``: "nginx", or an instance's name, reached as nginx would reach it
        (the proxy's headers set by hand)."""
        headers = dict(headers or {})
        if via == "nginx":
            conn = http.client.HTTPSConnection(
                "localhost", self.stack.https_port, context=self.tls, timeout=30
            )
        else:
            conn = http.client.HTTPConnection(
                "127.0.0.1", self.stack.web_ports[via], timeout=30
            )
            headers.update(
                {
                    "Host": f"localhost:{self.stack.https_port}",
                    "X-Forwarded-Proto": "https",
                    "X-Forwarded-For": "127.0.0.1",
                }
            )
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            headers["Origin"] = self.origin
            headers["Referer"] = self.origin + path
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            body = urllib.parse.urlencode(body)
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        conn.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(header)
            for key, morsel in jar.items():
                self.cookies[key] = morsel.value
        return response, data

    def page(self, path, *, via="nginx", status=200) -> str:
        response, data = self.request("GET", path, via=via)
        check(
            response.status == status,
            f"GET {path} via {via}: {response.status}, expected {status}",
        )
        return data.decode("utf-8", "replace")

    def post(self, path, fields, *, via="nginx", headers=None):
        return self.request("POST", path, via=via, body=fields, headers=headers)


# --------------------------------------------------------------------------------
# The stack
# --------------------------------------------------------------------------------


class Stack:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="aifactory-prodcheck-"))
        self.dir.chmod(0o755)  # nginx's workers read the static files
        self.logs = self.dir / "logs"
        self.logs.mkdir()
        self.processes: dict[str, subprocess.Popen] = {}
        self.web_ports = {"web-a": free_port(), "web-b": free_port()}
        self.https_port, self.http_port = free_port(), free_port()
        self.smtp_port = free_port()
        self.admin = None
        self.database = None
        self.timings: list[tuple[str, float]] = []
        self.venv = self.dir / "venv"
        self.secret_key = "prodcheck-" + os.urandom(32).hex()
        self.python = self.venv / "bin" / "python"

    # Steps are timed and named in the output.
    def step(self, name: str, action, *args):
        started = time.monotonic()
        print(f"==> {name}", flush=True)
        result = action(*args)
        took = time.monotonic() - started
        self.timings.append((name, took))
        print(f"    ok ({took:.1f} s)", flush=True)
        return result

    # -- set-up ---------------------------------------------------------------

    def database_server(self) -> urllib.parse.SplitResult:
        url = os.environ.get("PRODCHECK_PG") or os.environ.get("DATABASE_URL") or ""
        if not url.startswith(("postgres://", "postgresql://")):
            done = subprocess.run(
                ["bash", str(ROOT / "scripts" / "local_postgres.sh")],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                sys.exit(2)
            url = done.stdout.strip()
        parts = urllib.parse.urlsplit(url)
        if parts.hostname not in LOOPBACK:
            print(
                f"prodcheck: refusing {parts.hostname}: loopback only", file=sys.stderr
            )
            sys.exit(2)
        return parts

    def create_database(self):
        import psycopg

        self.admin = self.database_server()
        name = f"aifactory_prodcheck_{os.getpid()}"
        with psycopg.connect(urllib.parse.urlunsplit(self.admin), autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}"')
            c.execute(f'CREATE DATABASE "{name}"')
        self.database = name

    def drop_database(self):
        import psycopg

        if self.database is None:
            return
        with psycopg.connect(urllib.parse.urlunsplit(self.admin), autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def install(self):
        """The README's production install: the lock file, hashes required."""
        subprocess.run([sys.executable, "-m", "venv", str(self.venv)], check=True)
        self.run(
            [
                str(self.python), "-m", "pip", "install", "--quiet",
                "--require-hashes", "--no-deps", "-r",
                str(ROOT / "requirements" / "production.txt"),
            ],
            "install",
        )  # fmt: skip
        frozen = subprocess.run(
            [str(self.python), "-m", "pip", "freeze"], capture_output=True, text=True
        ).stdout.lower()
        for tool in ("pytest", "ruff", "playwright", "hypothesis", "aiosmtpd"):
            check(f"{tool}==" not in frozen, f"{tool} is in the production install")

    @property
    def env(self) -> dict[str, str]:
        """The operator's /etc/aifactory/env for this stack, and nothing else."""
        database = urllib.parse.urlunsplit(
            self.admin._replace(path=f"/{self.database}")
        )
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.dir),
            "LANG": "C.UTF-8",
            "MPLCONFIGDIR": str(self.dir / "mpl"),
            "XDG_CACHE_HOME": str(self.dir / "cache"),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": self.secret_key,
            "DJANGO_ALLOWED_HOSTS": "localhost",
            "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://localhost:{self.https_port}",
            "DJANGO_SITE_URL": f"https://localhost:{self.https_port}",
            "DATABASE_URL": database,
            "DJANGO_CACHE_BACKEND": "db",
            "DJANGO_STATIC_ROOT": str(self.dir / "static"),
            "DJANGO_BEHIND_PROXY": "1",
            "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "DJANGO_EMAIL_HOST": "localhost",
            "DJANGO_EMAIL_PORT": str(self.smtp_port),
            "DJANGO_EMAIL_USE_TLS": "1",
            "DJANGO_EMAIL_HOST_USER": RELAY_USER,
            "DJANGO_EMAIL_HOST_PASSWORD": RELAY_PASSWORD,
            "DJANGO_EMAIL_TIMEOUT": "10",
            "DJANGO_DEFAULT_FROM_EMAIL": "AI Factory wizard <wizard@example.eu>",
            "DJANGO_SERVER_EMAIL": "wizard-errors@example.eu",
            "DJANGO_ADMINS": "Operations <ops@example.eu>",
            "DJANGO_LOG_FORMAT": "json",
            # The relay's throwaway certificate is the one CA these processes trust.
            "SSL_CERT_FILE": str(self.dir / "smtp-tls" / "cert.pem"),
            "WEB_CONCURRENCY": "2",
        }

    def run(self, argv, log: str, env=None):
        with open(self.logs / f"{log}.log", "a") as out:
            done = subprocess.run(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        check(done.returncode == 0, f"{' '.join(map(str, argv[:4]))}... failed")

    def manage(self, *args, log="manage"):
        self.run([str(self.python), "manage.py", *args], log, env=self.env)

    def start(self, name: str, argv, env=None, cwd=ROOT):
        with open(self.logs / f"{name}.log", "a") as out:  # the child keeps it
            self.processes[name] = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_relay(self):
        self.start(
            "smtp",
            [
                sys.executable, "-m", "tests.smtp_sink",
                "--port", str(self.smtp_port),
                "--user", RELAY_USER, "--password", RELAY_PASSWORD,
                "--certdir", str(self.dir / "smtp-tls"),
                "--maildir", str(self.dir / "mail"),
            ],
        )  # fmt: skip
        wait_for(
            "the SMTP relay", lambda: (self.dir / "smtp-tls" / "cert.pem").exists()
        )
        wait_for("the SMTP relay's port", lambda: self._listening(self.smtp_port))

    @staticmethod
    def _listening(port: int) -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    def start_web(self, name: str):
        env = dict(
            self.env,
            GUNICORN_BIND=f"127.0.0.1:{self.web_ports[name]}",
            RUNTIME_DIRECTORY=str(self.dir / f"run-{name}"),
        )
        (self.dir / f"run-{name}").mkdir(exist_ok=True)
        self.start(name, [str(self.venv / "bin" / "gunicorn")], env=env)

    def start_worker(self):
        """The worker as systemd runs it (deploy/systemd/aifactory-worker@.service):
        it exits after --max-tasks and is started again."""
        loop = (
            'while :; do nice -n 10 "$0" manage.py db_worker --no-reload '
            '--max-tasks 1; echo "supervisor: worker exited ($?), restarting"; '
            "sleep 1; done"
        )
        self.start("worker", ["bash", "-c", loop, str(self.python)], env=self.env)

    def start_nginx(self):
        site = (ROOT / "deploy" / "nginx" / "aifactory.conf").read_text()
        a, b = self.web_ports["web-a"], self.web_ports["web-b"]
        for old, new in [
            ("127.0.0.1:8001", f"127.0.0.1:{a}"),
            ("127.0.0.1:8002", f"127.0.0.1:{b}"),
            ("listen [::]:80;", ""),
            ("listen [::]:443 ssl http2;", ""),
            ("listen 80;", f"listen 127.0.0.1:{self.http_port};"),
            ("listen 443 ssl", f"listen 127.0.0.1:{self.https_port} ssl"),
            ("server_name wizard.example.eu;", "server_name localhost;"),
            (
                "/etc/letsencrypt/live/wizard.example.eu/fullchain.pem",
                str(self.dir / "tls" / "cert.pem"),
            ),
            (
                "/etc/letsencrypt/live/wizard.example.eu/privkey.pem",
                str(self.dir / "tls" / "key.pem"),
            ),
            ("/srv/aifactory/static/", f"{self.dir}/static/"),
            (
                "/var/log/nginx/aifactory.access.log",
                str(self.logs / "nginx-access.log"),
            ),
            ("/var/www/html", str(self.dir / "www")),
        ]:
            check(old in site, f"deploy/nginx/aifactory.conf no longer has {old!r}")
            site = site.replace(old, new)
        (self.dir / "site.conf").write_text(site)
        sink.make_certificate(self.dir / "tls")
        temp = self.dir / "nginx-temp"
        temp.mkdir()
        user = "user root root;\n" if os.geteuid() == 0 else ""
        (self.dir / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {self.dir}/nginx.pid;\n"
            f"error_log {self.logs}/nginx-error.log;\nevents {{}}\n"
            "http {\n  include /etc/nginx/mime.types;\n"
            "  default_type application/octet-stream;\n"
            f"  access_log {self.logs}/nginx-other.log;\n"
            + "".join(
                f"  {kind}_temp_path {temp}/{kind};\n"
                for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
            )
            + f"  include {self.dir}/site.conf;\n}}\n"
        )
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        conf = ["-c", str(self.dir / "nginx.conf"), "-p", str(self.dir)]
        self.run([nginx, "-t", *conf], "nginx-test")
        self.start("nginx", [nginx, *conf, "-g", "daemon off;"])
        wait_for("nginx", lambda: self._listening(self.https_port))

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in self.processes.items():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print(f"    {name} ignored SIGTERM; killed", flush=True)
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def kill(self, name: str):
        """A crash, not a shutdown: the arbiter and its workers at once."""
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait()

    def print_logs(self):
        for log in sorted(self.logs.iterdir()):
            lines = log.read_text(errors="replace").splitlines()[-25:]
            print(f"---- {log.name} (last {len(lines)} lines)", file=sys.stderr)
            print("\n".join(lines), file=sys.stderr)

    def app_log(self, name: str) -> list[dict]:
        """The JSON lines of an instance's log (gunicorn's own lines are text)."""
        entries = []
        for line in (self.logs / f"{name}.log").read_text().splitlines():
            if line.startswith("{"):
                entries.append(json.loads(line))
        return entries


# --------------------------------------------------------------------------------
# The walk
# --------------------------------------------------------------------------------


def mails(stack: Stack) -> list[email.message.EmailMessage]:
    folder = stack.dir / "mail"
    if not folder.exists():
        return []
    return [
        email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        for path in sorted(folder.glob("*.eml"))
    ]


def mail_text(message) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    return part.get_content()


def health(stack: Stack, browser: Browser):
    for path in ("/healthz", "/readyz"):
        response, data = browser.request("GET", path)
        body = json.loads(data)
        check(response.status == 200, f"{path}: {response.status} {body}")
        check(
            body["status"] == "ok" and all(body["checks"].values()), f"{path}: {body}"
        )
        check(set(body) == {"status", "checks"}, f"{path} says more: {body}")
    # migrate made the cache table: nobody ran createcachetable.
    check(json.loads(data)["checks"]["cache"] is True, "no cache table")
    # A probe on an instance's own address, no Host of the site, no HTTPS.
    conn = http.client.HTTPConnection("127.0.0.1", stack.web_ports["web-a"], timeout=10)
    conn.request("GET", "/readyz")
    check(conn.getresponse().status == 200, "/readyz on the instance's address")


def static_files(stack: Stack, browser: Browser):
    page = browser.page("/")
    found = re.search(r'href="(/static/css/app\.[0-9a-f]{12}\.css)"', page)
    check(found, "the landing page links no hashed stylesheet (collectstatic?)")
    response, data = browser.request("GET", found.group(1))
    check(response.status == 200 and b"{" in data, f"stylesheet: {response.status}")
    # One Cache-Control header: with two (nginx's `expires` and ours), a cache may
    # take the first, five minutes.
    cache_control = response.msg.get_all("Cache-Control") or []
    check(
        cache_control == ["public, max-age=31536000, immutable"],
        f"hashed file's Cache-Control: {cache_control}",
    )
    # Served by nginx from the collected directory, not by gunicorn (which would
    # have added its request id).
    check(response.getheader("X-Request-ID") is None, "static file came from gunicorn")
    # server_tokens off: nginx names itself, not its version.
    check(
        response.getheader("Server") == "nginx",
        f"Server: {response.getheader('Server')}",
    )
    response, _ = browser.request("GET", "/static/css/app.css")
    check(response.status == 200, "the plain name the error pages use")


def sign_up(stack: Stack, browser: Browser) -> None:
    username, address, password = APPLICANT
    action, fields = form_with(browser.page("/accounts/signup/"), "password1")
    fields.update(
        username=username, email=address, password1=password, password2=password
    )
    response, _ = browser.post(action or "/accounts/signup/", fields)
    check(response.status == 302, f"sign-up answered {response.status}")
    message = wait_for(
        "the confirmation mail at the relay",
        lambda: next((m for m in mails(stack) if address in m["To"]), None),
        seconds=30,
    )
    link = re.search(r"https://[^\s/]+(/accounts/verify/[^\s]+/)", mail_text(message))
    check(link, "no confirmation link in the mail")
    path = link.group(1)
    action, fields = form_with(browser.page(path), "csrfmiddlewaretoken")
    response, _ = browser.post(action or path, fields)
    check(response.status == 302, f"confirming answered {response.status}")
    check("sessionid" in browser.cookies, "not logged in after confirming")


def create_proposal(stack: Stack, browser: Browser) -> int:
    action, fields = form_with(browser.page("/proposals/new/"), "title")
    fields["title"] = "Production check"
    response, _ = browser.post(action or "/proposals/new/", fields)
    check(response.status == 302, f"creating a proposal answered {response.status}")
    found = re.search(r"/proposals/(\d+)/", response.getheader("Location"))
    check(found, "no proposal in the redirect")
    return int(found.group(1))


class Typist:
    """The wizard's autosave as the page's htmx sends it, on a chosen instance."""

    step = "optimisation"

    def __init__(self, browser: Browser, proposal: int):
        self.browser = browser
        self.url = f"/proposals/{proposal}/{self.step}/"
        reader = loadtest.FormReader()
        reader.feed(browser.page(self.url, via="web-a"))
        self.fields = dict(reader.fields)
        self.field = next(n for n in self.fields if n.endswith(loadtest.FIELD))

    def save(self, text: str, via: str) -> http.client.HTTPResponse:
        fields = dict(self.fields, autosave="1")
        fields[self.field] = text
        response, data = self.browser.post(
            self.url,
            fields,
            via=via,
            headers={"HX-Request": "true", "HX-Current-URL": self.browser.origin},
        )
        answer = data.decode("utf-8", "replace")
        state = loadtest.STATE.search(answer)
        check(
            response.status == 200 and state and state.group(1) == "saved",
            f"autosave via {via}: HTTP {response.status}, "
            f"{state.group(1) if state else 'no save status'}",
        )
        self.fields[self.field] = text
        bases = loadtest.BASES.search(answer)
        if bases:
            self.fields["bases"] = html.unescape(bases.group(1))
        for name, value in loadtest.REGION_KEY.findall(answer):
            self.fields[name] = html.unescape(value)
        return response


def autosaves_on_both(stack: Stack, browser: Browser, proposal: int) -> Typist:
    typist = Typist(browser, proposal)
    first = typist.save("Mixed precision on one instance.", via="web-a")
    second = typist.save(
        "Mixed precision on one instance. Then the other instance.", via="web-b"
    )
    page = browser.page(typist.url)
    check("Then the other instance." in page, "the second save is not on the page")
    for name, response in (("web-a", first), ("web-b", second)):
        rid = response.getheader("X-Request-ID")
        lines = [e for e in stack.app_log(name) if e.get("request_id") == rid]
        check(
            any(e.get("status") == 200 and e.get("method") == "POST" for e in lines),
            f"{name}'s log has no line for request {rid}",
        )
    return typist


def pdf_through_the_worker(stack: Stack, browser: Browser, proposal: int) -> bytes:
    response, _ = browser.request("GET", f"/proposals/{proposal}/export.pdf")
    check(response.status == 302, f"PDF: {response.status}")
    status_url = urllib.parse.urlsplit(response.getheader("Location")).path
    file_url = re.compile(rf"/proposals/{proposal}/export/pdf/\d+/file\.pdf")

    def ready():
        found = file_url.search(browser.page(status_url))
        return found and found.group(0)

    url = wait_for("the PDF from the worker", ready, seconds=90, every=1)
    response, data = browser.request("GET", url)
    check(response.status == 200 and data.startswith(b"%PDF"), "not a PDF")
    return data


def test_mail(stack: Stack, browser: Browser):
    before = len(mails(stack))
    stack.manage("sendtestemail", "--admins", log="sendtestemail")
    message = wait_for(
        "sendtestemail at the relay",
        lambda: next(iter(mails(stack)[before:]), None),
        seconds=20,
    )
    check("ops@example.eu" in message["To"], f"test mail went to {message['To']}")


def one_instance_down(stack: Stack, browser: Browser, typist: Typist, proposal: int):
    access = stack.logs / "nginx-access.log"
    seen = len(access.read_text().splitlines())
    stack.kill("web-a")
    for _ in range(6):
        browser.page(typist.url)
    typist.save("After web-a died.", via="nginx")
    check("After web-a died." in browser.page(typist.url), "save lost")
    # nginx writes the instances it tried, in order: every answer since the kill
    # came from web-b (some after a refused connection to web-a).
    b = f"127.0.0.1:{stack.web_ports['web-b']}"
    since = access.read_text().splitlines()[seen:]
    check(len(since) >= 8, "nginx logged too few requests")
    for line in since:
        upstream = re.search(r" (\S+) rid=", line).group(1)
        check(upstream.endswith(b), f"served by {upstream} after web-a died")
    # The next PDF (new content) comes from the worker the supervisor restarted.
    pdf_through_the_worker(stack, browser, proposal)
    restarts = (stack.logs / "worker.log").read_text().count("supervisor: worker exit")
    check(restarts >= 1, "the worker was never recycled")
    print(f"    worker recycled {restarts} times by its supervisor", flush=True)


def request_ids(stack: Stack, browser: Browser):
    response, _ = browser.request("GET", "/glossary/")
    rid = response.getheader("X-Request-ID")
    check(rid and re.fullmatch(r"[0-9a-f]{32}", rid), f"request id {rid!r}")
    access = (stack.logs / "nginx-access.log").read_text()
    check(f"rid={rid}" in access, "nginx's log lacks the id the answer carries")
    check(
        any(e.get("request_id") == rid for e in stack.app_log("web-b")),
        "the application's log lacks the id",
    )


def main() -> int:
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        print("prodcheck: needs nginx (apt-get install nginx)", file=sys.stderr)
        return 2
    # Stopped from outside (a CI time limit): still stop what was started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    stack = Stack()
    started = time.monotonic()
    failed = False
    try:
        stack.step("Scratch PostgreSQL database", stack.create_database)
        stack.step("Install from requirements/production.txt", stack.install)
        stack.step("SMTP relay (STARTTLS, login)", stack.start_relay)
        stack.step(
            "check --deploy", stack.manage, "check", "--deploy", "--fail-level",
            "WARNING",
        )  # fmt: skip
        stack.step("migrate", stack.manage, "migrate", "--noinput")
        stack.step("collectstatic", stack.manage, "collectstatic", "--noinput")

        def servers():
            stack.start_web("web-a")
            stack.start_web("web-b")
            stack.start_worker()
            stack.start_nginx()
            for port in stack.web_ports.values():
                wait_for(f"gunicorn on {port}", lambda p=port: stack._listening(p))

        stack.step("Two gunicorn instances, the worker, nginx", servers)
        browser = Browser(stack)
        stack.step("Health endpoints", health, stack, browser)
        stack.step(
            "Static files from the collected directory", static_files, stack, browser
        )
        stack.step(
            "Sign-up, confirmation mail through the relay", sign_up, stack, browser
        )
        proposal = stack.step("A proposal", create_proposal, stack, browser)
        typist = stack.step(
            "Autosave on one instance, the next on the other",
            autosaves_on_both, stack, browser, proposal,
        )  # fmt: skip
        stack.step(
            "A PDF through the worker", pdf_through_the_worker, stack, browser, proposal
        )
        stack.step("sendtestemail through the relay", test_mail, stack, browser)
        stack.step(
            "One instance killed: the other serves, saves, the worker recycles",
            one_instance_down, stack, browser, typist, proposal,
        )  # fmt: skip
        stack.step(
            "Request id in the answer and both logs", request_ids, stack, browser
        )
        stack.step("Health endpoints after all that", health_after, stack, browser)
    except Exception as exc:  # a failed check, or anything the walk did not expect
        failed = True
        print(f"prodcheck FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        stack.print_logs()
    finally:
        stack.step("Stop everything", stack.stop)
        stack.drop_database()
        shutil.rmtree(stack.dir, ignore_errors=True)
    total = time.monotonic() - started
    print(f"prodcheck {'FAILED' if failed else 'passed'} in {total:.0f} s")
    return 1 if failed else 0


def health_after(stack: Stack, browser: Browser):
    response, data = browser.request("GET", "/readyz")
    body = json.loads(data)
    check(response.status == 200 and all(body["checks"].values()), f"/readyz: {body}")


if __name__ == "__main__":
    sys.exit(main())
