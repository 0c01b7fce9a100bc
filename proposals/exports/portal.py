"""Portal-ready text: one plain-text block per portal field, in the portal's order.

Order: the AI Factory selection fields; then, for each code entry, (a) name and
version, (b) references and (c) description; then (d) scalability and performance
(the applicant's narrative followed by the generated job plan, scaling tables,
projection sentence and usage schedule as aligned monospace text) and (e) optimisation.
Every block is plain text that survives pasting into a textarea. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from proposals.domain import Assessment, Catalogue, Proposal
from proposals.domain.call_unit import CallRequest
from proposals.domain.fields import label
from proposals.domain.sections import TABLE_BY_KIND, section_title
from proposals.domain.terms import UNITS

from .compute import estimate_sentence
from .tables import (
    Figures,
    cluster_of,
    code_label,
    figures,
    normalise,
    num,
    plural,
)

# Portal fields that combine several of ours (amount and justification in one box);
# the letters a. to e. are the portal's numbering of the code details fields.
PORTAL_STORAGE = "Storage requirement"
PORTAL_TRANSFER = "Data transfer requirement"
PORTAL_NAME_VERSION = "a. Name and version"
PORTAL_REFERENCES = "b. Web page and references"
PORTAL_DESCRIPTION = "c. Description"

ROLE_LABELS = {
    "main": "main training or inference loop",
    "preprocessing": "compute-intensive pre-processing",
    "evaluation": "separate evaluation or inference phase",
    "simulation": "simulation that generates data",
    "other": "other component",
}


@dataclass(frozen=True)
class Block:
    """One portal field: what to paste, and where (``key`` is the JSON path)."""

    key: str
    label: str
    text: str

    @property
    def chars(self) -> int:
        """Characters as the portal counts them (a line break counts as one)."""
        return len(self.text)

    @property
    def dom_id(self) -> str:
        return "block-" + "".join(c if c.isalnum() else "-" for c in self.key)


@dataclass(frozen=True)
class PortalSection:
    title: str
    blocks: tuple[Block, ...]


def _tb(value: float | None) -> str:
    return "" if value is None else f"{num(value)} TB"


def _paragraphs(*parts: str) -> str:
    return "\n\n".join(part for part in parts if part)


def selection_blocks(
    proposal: Proposal, catalogue: Catalogue, call: CallRequest | None = None
) -> list[Block]:
    sel = proposal.selection
    cluster = cluster_of(proposal, catalogue)
    system = cluster.name if cluster else sel.system
    max_gpus = ""
    if sel.max_gpus_per_job:
        max_gpus = num(sel.max_gpus_per_job)
        if cluster:
            nodes = -(-sel.max_gpus_per_job // cluster.gpus_per_node)
            detail = (
                f"{plural(nodes, 'node')} of {cluster.gpus_per_node} GPUs"
                if nodes > 1
                else f"within one node of {cluster.gpus_per_node} GPUs"
            )
            if cluster.gcds_per_gpu > 1:
                gcds = sel.max_gpus_per_job * cluster.gcds_per_gpu
                detail += f"; {num(gcds)} GCDs as Slurm counts them"
            max_gpus += f" ({detail})"
    storage = _paragraphs(_tb(sel.storage_tb), normalise(sel.storage_justification))
    volumes = []
    if sel.transfer_in_tb is not None:
        volumes.append(f"in: {_tb(sel.transfer_in_tb)}")
    if sel.transfer_out_tb is not None:
        volumes.append(f"out: {_tb(sel.transfer_out_tb)}")
    volume = "; ".join(volumes)
    transfer = _paragraphs(
        volume[:1].upper() + volume[1:], normalise(sel.transfer_justification)
    )
    extra_cpu = (
        f"{num(sel.extra_cpu_hours)} CPU-hours"
        if sel.extra_cpu_hours
        else "None beyond the default."
    )
    duration = plural(sel.duration_months, "month") if sel.duration_months else ""
    hours = num(sel.total_gpu_hours) if sel.total_gpu_hours is not None else ""
    if hours and call and call.requested is not None:
        hours += (
            f" ({num(call.requested)} {call.label}, the unit the call counts: "
            f"{num(call.gpus_per_node)} GPUs per node on {call.system})"
        )
    same = call is not None and call.same_as_billing
    if hours and cluster and cluster.billing_unit != "gpu_hours" and not same:
        unit = UNITS.get(cluster.billing_unit, cluster.billing_unit)
        hours += (
            f" ({num(cluster.in_billing_units(sel.total_gpu_hours))} {unit} on "
            f"{cluster.name}; 1 {unit[:-1]} = {num(cluster.billing_unit_gpu_hours)} "
            "GPU-hours)"
        )
    return [
        Block("selection.system", label("system"), system),
        Block(
            "selection.libraries",
            label("libraries"),
            normalise(sel.libraries),
        ),
        Block(
            "selection.total_gpu_hours",
            label("total_gpu_hours"),
            hours,
        ),
        Block("selection.max_gpus_per_job", label("max_gpus_per_job"), max_gpus),
        Block("selection.storage_tb", PORTAL_STORAGE, storage),
        Block("selection.transfer_in_tb", PORTAL_TRANSFER, transfer),
        Block("selection.extra_cpu_hours", label("extra_cpu_hours"), extra_cpu),
        Block(
            "selection.auxiliary_services",
            label("auxiliary_services"),
            normalise(proposal.selection.auxiliary_services) or "None.",
        ),
        Block("selection.duration_months", label("duration_months"), duration),
    ]


def code_sections(proposal: Proposal) -> list[PortalSection]:
    sections = []
    total = len(proposal.codes)
    for i, code in enumerate(proposal.codes):
        name = " ".join(
            part for part in (code.name.strip(), code.version.strip()) if part
        )
        references = "\n".join(ref.strip() for ref in code.references if ref.strip())
        role = ROLE_LABELS.get(code.role, code.role)
        sections.append(
            PortalSection(
                f"{TABLE_BY_KIND['codes'].item} {i + 1} of {total}: "
                f"{code_label(proposal, i)} ({role})",
                (
                    Block(f"codes[{i}].name", PORTAL_NAME_VERSION, name),
                    Block(
                        f"codes[{i}].references",
                        PORTAL_REFERENCES,
                        references,
                    ),
                    Block(
                        f"codes[{i}].description",
                        PORTAL_DESCRIPTION,
                        normalise(code.description),
                    ),
                ),
            )
        )
    return sections


def scalability_text(proposal: Proposal, figs: Figures, estimate: str = "") -> str:
    """Section (d): the narrative, then every generated table as monospace text
    (and the compute estimate after the job plan, when there is one)."""
    parts = [normalise(proposal.scalability.narrative), figs.workload]
    if figs.job_table:
        table = figs.job_table.render_text()
        parts.append(f"{TABLE_BY_KIND['jobs'].title}\n{table}\n{figs.job_note}")
    parts.append(estimate)
    for scaling in figs.scaling:
        caption = scaling.caption
        if scaling.hardware:
            caption += f", measured on {scaling.hardware}"
        parts.append(caption + "\n" + scaling.table.render_text())
    parts.append(figs.projection)
    if figs.schedule_table:
        text = (
            TABLE_BY_KIND["schedule"].title + "\n" + figs.schedule_table.render_text()
        )
        parts.append(text + ("\n" + figs.schedule_note if figs.schedule_note else ""))
    return _paragraphs(*parts)


def portal_sections(
    proposal: Proposal, assessment: Assessment, catalogue: Catalogue
) -> list[PortalSection]:
    """Every portal field of ``proposal`` as a block, grouped by portal section."""
    figs = figures(proposal, assessment, catalogue)
    return [
        PortalSection(
            section_title("selection"),
            tuple(selection_blocks(proposal, catalogue, assessment.call_request)),
        ),
        *code_sections(proposal),
        PortalSection(
            section_title("scalability"),
            (
                Block(
                    "scalability.narrative",
                    f"d. {label('scalability_narrative')}",
                    scalability_text(proposal, figs, estimate_sentence(assessment)),
                ),
            ),
        ),
        PortalSection(
            section_title("optimisation"),
            (
                Block(
                    "optimisation.narrative",
                    f"e. {label('optimisation_narrative')}",
                    normalise(proposal.optimisation_narrative),
                ),
            ),
        ),
    ]


def portal_text(sections: list[PortalSection]) -> str:
    """All blocks as one plain-text document (the golden files compare this)."""
    out = []
    for section in sections:
        out.append(f"=== {section.title} ===")
        for block in section.blocks:
            out.append(f"--- {block.label} ({plural(block.chars, 'character')}) ---")
            out.append(block.text if block.text else "(empty)")
        out.append("")
    return "\n".join(out)
