"""Figures and tables shared by every export, computed once from the assessment.

Each table is a :class:`FigureTable` of already formatted strings; the portal text renders it
as aligned monospace text, the Markdown export as a pipe table and the PDF template as
an HTML table, so the three formats always show the same figures. Numbers use a comma
as thousands separator in every export ("18,176"); the staff review page shows the
same tables in the reader's format. Pure Python: no Django.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from proposals.domain import Assessment, Catalogue, Cluster, Proposal
from proposals.domain.i18n import gettext as _
from proposals.domain.i18n import gettext_noop, ngettext
from proposals.domain.numbers import MISSING, grouped, num, percent, points
from proposals.domain.terms import UNITS
from proposals.domain.training_logs.provenance import (
    Line,
    in_reader_language,
    shown_lines,
)

#: The heading of the rows' provenance, in every export and on the staff page.
SOURCES_TITLE = gettext_noop("Read from training logs and accounting")
TITLE_WIDTH = 36  # job titles and activities wrap at this width in plain text


def count(value: float | int | None) -> str:
    """A count that is blank (shown as ``-``) when not given (zero or less)."""
    return num(value) if value is not None and value > 0 else MISSING


def plural(n: int | float, word: str, words: str | None = None) -> str:
    return f"{num(n)} {word if n == 1 else (words or word + 's')}"


def plural_count(n: int | float | None) -> int:
    """The count that picks a plural form: ``1`` only for exactly one."""
    return 1 if n == 1 else 2


def one_line(text: str) -> str:
    """Collapse line breaks and runs of spaces (table cells hold one line)."""
    return " ".join(text.split())


def normalise(text: str) -> str:
    """Applicant text with Unix line ends and no trailing blanks."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


@dataclass(frozen=True)
class FigureTable:
    """A table of formatted cells; ``align`` holds ``"l"`` or ``"r"`` per column."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...]
    footer: tuple[str, ...] | None = None  # a total row, if any
    wrap: int | None = None  # the column that may wrap in plain text

    @property
    def header_cells(self) -> list[tuple[str, str]]:
        """``(text, align)`` per header cell (for the HTML template)."""
        return list(zip(self.headers, self.align, strict=True))

    @property
    def body_cells(self) -> list[list[tuple[str, str]]]:
        """``(text, align)`` per cell of every body row."""
        return [list(zip(row, self.align, strict=True)) for row in self.rows]

    @property
    def footer_cells(self) -> list[tuple[str, str]]:
        return list(zip(self.footer, self.align, strict=True)) if self.footer else []

    def render_text(self) -> str:
        """Aligned monospace text with a dashed rule under the header."""
        body = [self._wrapped(row) for row in self.rows]
        if self.footer:
            body.append(self._wrapped(self.footer))
        lines_of = [[list(self.headers)]] + body
        widths = [
            max(len(line[i]) for block in lines_of for line in block)
            for i in range(len(self.headers))
        ]
        out = [self._line(self.headers, widths)]
        out.append(self._line(tuple("-" * w for w in widths), widths))
        for i, block in enumerate(body):
            if self.footer and i == len(body) - 1:
                out.append(self._line(tuple("-" * w for w in widths), widths))
            out.extend(self._line(line, widths) for line in block)
        return "\n".join(out)

    def _wrapped(self, row: tuple[str, ...]) -> list[tuple[str, ...]]:
        """One row as one or more text lines (only the ``wrap`` column wraps)."""
        if self.wrap is None or len(row[self.wrap]) <= TITLE_WIDTH:
            return [row]
        parts = textwrap.wrap(row[self.wrap], TITLE_WIDTH, break_long_words=True)
        lines = [row[: self.wrap] + (parts[0],) + row[self.wrap + 1 :]]
        blank = tuple("" for _ in row)
        for part in parts[1:]:
            lines.append(blank[: self.wrap] + (part,) + blank[self.wrap + 1 :])
        return lines

    def _line(self, cells, widths) -> str:
        padded = [
            cell.rjust(w) if a == "r" else cell.ljust(w)
            for cell, w, a in zip(cells, widths, self.align, strict=True)
        ]
        return "  ".join(padded).rstrip()


@dataclass(frozen=True)
class ScalingTable:
    """The scaling table of one code entry, with what it was measured on."""

    caption: str
    table: FigureTable
    hardware: str


@dataclass(frozen=True)
class RowSource:
    """Where a row read from a training log or sacct output came from."""

    label: str  # which row: "Megatron-LM at 8 GPUs", "job type “eval”"
    text: str  # the provenance kept with the row (file, lines, formula, excerpt)

    @property
    def lines(self) -> tuple[Line, ...]:
        """The text in lines, the log's own and its key names marked."""
        return shown_lines(self.text)


