"""What the live regions of a page show: the assessment, the findings with the place
in the wizard each points at, per-row computed figures, tier-fitted help and the chart.

Used by the wizard (full pages and htmx fragments) and by the read-only review pages.
"""

import hashlib
from collections import defaultdict

from django.urls import reverse

from proposals import charts
from proposals.assess import calendar_for
from proposals.charts import chart_data, inline_svg
from proposals.domain.bounds import BOUNDS
from proposals.domain.fields import (
    FIELD_BY_KEY,
    SEPARATOR,
    columns,
    describe_path,
)
from proposals.domain.jobplan import nodes_for
from proposals.domain.sections import ROW_PREFIX, TABLE_BY_KIND, TABLE_KINDS, TABLES
from proposals.domain.terms import family_terms, figures
from proposals.domain.tiers import tier_label
from proposals.reference_data import assess_cached, cached_terms
from proposals.wizard import STEPS, finding_location

SEVERITY_CLASS = {"error": "danger", "warning": "warning", "info": "info"}


def region_key(*parts) -> str:
    """A short fingerprint of what a region of the page shows (frozen dataclasses,
    numbers and text: their ``repr`` is stable)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


# The parts of the live summary, each sent again by an autosave only when what it
# shows has changed (``summary_keys``; the templates test ``"tier" in
# summary_changed``).
SUMMARY_PARTS = ("tier", "totals", "compute", "energy", "calendar", "bar")


def summary_keys(assessment, calendar, finding_counts, refused_labels) -> dict:
    """A fingerprint per part of the live summary (``SUMMARY_PARTS``), from what
    that part's template reads."""
    plan, schedule = assessment.plan, assessment.schedule
    return {
        "tier": region_key(
            assessment.tier,
            assessment.mode_label,
            assessment.recommended_tier,
            assessment.reasons,
            refused_labels,
        ),
        "totals": region_key(
            assessment.requested_gpu_hours,
            assessment.billing,
            plan.total_gpu_hours,
            bool(plan.rows),
            plan.largest_job_gpus,
            plan.largest_job_nodes,
            schedule.total_gpu_hours,
            bool(schedule.rows),
        ),
        "compute": region_key(assessment.compute_estimate, assessment.mfu_check),
        "energy": region_key(assessment.energy),
        "calendar": region_key(calendar),
        "bar": region_key(
            assessment.tier,
            assessment.mode_label,
            assessment.requested_gpu_hours,
            finding_counts,
        ),
    }


def summary_field(keys: dict, number_format: str) -> str:
    """The value of the page's ``summary_key`` input: each summary part's
    fingerprint (``SUMMARY_PARTS`` order), joined by dots."""
    return ".".join(region_key(keys[part], number_format) for part in SUMMARY_PARTS)


def summary_changed(shown: str | None, current: str) -> frozenset[str]:
    """The summary parts whose fingerprint in ``current`` differs from the one the
    page ``shown`` (every part when the page sent none or an unreadable one)."""
    theirs = (shown or "").split(".")
    if len(theirs) != len(SUMMARY_PARTS):
        return frozenset(SUMMARY_PARTS)
    return frozenset(
        part
        for part, mine, seen in zip(
            SUMMARY_PARTS, current.split("."), theirs, strict=True
        )
        if mine != seen
    )


class PerField(dict):
    """A field's help (or examples) by field key, computed when a template first asks
    for it: a step shows a few of the vocabulary's fields, not all of them."""

    def __init__(self, compute):
        super().__init__()
        self._compute = compute

    def __missing__(self, key):
        spec = FIELD_BY_KEY.get(key)
        if spec is None:
            raise KeyError(key)
        value = self[key] = self._compute(spec)
        return value

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


