"""What the live regions of a page show: the assessment, the findings with the place
in the wizard each points at, per-row computed figures, tier-fitted help and the chart.

Read by the wizard's page (:mod:`proposals.wizard.page`) and by the read-only review pages.
"""

import functools
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from django.urls import reverse

from proposals.domain.bounds import BOUNDS
from proposals.domain.fields import (
    FIELD_BY_KEY,
    SEPARATOR,
    columns,
    describe_path,
)
from proposals.domain.jobplan import nodes_for
from proposals.domain.sections import ROW_PREFIX, TABLE_BY_KIND, TABLES
from proposals.domain.terms import family_terms, figures
from proposals.domain.tiers import tier_label
from proposals.evaluation import Evaluation
from proposals.wizard.steps import STEPS, finding_location

SEVERITY_CLASS = {"error": "danger", "warning": "warning", "info": "info"}


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


@dataclass(frozen=True)
class Findings:
    """The findings of one evaluation as the wizard shows them: each with the step
    and the element it points at, by step and by element, and counted."""

    items: tuple[dict, ...]
    by_step: dict
    by_anchor: dict
    counts_by_step: dict
    counts: dict


def wizard_findings(evaluation, step: str) -> Findings:
    """The findings located in the wizard. In the wizard (``step`` given), what the
    applicant has not reached yet is "to do", not an error: the open items of steps
    not yet edited or left, and those of a new, still blank row of the step being
    edited. Staff pages and exports see every finding as it is."""
    rows = evaluation.rows
    names = {
        table.kind: [getattr(row, table.name_field) for row in rows[table.kind]]
        for table in TABLES
        if table.name_field
    }
    visited = set(evaluation.model.visited_steps or ())
    fresh = _blank_rows(rows) if step else set()
    items = []
    by_step, by_anchor = defaultdict(list), defaultdict(list)
    for finding in evaluation.assessment.findings:
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
        items.append(item)
        by_step[location.step].append(item)
        by_anchor[location.anchor].append(item)
    return Findings(
        items=tuple(items),
        by_step=dict(by_step),
        by_anchor=dict(by_anchor),
        counts_by_step={
            s.slug: _severity_counts(by_step.get(s.slug, [])) for s in STEPS
        },
        counts=_severity_counts(items),
    )


def row_figures(evaluation) -> tuple[dict, dict]:
    """Each job row's figures and each measurement's point, by the row's id."""
    rows, assessment = evaluation.rows, evaluation.assessment
    jobs = {
        rows["jobs"][r.index].pk: r
        for r in assessment.plan.rows
        if r.index < len(rows["jobs"])
    }
    points = {
        rows["measurements"][p.index].pk: p
        for p in assessment.scaling_points
        if p.index < len(rows["measurements"])
    }
    return jobs, points


def live_context(proposal, *, step: str = "", evaluation=None) -> dict:
    """What the review pages read of one evaluation of ``proposal``: the
    assessment, the findings located in the wizard, per-row figures, tier-fitted
    help, the mode's terms and what was typed and not saved. (The wizard reads the
    same parts from its :class:`proposals.wizard.page.Page`.)"""
    evaluation = evaluation or Evaluation.of(proposal)
    assessment = evaluation.assessment
    findings = wizard_findings(evaluation, step)
    job_figures, point_figures = row_figures(evaluation)
    field_help = help_of(evaluation, proposal)
    return {
        "evaluation": evaluation,
        "assessment": assessment,
        "tier_label": assessment.mode_label,
        "recommended_label": tier_label(assessment.recommended_tier),
        "findings": list(findings.items),
        "findings_by_step": findings.by_step,
        "findings_by_anchor": findings.by_anchor,
        "counts_by_step": findings.counts_by_step,
        "finding_counts": findings.counts,
        "job_figures": job_figures,
        "point_figures": point_figures,
        # The tables' totals (the step templates' and the rows' regions').
        "plan_total": assessment.plan.total_gpu_hours,
        "schedule_total": assessment.schedule.total_gpu_hours,
        "help": field_help.text,
        "help_examples": field_help.examples,
        # What the request's mode (tier) asks for: the wizard folds what it does not.
        "mode_terms": mode_terms(evaluation.reference.terms, proposal, assessment),
        "calendar": evaluation.calendar,
        "cluster": proposal.system,
        # duck-typed: the model has the same gpus_per_node as the domain's Cluster
        "max_gpus_nodes": nodes_for(proposal.max_gpus_per_job or 0, proposal.system),
        **refused_inputs(proposal, evaluation.rows, step)._asdict(),
    }