@dataclass(frozen=True)
class Figures:
    """Every generated part of section (d), ready to render in any format."""

    workload: str
    job_table: FigureTable | None
    job_note: str
    scaling: tuple[ScalingTable, ...]
    projection: str
    schedule_table: FigureTable | None
    schedule_note: str
    code_names: dict[int | None, str] = field(default_factory=dict)
    sources: tuple[RowSource, ...] = ()

    @property
    def sources_title(self) -> str:
        return _(SOURCES_TITLE)


def code_label(proposal: Proposal, index: int | None) -> str:
    """``name version`` of a code entry (``code entry 2`` when it has no name)."""
    if index is None or not 0 <= index < len(proposal.codes):
        return _("Measurements not tied to a code entry")
    code = proposal.codes[index]
    label = " ".join(part for part in (code.name.strip(), code.version.strip()) if part)
    return one_line(label) or _("code entry {number}").format(number=index + 1)


def cluster_of(proposal: Proposal, catalogue: Catalogue) -> Cluster | None:
    system = proposal.selection.system
    return catalogue.get(system) if system else None


def workload_line(proposal: Proposal) -> str:
    scal = proposal.scalability
    if scal.workload == "single_large_job":
        return _("Workload shape: one large job (or a few) spread across many GPUs.")
    if scal.workload == "many_small_jobs":
        if scal.runtime_stability_pct is not None:
            return _(
                "Workload shape: many independent jobs; the runtime of a "
                "representative job is stable within ±{percent}."
            ).format(percent=points(scal.runtime_stability_pct, 1))
        return _("Workload shape: many independent jobs.")
    return ""


def job_table(assessment: Assessment) -> FigureTable | None:
    """The job plan; with a column in the system's unit where it bills in another
    unit than GPU-hours (node-hours on Leonardo Booster)."""
    plan = assessment.plan
    if not plan.rows:
        return None
    # A column in the call's unit (node-hours) where it counts one, else in the
    # system's billing unit where that differs from GPU-hours.
    billing = assessment.call_request or (
        assessment.billing
        if assessment.billing and assessment.billing.differs
        else None
    )
    rows = tuple(
        (
            one_line(row.title) or _("Job type {number}").format(number=row.index + 1),
            count(row.gpus),
            num(row.nodes) if row.nodes else MISSING,
            count(row.hours),
            count(row.count),
            num(row.gpu_hours) if row.gpu_hours > 0 else MISSING,
        )
        + ((num(billing.jobs[i]) if row.gpu_hours > 0 else MISSING,) if billing else ())
        for i, row in enumerate(plan.rows)
    )
    headers = (
        _("Job type"),
        _("GPUs"),
        _("Nodes"),
        _("Hours per job"),
        _("Jobs"),
        _("GPU-hours"),
    )
    footer = (_("Total"), "", "", "", "", num(plan.total_gpu_hours))
    if billing:
        headers += (billing.label[0].upper() + billing.label[1:],)
        footer += (num(billing.job_plan),)
    return FigureTable(
        headers=headers,
        rows=rows,
        align=("l", "r", "r", "r", "r", "r") + (("r",) if billing else ()),
        footer=footer,
        wrap=0,
    )


