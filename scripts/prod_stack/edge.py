"""nginx at the edge: ``HEAD /`` answers as GET does without the body (it was 405:
the application's pages take GET only), a large body is refused with 413 wherever
the application takes none (the 160 MB limit once applied to every address), and
a training log of 60 MB still reaches the application."""

from __future__ import annotations

import http.client
import ssl
import uuid

from .common import check
from .pages import Browser
from .stack import Stack
from .walk import create_proposal

MB = 2**20
CHUNK = MB


def head(port: int, tls: ssl.SSLContext, path: str) -> tuple[int, dict, bytes]:
    """HEAD through nginx: the status, the headers, and whatever came as a body
    (read off the socket until the server closes it or 2 s pass)."""
    conn = http.client.HTTPSConnection("localhost", port, context=tls, timeout=10)
    conn.request("HEAD", path, headers={"Connection": "close"})
    response = conn.getresponse()
    headers = {k.lower(): v for k, v in response.getheaders()}
    # http.client reads no body for HEAD: read the socket itself, so that a body
    # sent against the rules would show.
    extra = b""
    sock = conn.sock
    if sock is not None:
        sock.settimeout(2)
        try:
            while chunk := sock.recv(65536):
                extra += chunk
        except (TimeoutError, OSError):
            pass
    conn.close()
    return response.status, headers, extra


def post_size(
    port: int,
    tls: ssl.SSLContext,
    path: str,
    size: int,
    headers: dict[str, str] | None = None,
    *,
    content_type: str = "application/x-www-form-urlencoded",
    head: bytes = b"",
    tail: bytes = b"",
) -> tuple[int, dict, bytes]:
    """POST ``head``, ``size`` bytes and ``tail`` through nginx; the status, headers
    and body of the answer. nginx may answer 413 before the body is sent: the rest
    is then not sent."""
    conn = http.client.HTTPSConnection("localhost", port, context=tls, timeout=120)
    conn.putrequest("POST", path)
    for key, value in {
        "Content-Type": content_type,
        "Content-Length": str(len(head) + size + len(tail)),
        **(headers or {}),
    }.items():
        conn.putheader(key, value)
    conn.endheaders()
    block = b"x" * CHUNK
    try:
        conn.send(head)
        sent = 0
        while sent < size:
            part = block[: min(CHUNK, size - sent)]
            conn.send(part)
            sent += len(part)
        conn.send(tail)
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused early; the answer is waiting
    response = conn.getresponse()
    answer = {k.lower(): v for k, v in response.getheaders()}
    body = response.read()
    conn.close()
    return response.status, answer, body


def edge_limits(stack: Stack, browser: Browser) -> dict:
    port, tls = stack.https_port, browser.tls
    # HEAD / as GET / (a visitor's: no cookie), without the body.
    conn = http.client.HTTPSConnection("localhost", port, context=tls, timeout=30)
    conn.request("GET", "/")
    response = conn.getresponse()
    page = response.read()
    conn.close()
    check(response.status == 200 and page, f"GET /: {response.status}")
    head_status, headers, extra = head(port, tls, "/")
    check(head_status == 200, f"HEAD /: {head_status}, expected 200 as for GET")
    check(extra == b"", f"HEAD / sent a body of {len(extra)} bytes")
    check(
        headers.get("content-type") == response.getheader("Content-Type"),
        f"HEAD / Content-Type {headers.get('content-type')!r}",
    )
    # A 5 MB body where the application takes a small form: refused by nginx.
    small_status, _, body = post_size(port, tls, "/accounts/login/", 5 * MB)
    check(small_status == 413, f"5 MB to /accounts/login/: {small_status}, not 413")
    check(b"nginx" in body, "the 413 did not come from nginx")
    # A 60 MB training log, as the logs form sends it, passes nginx and is taken
    # by the application (which keeps a file above 50 MiB by name only).
    proposal = create_proposal(stack, browser)
    path = f"/proposals/{proposal}/logs/"
    boundary = uuid.uuid4().hex
    log_status, answer, page = post_size(
        port,
        tls,
        path,
        60 * MB,
        {
            "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items()),
            "Origin": browser.origin,
            "Referer": browser.origin + path,
            "X-CSRFToken": browser.cookies.get("csrftoken", ""),
        },
        content_type=f"multipart/form-data; boundary={boundary}",
        head=(
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="logs"\r\n\r\n1\r\n'
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="logs-files"; filename="big.log"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode(),
        tail=f"\r\n--{boundary}--\r\n".encode(),
    )
    check(log_status == 200, f"60 MB to the logs address: {log_status}")
    check("x-request-id" in answer, "the 60 MB upload was not answered by gunicorn")
    check(b"Waiting for the task worker" in page, "the upload was not handed over")
    figures = {
        "HEAD /": f"{head_status}, {headers.get('content-length')} bytes announced, "
        f"{len(extra)} sent",
        "5 MB to /accounts/login/": str(small_status),
        "60 MB log to /proposals/<id>/logs/": str(log_status),
    }
    for label, value in figures.items():
        print(f"    {label}: {value}")
    return figures
