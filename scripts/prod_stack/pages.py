"""Forms on ordinary pages, and a browser: one cookie jar, through nginx (TLS) or
straight to one instance."""

from __future__ import annotations

import http.client
import ssl
import urllib.parse
from html.parser import HTMLParser
from http.cookies import SimpleCookie

from .common import StackError, check
from .stack import Stack

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
