"""The PDF summary: WeasyPrint renders ``proposals/export_pdf.html``.

The renderer may fetch nothing but our own static files. Applicant text is escaped by
the template, so ``<img src="http://...">`` in a narrative stays text; as a second line
of defence ``pdf_engine.StaticOnlyFetcher`` refuses every URL that is not a ``data:``
URL or a file under our static directories, so even markup that slipped through could
make no connection and read no other file. Fonts come from the machine (fontconfig).

WeasyPrint itself is imported by :mod:`.pdf_engine`, only where a PDF is written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import translation

from proposals.domain.sections import SECTION_BY_SLUG, TABLE_BY_KIND

from .summary import Summary

TEMPLATE = "proposals/export_pdf.html"
# WeasyPrint reports each layout step at INFO level: noise in a server's log.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)
CHART_DPI = 150  # the scaling chart's resolution in the PDF and Markdown


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
    from .pdf_engine import write_pdf

    return write_pdf(html)


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
