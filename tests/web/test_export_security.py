"""Applicant text is data in every export: escaped or inert, never markup, and the
PDF renderer fetches nothing but our own static files."""

import io
import re
import socket
import threading
from decimal import Decimal

import pytest
from django.urls import reverse
from pypdf import PdfReader

from proposals.exports import markdown, pdf
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
LINK = "[x](javascript:alert(1))"
PIPES = "| table | breakers |"


@pytest.fixture
def hostile(user):
    text = f"{SCRIPT}\n{IMG}\n{LINK}\n{PIPES}\n# not a heading"
    proposal = ProposalFactory(
        owner=user,
        title=f"Title {SCRIPT}",
        libraries=IMG,
        storage_tb=Decimal("1"),
        storage_justification=text,
        scalability_narrative=text,
        optimisation_narrative=LINK,
        total_gpu_hours=Decimal("60000"),
        max_gpus_per_job=8,
    )
    code = CodeEntryFactory(
        proposal=proposal,
        name=f"evil {SCRIPT}",
        references=f"javascript:alert(1)\n{IMG}",
        description=text,
    )
    JobTypeFactory(proposal=proposal, title=PIPES, gpus=8, hours=Decimal("4"))
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=4, hardware=IMG)
    ScalingMeasurementFactory(
        proposal=proposal, code=code, gpus=8, throughput=Decimal("2300"), unit=PIPES
    )
    UsageMonthFactory(proposal=proposal, activity=f"{PIPES} {SCRIPT}")
    return proposal


def test_portal_page_escapes_applicant_text(hostile, user_client):
    html = user_client.get(
        reverse("proposals:export_portal", args=[hostile.pk])
    ).content.decode()
    assert SCRIPT not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'href="javascript' not in html


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_escapes_applicant_text(hostile, user_client):
    text = user_client.get(
        reverse("proposals:export_markdown", args=[hostile.pk])
    ).content.decode()
    # Every "<" is escaped (only http(s) autolinks keep theirs): no tag can start.
    assert re.search(r"(?<!\\)<(?!https?://)", text) is None
    assert r"\<script\>alert(1)\</script\>" in text
    # No link can start: the brackets are literal.
    assert "[x](javascript" not in text
    assert r"\[x\](javascript:alert(1))" in text
    assert "](javascript" not in text.replace(r"\](javascript", "")
    # "javascript:" references are text, never an autolink.
    assert "<javascript:" not in text
    # A heading marker in applicant text stays text.
    assert "\n# not a heading" not in text
    # Table rows keep their column count despite the pipes in the cells.
    job_row = next(
        line for line in text.splitlines() if "table" in line and "| 8 |" in line
    )
    assert _unescaped_pipes(job_row) == 7
    schedule_row = next(
        line for line in text.splitlines() if line.startswith("| Month 1")
    )
    assert _unescaped_pipes(schedule_row) == 4


BREAKER = "Foo\n# Heading\n- item\r\n1. first\r> quote\u2028~~~\n---"


def test_line_breaks_in_single_line_fields_make_no_structure(user, user_client):
    proposal = ProposalFactory(
        owner=user,
        title=BREAKER,
        organisation_name=BREAKER,
        scalability_narrative="First line\nsecond line\n\nNext paragraph",
    )
    code = CodeEntryFactory(proposal=proposal, name=BREAKER, version="1\n## v")
    JobTypeFactory(proposal=proposal, title=BREAKER, gpus=8, hours=Decimal("4"))
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=4, hardware=BREAKER)
    text = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    lines = text.split("\n")
    # The title is one heading line, its line breaks folded into spaces.
    assert lines[0] == r"# Foo # Heading - item 1. first \> quote \~\~\~ ---"
    # Nothing the applicant typed became a heading, list item, quote, fence or rule.
    for line in lines:
        assert not line.startswith(("# Heading", "## v", "- item", "> quote")), line
        assert not re.match(r"(1\. first|~~~|---$)", line), line
    assert ":** Foo # Heading - item 1. first" in text  # the organisation's line
    # The job plan row keeps its columns.
    job_row = next(line for line in lines if line.startswith("| Foo"))
    assert _unescaped_pipes(job_row) == 7
    # Narrative fields stay paragraphs with their line breaks.
    assert "First line\\\nsecond line\n\nNext paragraph" in text


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("a_b", "a_b"),
        ("_em_", r"\_em\_"),
        ("**bold**", r"\*\*bold\*\*"),
        ("- item", r"\- item"),
        ("1. item", r"1\. item"),
        ("2024-01 release", "2024-01 release"),
        ("`code`", r"\`code\`"),
        ("![i](http://x/y.png)", r"!\[i\](http://x/y.png)"),
        ("<https://x.eu>", r"\<https://x.eu\>"),
    ],
)
def test_markdown_escaping_table(raw, escaped):
    assert markdown.escape_text(raw) == escaped