def live_context(proposal, *, step: str = "", chart_link: bool = False) -> dict:
    """Template context for the sidebar and the computed cells of ``proposal``.

    With ``chart_link`` (the wizard) the chart is not drawn here: ``chart_url`` points
    at the image of its data (:mod:`proposals.views.charts`); otherwise ``chart_svg``
    is the inline drawing. ``*_key`` fingerprint the regions an autosave may skip.
    """
    terms = cached_terms()
    assessment = assess_cached(proposal, terms=terms)
    rows = _engine_rows(proposal)
    refused = _refused(proposal, rows, step)
    names = {
        table.kind: [getattr(row, table.name_field) for row in rows[table.kind]]
        for table in TABLES
        if table.name_field
    }
    findings = []
    by_step = defaultdict(list)
    by_anchor = defaultdict(list)
    # In the wizard (``step`` given), what the applicant has not reached yet is "to
    # do", not an error: the open items of steps not yet edited or left, and those of
    # a new, still blank row of the step being edited. Staff pages and exports see
    # every finding as it is.
    visited = set(proposal.visited_steps or ())
    fresh = _blank_rows(rows) if step else set()
    for finding in assessment.findings:
        location = finding_location(finding.field, rows)
        todo = bool(step) and (
            location.step not in visited
            or (location.step == step and _row_of(location.anchor) in fresh)
        )
        item = {
            "finding": finding,
            "where": describe_path(finding.field, names),
            "step": location.step,
            "anchor": location.anchor,
            "todo": todo,
            "css": "secondary"
            if todo
            else SEVERITY_CLASS.get(finding.severity, "secondary"),
        }
        findings.append(item)
        by_step[location.step].append(item)
        by_anchor[location.anchor].append(item)
    job_figures = {
        rows["jobs"][r.index].pk: r
        for r in assessment.plan.rows
        if r.index < len(rows["jobs"])
    }
    point_figures = {
        rows["measurements"][p.index].pk: p
        for p in assessment.scaling_points
        if p.index < len(rows["measurements"])
    }
    code_names = {
        index: (code.name or f"Code {index + 1}")
        for index, code in enumerate(rows["codes"])
    }
    counts_by_step = {
        step.slug: _severity_counts(by_step.get(step.slug, [])) for step in STEPS
    }
    tier = assessment.tier
    help_figures = figures(terms)
    system_slug = getattr(proposal.system, "slug", None)
    calendar = calendar_for(proposal, assessment)
    finding_counts = _severity_counts(findings)
    data = chart_data(assessment, code_names)
    chart_svg, chart_url = "", ""
    if chart_link:
        chart_key = charts.url_key(data) if data else "none"
        if data:
            chart_url = reverse("proposals:chart", args=[proposal.pk, chart_key])
    else:
        chart_svg, chart_key = inline_svg(data)
    return {
        "assessment": assessment,
        "tier_label": assessment.mode_label,
        "recommended_label": tier_label(assessment.recommended_tier),
        "findings": findings,
        "findings_by_step": dict(by_step),
        "findings_by_anchor": dict(by_anchor),
        "counts_by_step": counts_by_step,
        "finding_counts": finding_counts,
        "job_figures": job_figures,
        "point_figures": point_figures,
        # Tier-fitted help and examples by field key (``total_gpu_hours``, ``jobs.gpus``),
        # with the figures of the call terms in force.
        "help": PerField(lambda spec: spec.help_for(tier, help_figures, system_slug)),
        # Examples fitted to the tier and the system (LUMI words for LUMI), by key.
        "help_examples": PerField(lambda spec: spec.examples_for(tier, system_slug)),
        # What the request's mode (tier) asks for: the wizard folds what it does not.
        "mode_terms": _mode_terms(terms, proposal, assessment),
        "chart_svg": chart_svg,
        "chart_url": chart_url,
        "chart_data": data,
        "chart_image_key": chart_key,
        # The scaling region: the chart's data and the table beside it.
        "chart_key": region_key(
            chart_key, assessment.scaling_points, assessment.projection
        ),
        "findings_key": region_key(
            [(i["finding"], i["css"], i["anchor"], i["step"]) for i in findings],
        ),
        # The step badges and the progress summary read from them.
        "badges_key": region_key(
            counts_by_step,
            refused["refused_by_step"],
            sorted(proposal.visited_steps or ()),
        ),
        # The tier, totals, compute estimate, energy, calendar and the small
        # screens' bar: each part's fingerprint from what that part shows (a test
        # renders the parts after many edits: an unchanged fingerprint is an
        # unchanged part).
        "calendar": calendar,
        "summary_keys": summary_keys(
            assessment, calendar, finding_counts, refused["refused_labels"]
        ),
        "cluster": proposal.system,
        # duck-typed: the model has the same gpus_per_node as the domain's Cluster
        "max_gpus_nodes": nodes_for(proposal.max_gpus_per_job or 0, proposal.system),
        **refused,
    }


def _mode_terms(terms, proposal, assessment):
    """The terms of the mode the request falls into (``None``: not known yet)."""
    family = family_terms(terms, proposal.call_family)
    return family.mode(assessment.mode) if assessment.mode else None


