"""The walk: each step a person (or the operator) takes, checked."""

from __future__ import annotations

import email
import email.policy
import http.client
import json
import re
import urllib.parse

from scripts.loadtest.config import FIELD
from scripts.loadtest.page import STATE, FormReader, take_answer

from .common import APPLICANT, check, wait_for
from .pages import Browser, form_with
from .stack import Stack

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
        reader = FormReader()
        reader.feed(browser.page(self.url, via="web-a"))
        self.fields = dict(reader.fields)
        self.field = next(n for n in self.fields if n.endswith(FIELD))

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
        state = STATE.search(answer)
        check(
            response.status == 200 and state and state.group(1) == "saved",
            f"autosave via {via}: HTTP {response.status}, "
            f"{state.group(1) if state else 'no save status'}",
        )
        self.fields[self.field] = text
        # What the page keeps: the saved bases, the regions' keys, the revision.
        take_answer(self.fields, answer)
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

    # nginx writes a request's line after sending its answer, so the last one may
    # come a moment after the client has read it.
    def logged_since_the_kill():
        lines = access.read_text().splitlines()[seen:]
        return lines if len(lines) >= 8 else None

    since = wait_for(
        "nginx's log of the 8 requests since the kill",
        logged_since_the_kill,
        seconds=10,
        every=0.1,
    )
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
    # nginx writes its access line after the answer has left: wait for it a little.
    access = stack.logs / "nginx-access.log"
    wait_for(
        "nginx's log line with the id the answer carries",
        lambda: f"rid={rid}" in access.read_text(),
        seconds=10,
    )
    check(
        any(e.get("request_id") == rid for e in stack.app_log("web-b")),
        "the application's log lacks the id",
    )


def health_after(stack: Stack, browser: Browser):
    response, data = browser.request("GET", "/readyz")
    body = json.loads(data)
    check(response.status == 200 and all(body["checks"].values()), f"/readyz: {body}")