class FieldHelp(NamedTuple):
    """Tier-fitted help and examples by field key, each computed when first asked."""

    text: PerField
    examples: PerField


def help_of(evaluation, proposal) -> FieldHelp:
    """Tier-fitted help and examples by field key (``total_gpu_hours``,
    ``jobs.gpus``), with the figures of the call terms in force; examples fitted
    to the tier and the system (LUMI words for LUMI)."""
    tier = evaluation.assessment.tier
    system_slug = getattr(proposal.system, "slug", None)
    # The family's help, not the industrial tiers', in a family without tiers.
    family = family_terms(evaluation.reference.terms, proposal.call_family)
    tiered = family.tiered

    @functools.cache
    def help_figures():  # only when some field's help is shown (not on most autosaves)
        return figures(evaluation.reference.terms)

    return FieldHelp(
        PerField(lambda spec: spec.help_for(tier, help_figures(), system_slug, tiered)),
        PerField(
            lambda spec: spec.examples_for(
                tier, system_slug, proposal.organisation_country
            )
        ),
    )


def mode_terms(terms, proposal, assessment):
    """The terms of the mode the request falls into (``None``: not known yet)."""
    family = family_terms(terms, proposal.call_family)
    return family.mode(assessment.mode) if assessment.mode else None


class Refused(NamedTuple):
    """What was typed and not saved, as the page shows it (:func:`refused_inputs`)."""

    refused_by_step: dict
    refused_here: int
    refused_total: int
    refused_labels: list
    refused_rows: set
    gone_rows: list


def refused_inputs(proposal, rows, step: str) -> Refused:
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
    for key, entry in _in_page_order(proposal.refused_inputs or {}, positions):
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
    return Refused(
        refused_by_step=dict(by_step),
        refused_here=by_step.get(step, 0) - len(gone_here),
        refused_total=sum(by_step.values()),
        refused_labels=labels,
        refused_rows=row_prefixes,
        gone_rows=gone_here,
    )


# Each field's place in the vocabulary: the order the pages list fields in.
_FIELD_ORDER = {key: index for index, key in enumerate(FIELD_BY_KEY)}
_TABLE_ORDER = {table.kind: index for index, table in enumerate(TABLES)}


def _in_page_order(refused: dict, positions: dict) -> list[tuple[str, dict]]:
    """``refused``'s items, the step's own fields first, then the rows' by table,
    row and field: the same order whatever order the database keeps the keys in
    (PostgreSQL's ``jsonb`` sorts them by length), so a list of fields reads the
    same after an autosave and after a reload."""

    def place(item):
        key = item[0]
        match = ROW_PREFIX.match(key)
        if not match:
            return (0, 0, 0, _FIELD_ORDER.get(key, len(_FIELD_ORDER)), key)
        prefix = match.group(1)
        kind, name = prefix.split("-")[0], key[len(prefix) + 1 :]
        field = _FIELD_ORDER.get(f"{kind}.{name}", len(_FIELD_ORDER))
        row = positions.get(prefix, len(positions))
        return (1, _TABLE_ORDER.get(kind, len(_TABLE_ORDER)), row, field, key)

    return sorted(refused.items(), key=place)


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