def _refused(proposal, rows, step: str) -> dict:
    """What was typed and not saved (``Proposal.refused_inputs``): how many inputs
    per step, the fields whose last saved value the figures still use, the rows
    whose figures are from their last complete values, and the rows edited here
    but removed elsewhere (each one item; their typed values, to add them back)."""
    by_step: dict[str, int] = defaultdict(int)
    labels, row_prefixes = [], set()
    gone: dict[str, dict] = {}
    positions = {
        f"{kind}-{row.pk}": index
        for kind, kind_rows in rows.items()
        for index, row in enumerate(kind_rows)
    }
    for key, entry in (proposal.refused_inputs or {}).items():
        match = ROW_PREFIX.match(key)
        if match:
            prefix = match.group(1)
            kind, name = prefix.split("-")[0], key[len(prefix) + 1 :]
            spec = FIELD_BY_KEY.get(f"{kind}.{name}")
            table = TABLE_BY_KIND[kind]
            if entry.get("gone"):
                _gone_row(gone, proposal, step, table, prefix, spec, name, entry)
                continue
            where = f"{table.item} {positions.get(prefix, 0) + 1}"
            row_prefixes.add(prefix)
            section = table.section
        else:
            spec = FIELD_BY_KEY.get(key)
            where = ""
            section = spec.section if spec else ""
        if entry.get("held"):
            continue
        by_step[section] += 1
        name = spec.label if spec else key
        labels.append(f"{where}{SEPARATOR}{name}" if where else name)
    for row in gone.values():  # one item each (the figures never counted it)
        by_step[row["section"]] += 1
    gone_here = [row for row in gone.values() if row["section"] == step]
    return {
        "refused_by_step": dict(by_step),
        "refused_here": by_step.get(step, 0) - len(gone_here),
        "refused_total": sum(by_step.values()),
        "refused_labels": labels,
        "refused_rows": row_prefixes,
        "gone_rows": gone_here,
    }


def _gone_row(gone, proposal, step, table, prefix, spec, name, entry) -> None:
    """Add what was typed into field ``name`` of row ``prefix`` (removed in another
    tab) to ``gone``: per row, its table's word for a row, the typed values with
    their labels, and the addresses that add it back or forget it."""
    row = gone.get(prefix)
    if row is None:
        pk = prefix.split("-")[1]
        urls = {
            operation: reverse(
                "proposals:row",
                kwargs={
                    "pk": proposal.pk,
                    "step": table.section,
                    "kind": table.kind,
                    "row": pk,
                    "operation": operation,
                },
            )
            for operation in ("restore", "discard")
        }
        row = gone[prefix] = {
            "prefix": prefix,
            "kind": table.kind,
            "item": table.item,
            "section": table.section,
            "values": [],
            "inputs": {},
            **urls,
        }
    text = entry.get("text", "")
    row["inputs"][f"{prefix}-{name}"] = text
    if text.strip():
        row["values"].append({"label": spec.label if spec else name, "text": text})


def _severity_counts(items) -> dict[str, int]:
    """Findings by severity; those still "to do" counted apart (errors and warnings
    only: notes are advice)."""
    counts = {"error": 0, "warning": 0, "info": 0, "todo": 0}
    for item in items:
        severity = item["finding"].severity
        counts["todo" if item["todo"] and severity != "info" else severity] += 1
    return counts


def _row_of(anchor: str) -> str:
    """``jobs-17`` for ``id_jobs-17-gpus`` or ``jobs-17``; ``""`` otherwise."""
    match = ROW_PREFIX.match(anchor.removeprefix("id_") + "-")
    return match.group(1) if match else ""


def _blank_rows(rows: dict[str, list]) -> set[str]:
    """The rows nobody has typed into yet: no number and no name. (What a new row
    inherits from the one above, a unit, a hardware, the next month, does not count.)
    """
    blank = set()
    for kind, kind_rows in rows.items():
        typed = [
            spec.name
            for spec in columns(kind)
            if (spec.key in BOUNDS and spec.width != "month")
            or spec.name == TABLE_BY_KIND[kind].name_field
        ]
        for row in kind_rows:
            if all(getattr(row, name) in (None, "") for name in typed):
                blank.add(f"{kind}-{row.pk}")
    return blank


def _engine_rows(proposal) -> dict[str, list]:
    """Stored rows in the engine's order (the adapter keeps every row, blank or not),
    so a finding's ``jobs[2]`` is the third job row here too."""
    return {kind: list(getattr(proposal, kind).all()) for kind in TABLE_KINDS}


def chart_data_for(proposal) -> dict | None:
    """What the scaling chart of ``proposal`` shows (see ``charts.chart_data``)."""
    assessment = assess_cached(proposal)
    names = {
        index: (code.name or f"Code {index + 1}")
        for index, code in enumerate(proposal.codes.all())
    }
    return chart_data(assessment, names)
