"""The scaling-efficiency chart's data and its cache: what the chart shows, a hash
of it, and the drawn chart kept by that hash, so identical data is never drawn twice.
The drawing itself (matplotlib) is :mod:`proposals.chart_drawing`, imported on the
first chart a process draws.
"""

import hashlib
import json
import logging

from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext as _

from proposals.domain import numbers

logger = logging.getLogger(__name__)

CACHE_PREFIX = "chart:v1:"


def _label(text: str) -> str:
    """Legend text as typed; matplotlib hides labels that start with "_"."""
    return f"\u200b{text}" if text.startswith("_") else text


def chart_data(assessment, code_names: dict[int | None, str]) -> dict | None:
    """The plain data the chart shows (``None`` when there is nothing to draw)."""
    series = [
        {
            "label": _label(code_names.get(s.code) or _("Measurements")),
            "unit": s.points[0].unit if s.points else "",
            "points": [(p.gpus, p.throughput, p.efficiency) for p in s.points],
        }
        for s in assessment.analysis.series
        if s.points
    ]
    if not series:
        return None
    projection = assessment.projection
    band = None
    if projection is not None:
        base = next(
            (s for s in assessment.analysis.series if s.code == projection.code), None
        )
        base_throughput = base.points[0].throughput if base and base.points else None
        band = {
            "base_gpus": projection.base_gpus,
            "base_throughput": base_throughput,
            "largest": projection.largest_measured_gpus,
            "target": projection.target_gpus,
            "serial_fraction": projection.serial_fraction,
            "slope": projection.log2_slope,
            "intercept": projection.log2_intercept,
            "low": projection.efficiency_low,
            "high": projection.efficiency_high,
        }
    data = {"series": series, "projection": band}
    # Tick labels in the reader's format: part of the data, so of the chart's hash
    # (an English chart keeps the key it had before formats were drawn).
    fmt = numbers.active_format()
    if fmt.name != numbers.PORTAL.name:
        data["number_format"] = fmt.name
    # The chart's words in the reader's language: part of the data, so of the
    # chart's hash and its URL (an English chart keeps the key it had).
    language = translation.get_language() or "en-gb"
    if not language.startswith("en"):
        data["language"] = language
    return data


def data_key(data: dict) -> str:
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def render(data: dict, fmt: str = "svg", dpi: int = 100) -> bytes:
    """Draw ``data`` without the cache (the benchmark's "cold" path)."""
    from proposals.chart_drawing import drawn

    return drawn(data, fmt, dpi)


def cached_chart(data: dict | None, fmt: str = "svg", dpi: int = 100) -> bytes | None:
    """The rendered chart for ``data``, from the cache when the same data was drawn."""
    if data is None:
        return None
    key = f"{CACHE_PREFIX}{fmt}:{dpi}:{data_key(data)}"
    rendered = cache.get(key)
    if rendered is None:
        try:
            rendered = render(data, fmt, dpi)
        except Exception:  # a chart must never take the page down with it
            logger.exception("Scaling chart could not be drawn")
            return None
        cache.set(key, rendered)
    return rendered


def inline_svg(data: dict | None) -> tuple[str, str]:
    """``(svg, key)`` for the page: the inline SVG (without the XML prologue, ``""``
    without data) and a short fingerprint of what the chart and its table show."""
    key = data_key(data)[:16] if data else "none"
    svg = cached_chart(data, "svg")
    if not svg:
        return "", key
    text = svg.decode()
    return text[text.index("<svg") :], key


def scaling_chart_svg(assessment, code_names=None) -> str:
    """Inline SVG of ``assessment``'s chart, or ``""`` without data."""
    return inline_svg(chart_data(assessment, code_names or {}))[0]


def scaling_chart_png(assessment, code_names=None, dpi: int = 150) -> bytes | None:
    """PNG bytes for the PDF export, or ``None`` without data."""
    return cached_chart(chart_data(assessment, code_names or {}), "png", dpi)


# --- The chart as an image of its own URL (the wizard) ---------------------------------
# The autosave answers with the numbers at once; the page's <img> asks for the chart at
# a URL keyed by the hash of the data it shows, so an unchanged chart costs nothing and
# a changed one arrives after the numbers. Which data a proposal's key stands for is
# kept in the configured cache (shared between processes when it is the database's).

URL_KEY_LENGTH = 32
DATA_PREFIX = "chart:data:v1:"


def url_key(data: dict) -> str:
    return data_key(data)[:URL_KEY_LENGTH]


def remember(proposal_pk: int, key: str, data: dict) -> None:
    """Note that ``proposal_pk``'s chart ``key`` shows ``data`` (for :func:`stored`)."""
    cache.set(f"{DATA_PREFIX}{proposal_pk}:{key}", data)


def stored(proposal_pk: int, key: str) -> dict | None:
    """The data ``proposal_pk``'s chart ``key`` was noted for, or ``None``."""
    return cache.get(f"{DATA_PREFIX}{proposal_pk}:{key}")
