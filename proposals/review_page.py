"""The staff review page's reading of a proposal: the way the applicant's exports
show it, for the working draft or any revision sent for review.

Everything shown comes from the exports (``proposals.exports``): the portal text
blocks with their character counts, the organisation facts of the summary and the
generated figures (job plan, scaling tables with speedup, efficiency and MFU, usage
schedule) as tables. Nothing is recomputed here; this module only groups those parts
by the proposal's sections, so that staff comments sit beside what they are about.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import FieldDoesNotExist

from proposals import exports
from proposals.assess import calendar_for
from proposals.charts import inline_svg
from proposals.domain.documents import Row, layout
from proposals.domain.fields import (
    FIELD_BY_KEY,
    FIELD_BY_PATH,
    describe_path,
    label,
    row_names,
)
from proposals.domain.sections import (
    ROW_PATH,
    SECTIONS,
    TABLE_BY_PATH,
    section_of_path,
)
from proposals.exports.portal import PortalSection
from proposals.exports.tables import Figures
from proposals.live import SEVERITY_CLASS
from proposals.models import Proposal
from proposals.services import ROW_MODELS
from proposals.wizard.regions import Sidebar, sidebar_regions

# Organisation facts the export summary already shows (by JSON path).
SUMMARY_PATHS = {
    "call_family",
    "organisation.name",
    "organisation.kind",
    "organisation.country",
    "organisation.vat_number",
}


@dataclass
class ReviewSection:
    """One section of the proposal as staff read it."""

    key: str
    title: str
    rows: list[Row]  # every field of the section (the comment form's "About" list)
    facts: list[tuple[str, str]] = field(default_factory=list)
    portal: list[PortalSection] = field(default_factory=list)
    figures: Figures | None = None
    narrative: str = ""  # the applicant's own text before the generated figures


def choice_name(path: str, text: str) -> str:
    """The name of a choice ("SME", not ``sme``; "Main training or inference
    loop", not ``main``), from the choices of the model field behind ``path``."""
    model, spec = Proposal, FIELD_BY_PATH.get(path)
    match = ROW_PATH.match(path)
    if spec is None and match and match.group(3):
        kind = TABLE_BY_PATH[match.group(1)].kind
        model, spec = ROW_MODELS.get(kind), FIELD_BY_KEY.get(f"{kind}.{match.group(3)}")
    if spec is None or model is None or not text:
        return text
    try:
        model_field = model._meta.get_field(spec.name)
    except FieldDoesNotExist:  # a field of the format that is not a model column
        return text
    return (
        str(dict(model_field.flatchoices).get(text, text))
        if model_field.choices
        else text
    )


def review_sections(source: exports.Source) -> list[ReviewSection]:
    """The proposal of ``source`` grouped by section, as the exports render it."""
    document = source.evaluation.document
    summary = exports.summary_for(source)
    portal = exports.portal_for(source)
    sections = {s.key: ReviewSection(s.key, s.title, s.rows) for s in layout(document)}
    organisation = sections["organisation"]
    organisation.facts.append((label("title"), summary.title))
    organisation.facts.extend(summary.organisation)
    organisation.facts.extend(
        (row.label, row.value or "-")
        for row in organisation.rows
        if row.path not in SUMMARY_PATHS and row.path != "title"
    )
    for group in portal:
        key = section_of_path(group.blocks[0].key) if group.blocks else ""
        if key in sections:
            sections[key].portal.append(group)
    sections["scalability"].figures = summary.figures
    sections["scalability"].narrative = summary.narrative
    return [sections[s.slug] for s in SECTIONS]


def sidebar(source: exports.Source, model) -> dict:
    """The context of the live sidebar (``live/aside.html#aside``) for ``source``: the same
    tier, totals, findings, chart and energy estimate as the wizard shows, as the
    wizard's regions; ``model`` is the stored proposal (the calendar reads its
    duration and system, whichever revision is shown)."""
    evaluation = source.evaluation
    assessment = evaluation.assessment
    row_labels = row_names(evaluation.document)
    findings = tuple(
        {
            "finding": f,
            "where": describe_path(f.field, row_labels),
            "step": section_of_path(f.field),
            "anchor": "",
            "css": SEVERITY_CLASS.get(f.severity, "secondary"),
        }
        for f in assessment.findings
    )
    chart_svg, _ = inline_svg(evaluation.chart_data)
    shown = Sidebar(
        findings=findings,
        finding_counts=assessment.counts,
        staff_view=True,
        chart_svg=chart_svg,
    )
    calendar = calendar_for(model, assessment)
    return {"regions": sidebar_regions(evaluation, model.pk, shown, calendar)}
