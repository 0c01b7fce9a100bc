"""WeasyPrint and what it may fetch, imported where a PDF is written and nowhere
else (the task worker, when it renders; :func:`.pdf.html_to_pdf`). Importing
WeasyPrint loads Pango through cffi: about 0.4 s of CPU that every process paid at
its start when :mod:`.pdf` imported it (each ``manage.py`` command, the web server,
the task worker before any PDF)."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.exceptions import SuspiciousFileOperation
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

# The document's base URL: relative references resolve to our static files only.
STATIC_ORIGIN = "https://static.aifactory.invalid/"


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


def write_pdf(html: str) -> bytes:
    """The PDF of ``html``, laid out with only our static files to fetch."""
    document = HTML(
        string=html, base_url=STATIC_ORIGIN, url_fetcher=StaticOnlyFetcher()
    )
    return document.write_pdf()
