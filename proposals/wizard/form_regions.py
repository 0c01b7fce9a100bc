"""The regions of the step's forms, declared from the step and its rows like the
page's own (:mod:`proposals.wizard.regions`), and keyed the same way: each row's
values (what its inputs show), each row's computed figures and the tables' totals,
and the findings under the fields of each form (the step's own and each row's).

The page posts one list of the keys it shows (its ``regions`` input), these with
the others. An autosave compares the keys of the rows' figures and the fields'
findings as it compares the page's regions (:func:`regions.changed`), and renders
out of band those whose key changed. A row's values are the one kind not answered
with markup: rendering a row over the inputs would overwrite what is being typed;
a row stored otherwise is answered with its values (``#refresh-values``), which
the page puts in the inputs not typed in since (:mod:`proposals.wizard.stale`).
"""

from __future__ import annotations

from dataclasses import dataclass

from proposals.domain.sections import ROW_PREFIX
from proposals.services import canonical
from proposals.wizard.changes import row_fields
from proposals.wizard.regions import Region, parse_shown
from proposals.wizard.steps import row_id

# --- Each row's values (what its inputs show) ---------------------------------------

#: Not a template: a row's values go to the page as values for its inputs
#: (``#refresh-values``), never as markup over what is being typed. The name
#: still takes part in the key, like every region's template.
ROW_VALUES = "refresh-values"


@dataclass(frozen=True)
class RowValuesInputs:
    """What a row's inputs show: each edited field's stored value as text
    (``canonical``, as the inputs' bases), in the form's order."""

    values: tuple


def row_values_region(prefix: str, texts) -> Region:
    """The values region of row ``prefix`` (``jobs-17``, the row's element id)."""
    return Region(prefix, ROW_VALUES, RowValuesInputs(tuple(texts)))


def shown_row_values(prefixes, bases: dict) -> list[Region]:
    """The values regions of the rows ``prefixes`` as a page's ``bases`` (input
    name -> stored value as text) say their inputs show them."""
    regions = []
    for prefix in prefixes:
        kind = prefix.split("-")[0]
        texts = (bases.get(f"{prefix}-{name}", "") for name, _ in row_fields(kind))
        regions.append(row_values_region(prefix, texts))
    return regions


def stored_row_values(kind: str, row) -> Region:
    """The values region of ``row`` as stored (what a page that shows it has)."""
    texts = (canonical(getattr(row, attname)) for _, attname in row_fields(kind))
    return row_values_region(f"{kind}-{row.pk}", texts)


def is_row_name(name: str) -> bool:
    """Whether ``name`` is a row's values region (``jobs-17``: a table kind and a
    row id as a page writes it)."""
    match = ROW_PREFIX.match(name + "-")
    return (
        bool(match)
        and match.group(1) == name
        and row_id(name.split("-")[1]) is not None
    )


def shown_row_keys(shown: str | None) -> dict[str, str]:
    """The keys of the rows' values a page says it shows (``regions``), by row
    prefix; any other name is another region's, and anything odd is left out."""
    return {
        name: key
        for name, key in parse_shown(shown).items()
        if is_row_name(name) and key.isalnum() and len(key) <= 64
    }


def of_rows(regions, rows) -> list[Region]:
    """The ``regions`` but those of a row not among ``rows`` (row prefixes: the
    rows a page shows); the regions of no row (the totals, the step's own form's
    findings) are kept."""
    kept = []
    for region in regions:
        name = region.name.removeprefix("ff-")
        match = ROW_PREFIX.match(name + "-")
        if match is None or match.group(1) in rows:
            kept.append(region)
    return kept


# --- The rows' computed figures -----------------------------------------------------


# A row's figures are written by the rows' own macros, in the table and out of band
# alike: a region's inputs are the macro's arguments (``oob`` aside).
JOB_FIGURES = "proposals/rows/job_figures.html#job_figures"
POINTS = "proposals/rows/point_figures.html#point_figures"


@dataclass(frozen=True)
class JobFiguresInputs:
    pk: int  # the row's id
    figures: object  # its computed figures (``None``: none yet)
    stale: bool  # the figures are from the last saved values (the typed were refused)


@dataclass(frozen=True)
class PointFiguresInputs:
    pk: int
    point: object  # the measurement's speedup and efficiency (``None``: none)


@dataclass(frozen=True)
class TotalInputs:
    plan_total: float


@dataclass(frozen=True)
class ScheduleTotalInputs:
    schedule_total: float