def test_markdown_references_link_only_http(hostile):
    assert markdown.reference("https://example.eu/a_b") == "<https://example.eu/a_b>"
    assert markdown.reference("javascript:alert(1)") == "javascript:alert(1)"
    assert markdown.reference("https://x.eu/<script>") == r"https://x.eu/\<script\>"


class Listener:
    """A TCP listener on loopback that records every connection it gets."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def stop(self):
        self.running = False
        self.thread.join(timeout=2)
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.stop()


@pytest.fixture
def canary(tmp_path):
    path = tmp_path / "canary.svg"
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">'
        '<text x="0" y="20">CANARYSECRET</text></svg>'
    )
    return path


def _text(data: bytes) -> str:
    return " ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)


def test_pdf_keeps_markup_in_applicant_text_as_text(
    user, user_client, listener, canary, run_tasks
):
    payload = (
        f'<img src="http://127.0.0.1:{listener.port}/x"> '
        f'<link rel="stylesheet" href="file://{canary}"> '
        f'<img src="file://{canary}"> {SCRIPT}'
    )
    proposal = ProposalFactory(
        owner=user, scalability_narrative=payload, optimisation_narrative=payload
    )
    from tests.web.test_exports import get_pdf

    url = reverse("proposals:export_pdf", args=[proposal.pk])
    response = get_pdf(user_client, url, run_tasks)
    text = _text(response.content)
    assert "CANARYSECRET" not in text
    assert listener.connections == 0
    # The markup is printed as the applicant typed it.
    assert f"http://127.0.0.1:{listener.port}/x" in text
    assert "<script>alert(1)</script>" in text


def test_fetcher_blocks_markup_that_reaches_the_renderer(listener, canary):
    """Even raw HTML (if escaping ever failed) cannot fetch from outside."""
    html = (
        f'<p>before</p><img src="http://127.0.0.1:{listener.port}/x">'
        f'<link rel="stylesheet" href="http://127.0.0.1:{listener.port}/s.css">'
        f'<img src="file://{canary}"><img src="{canary}"><p>after</p>'
    )
    text = _text(pdf.html_to_pdf(html))
    assert "before" in text and "after" in text
    assert "CANARYSECRET" not in text
    assert listener.connections == 0


def test_canary_would_show_with_the_default_fetcher(canary):
    """The check above can fail: WeasyPrint's own fetcher does read the file."""
    from weasyprint import HTML
    from weasyprint.urls import URLFetcher

    data = HTML(
        string=f'<img src="file://{canary}">', url_fetcher=URLFetcher()
    ).write_pdf()
    assert "CANARYSECRET" in _text(data)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/x",
        "https://example.com/a.css",
        "file:///etc/passwd",
        "ftp://example.com/x",
        # "{origin}": the document's own origin (pdf_engine.STATIC_ORIGIN)
        "{origin}static/../../../etc/passwd",
        "{origin}static/%2e%2e/%2e%2e/etc/passwd",
        "{origin}static/does-not-exist.css",
        "https://static.aifactory.invalid.evil.example/static/css/app.css",
    ],
)
def test_fetcher_refuses_everything_but_static(url):
    # WeasyPrint, imported by the tests that use it (not at collection)
    from proposals.exports import pdf_engine

    fetch = pdf_engine.StaticOnlyFetcher().fetch
    with pytest.raises(pdf_engine.RefusedURL):
        fetch(url.replace("{origin}", pdf_engine.STATIC_ORIGIN))


def test_fetcher_serves_static_files_and_data_urls():
    from proposals.exports import pdf_engine

    fetcher = pdf_engine.StaticOnlyFetcher()
    response = fetcher.fetch(f"{pdf_engine.STATIC_ORIGIN}static/css/app.css")
    assert response.content_type == "text/css"
    assert response.read()
    data = fetcher.fetch("data:text/plain;base64,aGVsbG8=")
    assert data.read() == b"hello"
