"""What the live regions of a page show: the assessment, the findings with the place
in the wizard each points at, per-row computed figures, tier-fitted help and the chart.

Used by the wizard (full pages and htmx fragments) and by the read-only review pages.
"""

from collections import defaultdict

from proposals.assess import assess_proposal, terms_from_db
from proposals.charts import chart_data, inline_svg
from proposals.domain.fields import FIELDS, describe_path
from proposals.domain.jobplan import nodes_for
from proposals.domain.sections import TABLE_KINDS, TABLES
from proposals.domain.terms import figures
from proposals.domain.tiers import tier_label
from proposals.wizard import STEPS, finding_location

SEVERITY_CLASS = {"error": "danger", "warning": "warning", "info": "info"}


def live_context(proposal) -> dict:
    """Template context for the sidebar and the computed cells of ``proposal``."""
    terms = terms_from_db()
    assessment = assess_proposal(proposal, terms=terms)
    rows = _engine_rows(proposal)
    names = {
        table.kind: [getattr(row, table.name_field) for row in rows[table.kind]]
        for table in TABLES
        if table.name_field
    }
    findings = []
    by_step = defaultdict(list)
    by_anchor = defaultdict(list)
    for finding in assessment.findings:
        location = finding_location(finding.field, rows)
        item = {
            "finding": finding,
            "where": describe_path(finding.field, names),
            "step": location.step,
            "anchor": location.anchor,
            "css": SEVERITY_CLASS.get(finding.severity, "secondary"),
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
    chart_svg, chart_key = inline_svg(chart_data(assessment, code_names))
    return {
        "assessment": assessment,
        "tier_label": assessment.mode_label,
        "recommended_label": tier_label(assessment.recommended_tier),
        "findings": findings,
        "findings_by_step": dict(by_step),
        "findings_by_anchor": dict(by_anchor),
        "counts_by_step": counts_by_step,
        "job_figures": job_figures,
        "point_figures": point_figures,
        # Tier-fitted help and examples by field key (``total_gpu_hours``, ``jobs.gpus``),
        # with the figures of the call terms in force.
        "help": {spec.key: spec.help_for(tier, help_figures) for spec in FIELDS},
        "help_examples": {spec.key: spec.example for spec in FIELDS},
        "chart_svg": chart_svg,
        "chart_key": chart_key,
        "cluster": proposal.system,
        # duck-typed: the model has the same gpus_per_node as the domain's Cluster
        "max_gpus_nodes": nodes_for(proposal.max_gpus_per_job or 0, proposal.system),
    }


def _severity_counts(items) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0}
    for item in items:
        counts[item["finding"].severity] += 1
    return counts


def _engine_rows(proposal) -> dict[str, list]:
    """Stored rows in the engine's order (the adapter keeps every row, blank or not),
    so a finding's ``jobs[2]`` is the third job row here too."""
    return {kind: list(getattr(proposal, kind).all()) for kind in TABLE_KINDS}
