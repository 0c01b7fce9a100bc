"""The PDF summary: WeasyPrint renders ``proposals/export_pdf.html``.

The renderer may fetch nothing but our own static files. Applicant text is escaped by
the template, so ``<img src="http://...">`` in a narrative stays text; as a second line
of defence :class:`StaticOnlyFetcher` refuses every URL that is not a ``data:`` URL or
a file under our static directories, so even markup that slipped through could make no
connection and read no other file. Fonts come from the machine (fontconfig).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import mimetypes
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.exceptions import SuspiciousFileOperation
from django.template.loader import render_to_string
from django.utils import translation
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from proposals.domain.sections import SECTION_BY_SLUG, TABLE_BY_KIND

from .summary import Summary

TEMPLATE = "proposals/export_pdf.html"
# WeasyPrint reports each layout step at INFO level: noise in a server's log.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)
# The document's base URL: relative references resolve to our static files only.
STATIC_ORIGIN = "https://static.aifactory.invalid/"
CHART_DPI = 150  # the scaling chart's resolution in the PDF and Markdown


class RefusedURL(ValueError):
    """The PDF renderer asked for something other than our static files."""


def static_path(url: str) -> Path | None:
    """The file behind ``url`` if it names one of our static files, else ``None``."""
    if not url.startswith(STATIC_ORIGIN):
        return None
    parts = urlsplit(url)
    relative = unquote(parts.path).lstrip("/")
    prefix = settings.STATIC_URL.strip("/") + "/"
    if relative.startswith(prefix):
        relative = relative[len(prefix) :]
    if not relative or any(p in ("", ".", "..") for p in relative.split("/")):
        return None
    try:
        found = finders.find(relative)
        if not found and settings.STATIC_ROOT:
            candidate = Path(settings.STATIC_ROOT, relative).resolve()
            root = Path(settings.STATIC_ROOT).resolve()
            found = str(candidate) if candidate.is_relative_to(root) else None
    except SuspiciousFileOperation:
        return None
    path = Path(found) if found else None
    return path if path is not None and path.is_file() else None


class StaticOnlyFetcher(URLFetcher):
    """A WeasyPrint fetcher that serves ``data:`` URLs and our static files only."""

    def __init__(self):
        super().__init__(allowed_protocols=("data", "https"), allow_redirects=False)

    def fetch(self, url, headers=None):
        if url.startswith("data:"):
            return super().fetch(url, headers)
        path = static_path(url)
        if path is None:
            raise RefusedURL(f"The PDF export fetches only its own static files: {url}")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(
            url, body=path.read_bytes(), headers={"Content-Type": mime}
        )


def chart_data_url(png: bytes | None) -> str:
    if not png:
        return ""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def render_html(
    summary: Summary, *, chart_png: bytes | None = None, chart_url: str = ""
) -> str:
    """The HTML that becomes the PDF (the template only lays out ``summary``)."""
    return render_to_string(
        TEMPLATE,
        {
            "summary": summary,
            "chart": chart_url or chart_data_url(chart_png),
            # Section and table titles from the vocabulary.
            "sections": SECTION_BY_SLUG,
            "tables": TABLE_BY_KIND,
            # The summary's language (the portal text inside is marked English).
            "language": translation.get_language() or "en",
        },
    )


def html_to_pdf(html: str) -> bytes:
    """Render ``html`` with the static-only fetcher (the one way we call WeasyPrint)."""
    document = HTML(
        string=html, base_url=STATIC_ORIGIN, url_fetcher=StaticOnlyFetcher()
    )
    return document.write_pdf()


def render(summary: Summary, *, chart_png: bytes | None = None) -> bytes:
    """The PDF bytes of ``summary``."""
    return html_to_pdf(render_html(summary, chart_png=chart_png))


@dataclass(frozen=True)
class PdfJob:
    """A PDF to render in the task worker: the HTML (the chart's ``src`` is
    ``placeholder``), the chart's data, and ``key``, a hash of both: the same key,
    the same PDF bytes, so a stored file is reused."""

    html: str
    placeholder: str
    chart: dict | None
    key: str


def job(summary: Summary, *, chart: dict | None) -> PdfJob:
    """The :class:`PdfJob` for ``summary`` and the chart data ``chart`` (from
    ``charts.chart_data``). The placeholder is a random token, so applicant text
    can never be mistaken for it."""
    placeholder = f"chart-{secrets.token_hex(16)}" if chart else ""
    html = render_html(summary, chart_url=placeholder)
    digest = hashlib.sha256()
    digest.update(
        html.replace(placeholder, "CHART").encode() if chart else html.encode()
    )
    digest.update(json.dumps(chart, sort_keys=True, default=str).encode())
    return PdfJob(
        html=html, placeholder=placeholder, chart=chart, key=digest.hexdigest()
    )


def render_job(html: str, placeholder: str, chart: dict | None) -> bytes:
    """The PDF of a :class:`PdfJob`'s parts (the task worker's step): draw the chart,
    put it in place, lay out the pages."""
    from proposals.charts import cached_chart

    if chart and placeholder:
        png = cached_chart(chart, "png", CHART_DPI)
        html = html.replace(placeholder, chart_data_url(png))
    return html_to_pdf(html)
