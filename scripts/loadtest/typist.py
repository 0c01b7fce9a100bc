"""One simulated typist: its session, its autosaves and what was acknowledged."""

from __future__ import annotations

import http.client
import time
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

from .config import FIELD, STEP
from .page import STATE, FormReader, take_answer

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
        # What the page keeps: the saved bases, the regions' keys, the revision.
        take_answer(self.fields, answer)

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
