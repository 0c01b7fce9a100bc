"""The scaling-efficiency chart: matplotlib's Figure API (never pyplot), cached by a
hash of the data it shows, so identical data is never drawn twice.

Throughput is drawn against GPU count on log2 axes with the ideal linear scaling from
the base point, efficiency sits on a second axis, and the projection to the target GPU
count is drawn as a band between the two fitted models.
"""

import hashlib
import io
import json
import logging
import math

import matplotlib

matplotlib.use("Agg")

from django.core.cache import cache  # noqa: E402
from django.utils import translation  # noqa: E402
from django.utils.translation import gettext as _  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

from proposals.domain import numbers  # noqa: E402
from proposals.domain.scaling import amdahl_speedup  # noqa: E402

matplotlib.rcParams.update(
    {
        "svg.hashsalt": "aifactory",  # stable element ids: identical data, same bytes
        "svg.fonttype": "none",  # text stays text (smaller, selectable, accessible)
        "font.family": "DejaVu Sans",
        "font.size": 9,
        # Labels are applicants' text (code names, units): "$x$" is not mathematics.
        "text.parse_math": False,
    }
)
logger = logging.getLogger(__name__)

CACHE_PREFIX = "chart:v1:"
COLOURS = ["#1f5fa8", "#c0571b", "#2e8540", "#7b3fa0", "#a8326e", "#4a4a4a"]
BAND_COLOUR = "#9db8dc"


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


def _number_format(data: dict) -> numbers.NumberFormat:
    """The format ``data``'s chart is labelled in (the portal's by default)."""
    return numbers.NUMBER_FORMAT_BY_NAME.get(
        data.get("number_format", ""), numbers.PORTAL
    )


def _words(data: dict) -> dict[str, str]:
    """The chart's axis titles and legend words, in ``data``'s language."""
    with translation.override(data.get("language", "en-gb")):
        return {
            "gpus": _("GPUs"),
            "throughput": _("Throughput (%(unit)s)"),
            "efficiency": _("Efficiency (%)"),
            "ideal": _("ideal linear"),
            "efficiency_legend": _("efficiency (right axis)"),
            "projection": _("projection %(low)s–%(high)s"),
            "target": _("target %(gpus)s GPUs"),
            "unit": _("items/s"),
        }


def data_key(data: dict) -> str:
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def _band_curves(band: dict, gpus: list[float]) -> tuple[list[float], list[float]]:
    """Efficiency of both fitted models at ``gpus``."""
    amdahl = [
        amdahl_speedup(n / band["base_gpus"], band["serial_fraction"])
        / (n / band["base_gpus"])
        for n in gpus
    ]
    log2_linear = [band["intercept"] + band["slope"] * math.log2(n) for n in gpus]
    return amdahl, log2_linear


# Fixed margins (inches) instead of constrained layout, which took a third of the
# drawing time: room for the axis labels and, below the axes, the legend.
MARGIN = {"left": 0.95, "right": 0.6, "top": 0.15, "bottom": 0.5}
LEGEND_ROW = 0.2  # inches per row of the legend (two entries a row)


def draw(data: dict, *, width: float = 5.6, height: float = 4.2) -> Figure:
    """Build the figure for ``data`` (see ``chart_data``).

    The legend sits below the axes, outside the data, so it never covers a curve or
    the target line; the ideal line and the projection reach the target GPU count.
    """
    band = data["projection"]
    target = band["target"] if band and band["base_throughput"] else None
    words = _words(data)
    fmt = _number_format(data)

    def whole(value, _position=None) -> str:
        return numbers.grouped(value, 0, fmt=fmt)

    fig = _figure(data, target, width, height)
    ax = fig.add_subplot()
    eff_ax = ax.twinx()
    all_gpus = _plot_series(ax, eff_ax, data["series"], target, words)
    if target:
        all_gpus.add(target)
        _plot_projection(ax, eff_ax, band, words, fmt)
        ax.axvline(
            target,
            color="#b00020",
            linestyle="-.",
            linewidth=1,
            label=words["target"] % {"gpus": whole(target)},
        )
    _label_axes(ax, eff_ax, sorted(all_gpus), data, words, whole)
    # One legend for both axes, below them (outside the data), two entries a row.
    handles, labels = ax.get_legend_handles_labels()
    eff_handles, eff_labels = eff_ax.get_legend_handles_labels()
    fig.legend(
        handles + eff_handles,
        labels + eff_labels,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=2,
        fontsize=7.5,
        frameon=False,
    )
    return fig


