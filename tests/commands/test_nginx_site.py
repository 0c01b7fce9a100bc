"""deploy/nginx/aifactory.conf: its body limits follow the application's own, and
(with nginx installed) the site as shipped answers ``HEAD`` like ``GET`` without the
body, refuses a large body with 413 where the application takes only small forms,
and lets the wizard's steps, the JSON import and the training logs through.

The live tests run Debian's nginx on loopback in front of a stand-in for gunicorn
that answers ``HEAD`` with 405, as the application's GET-only pages do."""

import re
import signal
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from proposals.domain import training_logs
from proposals.exports import jsonio
from proposals.views.wizard import STEP_SLUGS
from scripts.prod_stack import nginx_site
from scripts.prod_stack.edge import MB, head, post_size
from tests import smtp_sink

SITE = nginx_site.SITE.read_text()


def _size(value: str) -> int:
    number, unit = re.fullmatch(r"([0-9]+)([kKmMgG]?)", value).groups()
    return int(number) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[unit.lower()]


def _locations(text: str) -> dict[str, int]:
    """``{location: client_max_body_size}`` of the HTTPS server, nested locations
    inheriting their parent's; the server's own under ``"server"``."""
    text = re.sub(r"#[^\n]*", "", text)
    server = text[text.index("listen 443") :]
    sizes: dict[str, int] = {}
    stack: list[tuple[str, int]] = []
    current = None
    for token in re.finditer(
        r"location\s+([^{]+?)\s*\{|client_max_body_size\s+(\S+);|\}", server
    ):
        if token.group(1):
            inherited = stack[-1][1] if stack else current
            stack.append((token.group(1), inherited))
            sizes[token.group(1)] = inherited
        elif token.group(2):
            size = _size(token.group(2))
            if stack:
                stack[-1] = (stack[-1][0], size)
                sizes[stack[-1][0]] = size
            else:
                current = sizes["server"] = size
        elif stack:
            stack.pop()
    return sizes


LIMITS = _locations(SITE)
WIZARD = "~ ^/(?:proposals/[0-9]+|admin)/"
LOGS = "~ ^/proposals/[0-9]+/logs/$"
IMPORT = "= /proposals/import/"


def _limit_for(path: str) -> int:
    """nginx's choice for this site: the exact location, else the first regex that
    matches (the nested logs one first within the wizard's), else the server's."""
    if path == IMPORT.split()[1]:
        return LIMITS[IMPORT]
    if re.search(LOGS.split()[1], path):
        return LIMITS[LOGS]
    if re.search(WIZARD.split()[1], path):
        return LIMITS[WIZARD]
    return LIMITS["server"]


def test_small_bodies_where_the_application_takes_small_forms():
    assert LIMITS["server"] <= 2 * MB
    assert LIMITS["/"] == LIMITS["server"]


def test_each_large_post_has_room_for_what_the_application_takes():
    # A wizard step at the format's limits: nginx never refuses what Django takes.
    assert LIMITS[WIZARD] >= settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert LIMITS[WIZARD] < settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 4 * MB
    # Three runs' logs at the reader's limit, beside the step's fields.
    assert LIMITS[LOGS] >= 3 * training_logs.MAX_FILE_BYTES + 8 * MB
    # A proposal file somewhat too large still gets the application's message.
    assert LIMITS[IMPORT] >= 2 * jsonio.MAX_UPLOAD_BYTES


@pytest.mark.parametrize(
    ("name", "kwargs", "limit"),
    [
        ("proposals:step", {"pk": 12, "step": STEP_SLUGS[0]}, WIZARD),
        ("proposals:step", {"pk": 12, "step": STEP_SLUGS[-1]}, WIZARD),
        (
            "proposals:row",
            {"pk": 12, "step": STEP_SLUGS[0], "kind": "codes", "operation": "add"},
            WIZARD,
        ),
        ("proposals:paste", {"pk": 12, "kind": "measurements"}, WIZARD),
        ("proposals:logs_undo", {"pk": 12}, WIZARD),
        ("proposals:logs_retry", {"pk": 12, "reading_id": 3}, WIZARD),
        ("proposals:import_json_revision", {"pk": 12}, WIZARD),
        ("proposals:logs", {"pk": 12}, LOGS),
        ("proposals:import_json", {}, IMPORT),
        ("proposals:create", {}, "server"),
        ("proposals:review_queue", {}, "server"),
        ("login", {}, "server"),
        ("signup", {}, "server"),
        ("home", {}, "server"),
    ],
)
def test_the_application_addresses_get_their_limits(name, kwargs, limit):
    assert _limit_for(reverse(name, kwargs=kwargs)) == LIMITS[limit]