def job_note(cluster: Cluster | None) -> str:
    """What "GPU" means on the target system (one line, or empty)."""
    if cluster is None:
        return _("GPU-hours = GPUs x hours per job x number of jobs.")
    text = _(
        "GPU-hours = GPUs x hours per job x number of jobs; nodes of "
        "{gpus} GPUs on {system}."
    ).format(gpus=cluster.gpus_per_node, system=cluster.name)
    if cluster.gcds_per_gpu > 1:
        text += " " + _(
            "GPUs are physical {model} GPUs (each is {gcds} GCDs in Slurm)."
        ).format(model=cluster.gpu_model, gcds=cluster.gcds_per_gpu)
    if cluster.billing_unit != "gpu_hours":
        text += " " + _("{system} bills {unit}: one is {hours} GPU-hours.").format(
            system=cluster.name,
            unit=UNITS.get(cluster.billing_unit, ""),
            hours=num(cluster.billing_unit_gpu_hours),
        )
    return text


def scaling_tables(proposal: Proposal, assessment: Assessment) -> list[ScalingTable]:
    measurements = proposal.scalability.measurements
    tables = []
    for series in assessment.analysis.series:
        if not series.points:
            continue
        single_unit = len(series.units) == 1
        unit = series.units[0] if single_unit else ""
        with_mfu = any(p.mfu_pct is not None for p in series.points)
        with_comm = any(p.comm_overhead_pct is not None for p in series.points)
        headers = [
            _("GPUs"),
            _("Throughput ({unit})").format(unit=unit) if unit else _("Throughput"),
            _("Speedup"),
            _("Efficiency"),
        ]
        headers += ["MFU"] if with_mfu else []
        headers += [_("Comm. overhead")] if with_comm else []
        rows = []
        for p in series.points:
            throughput = num(p.throughput)
            if not single_unit and p.unit.strip():
                throughput += f" {p.unit.strip()}"
            speedup = f"{grouped(p.speedup, 2, trim=False)}x"  # 1.90x / 1,90x
            row = [num(p.gpus), throughput, speedup, percent(p.efficiency)]
            row += [points(p.mfu_pct)] if with_mfu else []
            row += [points(p.comm_overhead_pct)] if with_comm else []
            rows.append(tuple(row))
        hardware = []
        for p in series.points:
            name = one_line(measurements[p.index].hardware)
            if name and name not in hardware:
                hardware.append(name)
        tables.append(
            ScalingTable(
                caption=_("Scaling of {code}").format(
                    code=code_label(proposal, series.code)
                ),
                table=FigureTable(
                    headers=tuple(headers),
                    rows=tuple(rows),
                    align=("r",) * len(headers),
                ),
                hardware=", ".join(hardware),
            )
        )
    return tables


def row_sources(proposal: Proposal) -> tuple[RowSource, ...]:
    """The provenance of the rows read from logs, in table order (typed rows have
    none)."""
    scal = proposal.scalability
    found = [
        RowSource(
            ngettext(
                "Measurement: {code} at {gpus} GPU",
                "Measurement: {code} at {gpus} GPUs",
                plural_count(m.gpus),
            ).format(code=code_label(proposal, m.code), gpus=num(m.gpus)),
            in_reader_language(normalise(m.source)),
        )
        for m in scal.measurements
        if m.source.strip()
    ]
    found += [
        RowSource(
            ngettext(
                "Job type {title}: {count} x {gpus} GPU x {hours} h",
                "Job type {title}: {count} x {gpus} GPUs x {hours} h",
                plural_count(j.gpus),
            ).format(
                title=one_line(j.title) or _("(untitled)"),
                count=num(j.count),
                gpus=num(j.gpus),
                hours=num(j.hours),
            ),
            in_reader_language(normalise(j.source)),
        )
        for j in scal.jobs
        if j.source.strip()
    ]
    return tuple(found)