def _figure(data: dict, target, width: float, height: float) -> Figure:
    """The figure at its fixed size (the page reserves its room before the image
    arrives), its axes giving up what the legend's rows below them need."""
    entries = sum(2 if len(s["points"]) > 1 else 1 for s in data["series"]) + 1
    entries += 1 if target else 0
    legend_height = 0.1 + LEGEND_ROW * math.ceil(entries / 2)
    total_height = height
    fig = Figure(figsize=(width, total_height))
    fig.subplots_adjust(
        left=MARGIN["left"] / width,
        right=1 - MARGIN["right"] / width,
        top=1 - MARGIN["top"] / total_height,
        bottom=(MARGIN["bottom"] + legend_height) / total_height,
    )
    return fig


def _plot_series(ax, eff_ax, all_series: list, target, words: dict) -> set[float]:
    """Each series' throughput (with its ideal linear line up to the target) and
    efficiency (right axis); returns the GPU counts plotted."""
    all_gpus: set[float] = set()
    for i, series in enumerate(all_series):
        colour = COLOURS[i % len(COLOURS)]
        gpus = [p[0] for p in series["points"]]
        throughput = [p[1] for p in series["points"]]
        efficiency = [p[2] * 100 for p in series["points"]]
        all_gpus.update(gpus)
        ax.plot(gpus, throughput, "o-", color=colour, label=f"{series['label']}")
        if len(gpus) > 1 and throughput[0] > 0:
            end = max(gpus[-1], target or 0)
            # On the log2 axis a straight proportion is a curve: sample it.
            ideal_x = [gpus[0] * (end / gpus[0]) ** (k / 16) for k in range(17)]
            ideal = [throughput[0] * n / gpus[0] for n in ideal_x]
            ax.plot(ideal_x, ideal, ":", color=colour, alpha=0.7, label=words["ideal"])
        eff_ax.plot(
            gpus,
            efficiency,
            "s--",
            color=colour,
            alpha=0.55,
            markersize=4,
            label=words["efficiency_legend"] if i == 0 else None,
        )
    return all_gpus


def _plot_projection(ax, eff_ax, band: dict, words: dict, fmt) -> None:
    """The projection band between both fitted models, from the largest measured
    GPU count to the target, as throughput and as efficiency."""
    start, target = band["largest"], band["target"]
    steps = 16
    lo, hi = sorted((start, target))
    xs = [lo * (hi / lo) ** (k / steps) for k in range(steps + 1)]
    amdahl, log2_linear = _band_curves(band, xs)
    low = [min(a, b) for a, b in zip(amdahl, log2_linear, strict=True)]
    high = [max(a, b) for a, b in zip(amdahl, log2_linear, strict=True)]
    scale = [band["base_throughput"] * x / band["base_gpus"] for x in xs]
    ax.fill_between(
        xs,
        [s * e for s, e in zip(scale, low, strict=True)],
        [s * e for s, e in zip(scale, high, strict=True)],
        color=BAND_COLOUR,
        alpha=0.5,
        linewidth=0,
        label=words["projection"]
        % {
            "low": numbers.percent(band["low"], fmt=fmt),
            "high": numbers.percent(band["high"], fmt=fmt),
        },
    )
    eff_ax.fill_between(
        xs,
        [v * 100 for v in low],
        [v * 100 for v in high],
        color=BAND_COLOUR,
        alpha=0.25,
        linewidth=0,
    )


def _label_axes(ax, eff_ax, ticks: list, data: dict, words: dict, whole) -> None:
    """A log2 GPU axis ticked at the plotted counts, the throughput axis from
    zero, the efficiency axis to 110 %, and their titles."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(whole))
    ax.set_xlabel(words["gpus"])
    unit = data["series"][0]["unit"] or words["unit"]
    ax.set_ylabel(words["throughput"] % {"unit": unit})
    ax.yaxis.set_major_formatter(FuncFormatter(whole))
    ax.set_ylim(bottom=0)
    eff_ax.set_ylabel(words["efficiency"], color="#555555")
    eff_ax.set_ylim(0, 110)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.5)


def render(data: dict, fmt: str = "svg", dpi: int = 100) -> bytes:
    """Render ``data`` without the cache (the benchmark's "cold" path)."""
    buffer = io.BytesIO()
    draw(data).savefig(buffer, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    return buffer.getvalue()


def _metadata(fmt: str) -> dict:
    # No creation date or software version in the file: same data, same bytes.
    if fmt == "svg":
        return {"Date": None, "Creator": None}
    if fmt == "png":
        return {"Software": None}
    return {}


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