def row_regions(evaluation, figures, refused_rows, tables) -> list[Region]:
    """The computed figures of each row of the step's tables, and the tables'
    totals (the schedule's only where its table is shown: an out-of-band fragment
    without its target is an error in the browser). The page keeps their keys,
    like the page's regions: a row changed here or in another tab can change the
    figures of rows not sent (the measurements share the base point), so an
    autosave re-sends those whose figures changed, and only those. ``figures``:
    the job rows' and the measurements' figures, by row id."""
    job_figures, point_figures = figures
    regions = []
    if "measurements" in tables:
        for row in evaluation.rows["measurements"]:
            inputs = PointFiguresInputs(row.pk, point_figures.get(row.pk))
            regions.append(Region(f"measurements-{row.pk}-computed", POINTS, inputs))
    if "jobs" not in tables:
        return regions
    for row in evaluation.rows["jobs"]:
        prefix = f"jobs-{row.pk}"
        stale = prefix in refused_rows
        inputs = JobFiguresInputs(row.pk, job_figures.get(row.pk), stale)
        regions.append(Region(f"{prefix}-computed", JOB_FIGURES, inputs))
    a = evaluation.assessment
    regions.append(jobs_total_region(a.plan.total_gpu_hours))
    if a.tier == "large_scale" or a.schedule.rows:
        regions.append(schedule_total_region(a.schedule.total_gpu_hours))
    return regions


TOTALS = "proposals/live/totals.html"


def jobs_total_region(total) -> Region:
    """The job plan's total GPU-hours, under its table."""
    return Region("jobs-total", f"{TOTALS}#jobs_total", TotalInputs(total))


def schedule_total_region(total) -> Region:
    """The usage schedule's total GPU-hours, under its table."""
    return Region(
        "schedule-total", f"{TOTALS}#schedule_total", ScheduleTotalInputs(total)
    )


# --- The findings under the fields (one region per form: every row, sent or not) ---


@dataclass(frozen=True)
class FieldFindingsInputs:
    """The findings under each field of one form: ``(anchor, findings)`` of each
    field (its input id; ``findings``: ``(css, code, message)`` of each, as shown,
    "to do" grey; none for most fields, and then the block is rendered empty)."""

    fields: tuple


FIELD_FINDINGS = "proposals/rows/field_findings.html#form_findings"
#: The findings region of the step's own form (a row's is ``ff-<row prefix>``).
STEP_FINDINGS = "ff-step"


def shown_findings(items) -> tuple:
    """What the findings under a field show of each finding: ``(css, code,
    message)`` (the inputs of its region, and what the page's blocks show)."""
    return tuple(
        (item["css"], item["finding"].code, str(item["finding"].message))
        for item in items
    )


def _form_fields(step, rows) -> dict[str, list[str]]:
    """The input ids of each form the step shows, by its findings region's name:
    the step's own form and each stored row of its tables."""
    forms = {}
    if step.form_class is not None:
        forms[STEP_FINDINGS] = [f"id_{name}" for name in step.form_class.base_fields]
    for kind in step.tables:
        names = [name for name, _ in row_fields(kind)]
        for row in rows[kind]:
            prefix = f"{kind}-{row.pk}"
            forms[f"ff-{prefix}"] = [f"id_{prefix}-{name}" for name in names]
    return forms


def field_findings_regions(findings_by_anchor: dict, step, rows) -> list[Region]:
    """One region per form of ``step`` (its own, and each of the ``rows`` of its
    tables: ``evaluation.rows``) holding the findings under each of its fields,
    each field's block rendered out of band, the empty ones too: a field whose
    findings went away is emptied by its form's region, whose key changed. A form
    costs one key however many fields it has."""
    forms = _form_fields(step, rows)
    found: dict[str, dict[str, tuple]] = {}
    for anchor, items in findings_by_anchor.items():
        here = [item for item in items if item["step"] == step.slug]
        if not anchor.startswith("id_") or not here:
            continue
        match = ROW_PREFIX.match(anchor[len("id_") :])
        name = f"ff-{match.group(1)}" if match else STEP_FINDINGS
        if name in forms:
            found.setdefault(name, {})[anchor] = shown_findings(here)
    regions = []
    for name, anchors in forms.items():
        shown = found.get(name, {})
        # A finding on an anchor that is not one of the form's inputs is kept too.
        extra = [anchor for anchor in shown if anchor not in anchors]
        inputs = FieldFindingsInputs(
            tuple((anchor, shown.get(anchor, ())) for anchor in anchors + extra)
        )
        regions.append(Region(name, FIELD_FINDINGS, inputs))
    return regions
