"""deploy/nginx/aifactory.conf as this machine runs it: on loopback ports, with a
throwaway certificate, in a scratch directory, and with HTTP/2 spelt as the local
nginx wants it. Used by the stack (stack.py) and by tests/commands/test_nginx_site.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from .common import ROOT, check

SITE = ROOT / "deploy" / "nginx" / "aifactory.conf"
#: nginx 1.25.1 has the `http2` directive and deprecates `listen ... http2`.
HTTP2_DIRECTIVE = (1, 25, 1)


def nginx_binary() -> str | None:
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None


def nginx_version(nginx: str) -> tuple[int, ...]:
    done = subprocess.run([nginx, "-v"], capture_output=True, text=True)
    found = re.search(r"nginx/([0-9.]+)", done.stderr + done.stdout)
    check(found, f"nginx -v: {done.stderr!r}")
    return tuple(int(part) for part in found.group(1).split("."))


def http2_for(site: str, version: tuple[int, ...]) -> str:
    """The shipped config is written for Debian 12's nginx (`listen ... ssl http2`);
    from 1.25.1 on, the README's command turns it into `http2 on;`. This is that
    command (sed -e 's/ ssl http2;/ ssl;/' -e 's/# http2 on;/http2 on;/')."""
    if version < HTTP2_DIRECTIVE:
        return site
    return site.replace(" ssl http2;", " ssl;").replace("# http2 on;", "http2 on;")


def render(
    *,
    upstreams: list[int],
    https_port: int,
    http_port: int,
    certificate: tuple[Path, Path],
    static: Path,
    www: Path,
    access_log: Path,
    version: tuple[int, ...],
) -> str:
    site = SITE.read_text()
    first, second = upstreams
    for old, new in [
        ("127.0.0.1:8001", f"127.0.0.1:{first}"),
        ("127.0.0.1:8002", f"127.0.0.1:{second}"),
        ("    listen [::]:80;\n", ""),
        ("    listen [::]:443 ssl http2;\n", ""),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen 443 ssl", f"listen 127.0.0.1:{https_port} ssl"),
        ("server_name wizard.example.eu;", "server_name localhost;"),
        ("/etc/letsencrypt/live/wizard.example.eu/fullchain.pem", str(certificate[0])),
        ("/etc/letsencrypt/live/wizard.example.eu/privkey.pem", str(certificate[1])),
        ("/srv/aifactory/static/", f"{static}/"),
        ("/var/log/nginx/aifactory.access.log", str(access_log)),
        ("/var/www/html", str(www)),
    ]:
        check(old in site, f"deploy/nginx/aifactory.conf no longer has {old!r}")
        site = site.replace(old, new)
    return http2_for(site, version)


def main_config(directory: Path, logs: Path, site: Path) -> str:
    """nginx.conf around the site, everything it writes in ``directory``."""
    temp = directory / "nginx-temp"
    temp.mkdir(exist_ok=True)
    user = "user root root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}worker_processes 1;\npid {directory}/nginx.pid;\n"
        f"error_log {logs}/nginx-error.log;\nevents {{}}\n"
        "http {\n  include /etc/nginx/mime.types;\n"
        "  default_type application/octet-stream;\n"
        f"  access_log {logs}/nginx-other.log;\n"
        + "".join(
            f"  {kind}_temp_path {temp}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + f"  include {site};\n}}\n"
    )
