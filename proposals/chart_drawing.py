"""Drawing the scaling-efficiency chart: matplotlib's Figure API (never pyplot).

Throughput is drawn against GPU count on log2 axes with the ideal linear scaling from
the base point, efficiency sits on a second axis, and the projection to the target GPU
count is drawn as a band between the two fitted models. ``proposals.charts`` gives the
data and keeps what is drawn; it imports this module on the first chart a process
draws (matplotlib is about 0.3 s of a process's start; the web server's warm-up
imports it before the workers fork, aifactory/warmup.py).
"""

import io
import math

import matplotlib

matplotlib.use("Agg")

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

COLOURS = ["#1f5fa8", "#c0571b", "#2e8540", "#7b3fa0", "#a8326e", "#4a4a4a"]
BAND_COLOUR = "#9db8dc"


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


def drawn(data: dict, fmt: str = "svg", dpi: int = 100) -> bytes:
    """``data``'s chart drawn and saved as ``fmt`` (no date or version in the file:
    the same data gives the same bytes)."""
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