def test_admin_posts_get_the_wizard_limit():
    assert (
        _limit_for(reverse("admin:proposals_proposal_change", args=[1]))
        == (LIMITS[WIZARD])
    )


# --------------------------------------------------------------- nginx itself

NGINX = nginx_site.nginx_binary()
live = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (Debian: apt-get install nginx)"
)
PAGE = b"<!doctype html><title>home</title>" + b"." * 5000


class _Gunicorn(BaseHTTPRequestHandler):
    """What nginx passes on, answered as the application does: GET-only pages."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def do_HEAD(self):
        self.send_response(405)
        self.send_header("Allow", "GET")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers["Content-Length"])
        while length:
            length -= len(self.rfile.read(min(length, MB)))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


# One worker runs the module (make test runs in parallel, --dist loadgroup):
# its nginx (module scope) is then started once, not once per worker.
pytestmark = pytest.mark.xdist_group("nginx-site")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    directory = tmp_path_factory.mktemp("nginx")
    directory.chmod(0o755)
    logs = directory / "logs"
    logs.mkdir()
    upstreams = [ThreadingHTTPServer(("127.0.0.1", 0), _Gunicorn) for _ in range(2)]
    for server in upstreams:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    https_port, http_port = smtp_sink.free_port(), smtp_sink.free_port()
    certificate = smtp_sink.make_certificate(directory / "tls")
    version = nginx_site.nginx_version(NGINX)
    (directory / "site.conf").write_text(
        nginx_site.render(
            upstreams=[server.server_address[1] for server in upstreams],
            https_port=https_port,
            http_port=http_port,
            certificate=certificate,
            static=directory / "static",
            www=directory / "www",
            access_log=logs / "access.log",
            version=version,
        )
    )
    (directory / "nginx.conf").write_text(
        nginx_site.main_config(directory, logs, directory / "site.conf")
    )
    conf = ["-c", str(directory / "nginx.conf"), "-p", str(directory)]
    checked = subprocess.run([NGINX, "-t", *conf], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen([NGINX, *conf, "-g", "daemon off;"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", https_port)) == 0:
                break
        time.sleep(0.1)
    tls = ssl.create_default_context(cafile=str(certificate[0]))
    yield {"port": https_port, "tls": tls, "test": checked.stderr}
    process.send_signal(signal.SIGQUIT)
    process.wait(timeout=30)
    for server in upstreams:
        server.shutdown()


@live
def test_nginx_takes_the_site_without_a_warning(site):
    # Neither the deprecated `listen ... http2` on a newer nginx nor anything else.
    assert "[warn]" not in site["test"] and "[emerg]" not in site["test"], site["test"]


@live
def test_head_is_answered_as_get_without_the_body(site):
    status, headers, extra = head(site["port"], site["tls"], "/")
    assert status == 200
    assert headers["content-length"] == str(len(PAGE))
    assert extra == b""


@live
@pytest.mark.parametrize(
    ("path", "size", "status"),
    [
        ("/accounts/login/", 5 * MB, 413),
        ("/accounts/login/", MB // 2, 200),
        ("/proposals/12/", 5 * MB, 200),
        ("/proposals/12/general/", 30 * MB, 200),
        ("/proposals/12/general/", 40 * MB, 413),
        ("/proposals/12/logs/", 60 * MB, 200),
        ("/proposals/12/logs/", 170 * MB, 413),
        ("/proposals/import/", 5 * MB, 200),
        ("/proposals/import/", 12 * MB, 413),
        ("/proposals/", 5 * MB, 413),
    ],
)
def test_bodies_are_limited_per_address(site, path, size, status):
    assert post_size(site["port"], site["tls"], path, size)[0] == status


def test_http2_is_spelt_for_the_nginx_version():
    old = nginx_site.http2_for(SITE, (1, 22, 1))
    assert old == SITE and "listen 443 ssl http2;" in old
    new = nginx_site.http2_for(SITE, (1, 25, 1))
    assert " http2;" not in new.replace("http2 on;", "")
    assert re.search(r"^\s*http2 on;", new, re.M)
    assert "listen 443 ssl;" in new and "listen [::]:443 ssl;" in new


def test_operators_guide_turns_http2_on_as_the_stack_does():
    guide = (Path(nginx_site.ROOT) / "docs" / "operators.md").read_text()
    assert "sed -i -e 's/ ssl http2;/ ssl;/' -e 's/# http2 on;/http2 on;/'" in guide
