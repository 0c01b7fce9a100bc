"""The whole-proposal summary behind the Markdown and PDF exports.

:func:`build_summary` turns a domain proposal and its assessment into formatted
strings and tables only; the Markdown writer and the PDF template lay them out and
compute nothing. Pure Python: no Django. Its headings, labels and findings are in
the active language (English for the portal's summary, the reader's for their own
team's, issue 36); the portal text blocks in it stay English (``in_english``).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from proposals.domain import Assessment, Catalogue, Finding, Proposal, tier_label
from proposals.domain.calendar import for_proposal as calendar_of
from proposals.domain.countries import name as country_name
from proposals.domain.fields import describe_path, label, row_names
from proposals.domain.findings import SEVERITY_NAMES
from proposals.domain.i18n import gettext, in_english, ngettext
from proposals.domain.jsonformat import dump
from proposals.domain.numbers import MISSING, num
from proposals.domain.types import (
    CALL_FAMILY_LABELS,
    CODE_ROLE_LABELS,
    ORGANISATION_KIND_LABELS,
)

from .compute import summary_rows as compute_rows
from .portal import Block, selection_blocks
from .tables import Figures, code_label, figures, normalise


def severity_label(severity: str) -> str:
    """ "Error", "Warning" or "Info" in the active language."""
    name = SEVERITY_NAMES.get(severity, severity)
    return name[:1].upper() + name[1:]


@dataclass(frozen=True)
class FindingLine:
    """A finding as people read it: ``where`` names the field the way the wizard
    does ("Code details 2 (nordlicht-train) › Version"), never by its JSON path."""

    code: str
    severity: str
    where: str
    message: str

    @property
    def severity_label(self) -> str:
        return severity_label(self.severity)


def finding_lines(proposal: Proposal, findings) -> tuple[FindingLine, ...]:
    """``findings`` (domain findings or their dicts) with readable places."""
    names = row_names(dump(proposal))
    lines = []
    for f in findings:
        f = f.to_dict() if isinstance(f, Finding) else f
        lines.append(
            FindingLine(
                f["code"], f["severity"], describe_path(f["field"], names), f["message"]
            )
        )
    return tuple(lines)


@dataclass(frozen=True)
class CodeSummary:
    heading: str
    role: str
    references: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class Summary:
    title: str
    revision: int | None  # the review revision (r1, r2), None for the draft
    date: str
    status: str
    organisation: tuple[tuple[str, str], ...]
    assessment: tuple[tuple[str, str], ...]
    reasons: tuple[str, ...]
    energy_assumptions: tuple[str, ...]
    findings: tuple[FindingLine, ...]
    counts: str
    selection: tuple[Block, ...]
    codes: tuple[CodeSummary, ...]
    narrative: str
    figures: Figures
    optimisation: str
    # The staff's technical assessment (staff exports only): (label, value) rows.
    review: tuple[tuple[str, str], ...] = ()
    # The last scaling kit handed out and which of its logs came back (issue 37):
    # the sentences of ``KitHistory.lines``, none without a kit.
    kit: tuple[str, ...] = ()

    @property
    def version(self) -> str:
        """``Review revision r2`` or ``Draft``: what the document is, in the staff's
        words (never the autosave counter)."""
        if self.revision:
            return gettext("Review revision r{number}").format(number=self.revision)
        return gettext("Working draft")

    @property
    def short_version(self) -> str:
        return f"r{self.revision}" if self.revision else gettext("Draft")

    @property
    def errors(self) -> tuple[FindingLine, ...]:
        return tuple(f for f in self.findings if f.severity == "error")


def findings_count(assessment: Assessment) -> str:
    """``1 error, 2 warnings, 1 note``."""
    c = assessment.counts
    return ", ".join(
        (
            ngettext("{n} error", "{n} errors", c["error"]).format(n=num(c["error"])),
            ngettext("{n} warning", "{n} warnings", c["warning"]).format(
                n=num(c["warning"])
            ),
            ngettext("{n} note", "{n} notes", c["info"]).format(n=num(c["info"])),
        )
    )


def _assessment_rows(
    proposal: Proposal, assessment: Assessment
) -> list[tuple[str, str]]:
    a = assessment
    rows = [
        (gettext("Call tier (from the GPU-hours)"), a.mode_label),
        (gettext("Recommended tier"), tier_label(a.recommended_tier)),
        (gettext("GPU-hours requested"), num(a.requested_gpu_hours)),
    ]
    c = a.call_request
    if c is not None and c.requested is not None:
        rows.append(
            (
                gettext("Requested in {unit} (the call's unit)").format(unit=c.label),
                gettext(
                    "{amount} ({gpus} GPUs per node on {system}; source: {source})"
                ).format(
                    amount=num(c.requested),
                    gpus=num(c.gpus_per_node),
                    system=c.system,
                    source=c.source,
                ),
            )
        )
    b = a.billing
    if b and b.differs and b.requested is not None and not (c and c.same_as_billing):
        rows.append(
            (
                gettext("Requested in {unit} (the system's unit)").format(unit=b.label),
                gettext("{amount} (1 = {rate} GPU-hours; source: {source})").format(
                    amount=num(b.requested),
                    rate=num(b.gpu_hours_per_unit),
                    source=b.source,
                ),
            )
        )
    if a.plan.rows:
        rows.append((gettext("GPU-hours in the job plan"), num(a.plan.total_gpu_hours)))
    if a.plan.largest_job_gpus:
        gpus, nodes = a.plan.largest_job_gpus, a.plan.largest_job_nodes
        largest = ngettext("{n} GPU", "{n} GPUs", gpus).format(n=num(gpus))
        if nodes:
            largest += " (" + ngettext("{n} node", "{n} nodes", nodes).format(
                n=num(nodes)
            )
            largest += ")"
        rows.append((gettext("Largest job"), largest))
    if a.energy is not None:
        e = a.energy
        rows.append(
            (
                gettext("Energy estimate"),
                gettext("{mwh} MWh, {tonnes} t CO2e (at {grams} gCO2e/kWh)").format(
                    mwh=num(e.energy_mwh, 1),
                    tonnes=num(e.carbon_t_co2e, 1),
                    grams=num(e.carbon_intensity_g_per_kwh),
                ),
            )
        )
    rows += compute_rows(a)
    return rows


def country_label(code: str) -> str:
    """``Finland (FI)`` for an ISO 3166 country, the code as given otherwise."""
    code = (code or "").strip().upper()
    known = country_name(code)
    return f"{known} ({code})" if known != code else (code or MISSING)


def build_summary(
    proposal: Proposal,
    assessment: Assessment,
    catalogue: Catalogue,
    *,
    revision: int | None,
    today: datetime.date,
    status: str = "",
    review: tuple[tuple[str, str], ...] = (),
    kit: tuple[str, ...] = (),
) -> Summary:
    """Everything the Markdown and PDF summaries show, formatted."""
    org = proposal.organisation
    organisation = [
        (
            label("call_family"),
            CALL_FAMILY_LABELS.get(proposal.call_family, proposal.call_family),
        ),
        (label("organisation_name"), org.name or MISSING),
        (
            label("organisation_kind"),
            ORGANISATION_KIND_LABELS.get(org.kind, org.kind or MISSING),
        ),
        (label("organisation_country"), country_label(org.country)),
        (label("vat_number"), org.vat_number or MISSING),
    ]
    codes = tuple(
        CodeSummary(
            heading=f"{i + 1}. {code_label(proposal, i)}",
            role=CODE_ROLE_LABELS.get(code.role, code.role),
            references=tuple(r.strip() for r in code.references if r.strip()),
            description=normalise(code.description),
        )
        for i, code in enumerate(proposal.codes)
    )
    rows = _assessment_rows(proposal, assessment)
    # The portal text's own blocks: English, as pasted into the portal.
    with in_english():
        selection = tuple(
            selection_blocks(proposal, catalogue, assessment.call_request)
        )
    # The request on the calendar (issue 14): how busy it keeps the system.
    cal = calendar_of(proposal, assessment.plan, catalogue)
    if cal is not None:
        rows.append((gettext("Calendar"), cal.summary()))
    return Summary(
        title=proposal.title.strip() or gettext("Untitled proposal"),
        revision=revision,
        date=today.isoformat(),
        status=status,
        organisation=tuple(organisation),
        assessment=tuple(rows),
        reasons=assessment.reasons,
        energy_assumptions=assessment.energy.assumptions if assessment.energy else (),
        findings=finding_lines(proposal, assessment.findings),
        counts=findings_count(assessment),
        selection=selection,
        codes=codes,
        narrative=normalise(proposal.scalability.narrative),
        figures=figures(proposal, assessment, catalogue),
        optimisation=normalise(proposal.optimisation_narrative),
        review=review,
        kit=kit,
    )