def projection_sentence(assessment: Assessment) -> str:
    """The projection to the largest job size, in one sentence (empty without one)."""
    p = assessment.projection
    if p is None:
        return ""
    series = next((s for s in assessment.analysis.series if s.code == p.code), None)
    measured = [
        pt for pt in (series.points if series else ()) if pt.gpus == p.target_gpus
    ]
    if measured:
        return _(
            "Measured {efficiency} efficiency at {gpus} GPUs, the largest job size: "
            "no extrapolation needed."
        ).format(efficiency=percent(measured[-1].efficiency), gpus=num(p.target_gpus))
    if not p.needed:
        return p.not_needed_text
    low, high = percent(p.efficiency_low), percent(p.efficiency_high)
    band = low if low == high else f"{low[:-1]}-{high}"
    log2 = percent(max(0.0, p.log2_efficiency))
    text = _(
        "Projected {band} efficiency at {gpus} GPUs, from measurements up to "
        "{measured} GPUs ({factor}x extrapolation; Amdahl's law fit {amdahl}, "
        "log-linear fit {log2})."
    ).format(
        band=band,
        gpus=num(p.target_gpus),
        measured=num(p.largest_measured_gpus),
        factor=num(p.extrapolation_factor, 1),
        amdahl=percent(p.amdahl_efficiency),
        log2=log2,
    )
    if p.log2_below_zero:
        text += " " + _(
            "The log-linear fit falls below zero at this size (shown as 0 %): the "
            "measurements do not support a job this large."
        )
    return text


def months(from_month: int, to_month: int) -> str:
    if from_month <= 0 and to_month <= 0:
        return MISSING
    if to_month <= from_month:
        return _("Month {month}").format(month=num(from_month))
    return _("Months {first}-{last}").format(first=num(from_month), last=num(to_month))


def schedule_table(assessment: Assessment) -> FigureTable | None:
    summary = assessment.schedule
    if not summary.rows:
        return None
    rows = tuple(
        (
            months(row.from_month, row.to_month),
            one_line(row.activity) or MISSING,
            num(row.gpu_hours),
        )
        for row in summary.rows
    )
    return FigureTable(
        headers=(_("When"), _("Activity"), _("GPU-hours")),
        rows=rows,
        align=("l", "l", "r"),
        footer=(_("Total"), "", num(summary.total_gpu_hours)),
        wrap=1,
    )


def schedule_note(assessment: Assessment, proposal: Proposal) -> str:
    """How the schedule compares with the request (empty when it adds up)."""
    summary = assessment.schedule
    if not summary.rows:
        return ""
    values = {
        "hours": num(summary.total_gpu_hours),
        "requested": num(proposal.selection.total_gpu_hours),
        "month": num(summary.last_month),
        "months": num(proposal.selection.duration_months or 0),
    }
    months_requested = proposal.selection.duration_months or 0
    off_total = summary.matches_total is False
    too_long = summary.within_duration is False
    if off_total and too_long:
        return ngettext(
            "Note: the schedule adds up to {hours} GPU-hours, not the {requested} "
            "requested; it runs to month {month}, past the {months} month requested.",
            "Note: the schedule adds up to {hours} GPU-hours, not the {requested} "
            "requested; it runs to month {month}, past the {months} months requested.",
            months_requested,
        ).format(**values)
    if off_total:
        return _(
            "Note: the schedule adds up to {hours} GPU-hours, not the {requested} "
            "requested."
        ).format(**values)
    if too_long:
        return ngettext(
            "Note: it runs to month {month}, past the {months} month requested.",
            "Note: it runs to month {month}, past the {months} months requested.",
            months_requested,
        ).format(**values)
    return ""


def figures(
    proposal: Proposal, assessment: Assessment, catalogue: Catalogue
) -> Figures:
    """All generated parts of section (d) for ``proposal``."""
    cluster = cluster_of(proposal, catalogue)
    jobs = job_table(assessment)
    return Figures(
        workload=workload_line(proposal),
        job_table=jobs,
        job_note=job_note(cluster) if jobs else "",
        scaling=tuple(scaling_tables(proposal, assessment)),
        projection=projection_sentence(assessment),
        schedule_table=schedule_table(assessment),
        schedule_note=schedule_note(assessment, proposal),
        code_names={i: code_label(proposal, i) for i in range(len(proposal.codes))},
        sources=row_sources(proposal),
    )
