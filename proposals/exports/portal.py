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

from .tables import (
    Figures,
    cluster_of,
    code_label,
    figures,
    normalise,
    num,
    plural,
)

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
class Section:
    title: str
    blocks: tuple[Block, ...]


def _tb(value: float | None) -> str:
    return "" if value is None else f"{num(value)} TB"


def _paragraphs(*parts: str) -> str:
    return "\n\n".join(part for part in parts if part)


def selection_blocks(proposal: Proposal, catalogue: Catalogue) -> list[Block]:
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
    return [
        Block("selection.system", "Target system", system),
        Block(
            "selection.libraries",
            "Software libraries and codes",
            normalise(sel.libraries),
        ),
        Block(
            "selection.total_gpu_hours",
            "Total GPU-hours requested",
            num(sel.total_gpu_hours) if sel.total_gpu_hours is not None else "",
        ),
        Block("selection.max_gpus_per_job", "Maximum number of GPUs per job", max_gpus),
        Block("selection.storage_tb", "Storage requirement", storage),
        Block("selection.transfer_in_tb", "Data transfer requirement", transfer),
        Block("selection.extra_cpu_hours", "CPU-hours beyond the default", extra_cpu),
        Block(
            "selection.auxiliary_services",
            "Auxiliary services",
            normalise(proposal.selection.auxiliary_services) or "None.",
        ),
        Block("selection.duration_months", "Allocation duration", duration),
    ]


def code_sections(proposal: Proposal) -> list[Section]:
    sections = []
    total = len(proposal.codes)
    for i, code in enumerate(proposal.codes):
        name = " ".join(
            part for part in (code.name.strip(), code.version.strip()) if part
        )
        references = "\n".join(ref.strip() for ref in code.references if ref.strip())
        role = ROLE_LABELS.get(code.role, code.role)
        sections.append(
            Section(
                f"Code details {i + 1} of {total}: {code_label(proposal, i)} ({role})",
                (
                    Block(f"codes[{i}].name", "a. Name and version", name),
                    Block(
                        f"codes[{i}].references",
                        "b. Web page and references",
                        references,
                    ),
                    Block(
                        f"codes[{i}].description",
                        "c. Description",
                        normalise(code.description),
                    ),
                ),
            )
        )
    return sections


def scalability_text(proposal: Proposal, figs: Figures) -> str:
    """Section (d): the narrative, then every generated table as monospace text."""
    parts = [normalise(proposal.scalability.narrative), figs.workload]
    if figs.job_table:
        parts.append("Job plan\n" + figs.job_table.render_text() + "\n" + figs.job_note)
    for scaling in figs.scaling:
        caption = scaling.caption
        if scaling.hardware:
            caption += f", measured on {scaling.hardware}"
        parts.append(caption + "\n" + scaling.table.render_text())
    parts.append(figs.projection)
    if figs.schedule_table:
        text = "Usage schedule\n" + figs.schedule_table.render_text()
        parts.append(text + ("\n" + figs.schedule_note if figs.schedule_note else ""))
    return _paragraphs(*parts)


def portal_sections(
    proposal: Proposal, assessment: Assessment, catalogue: Catalogue
) -> list[Section]:
    """Every portal field of ``proposal`` as a block, grouped by portal section."""
    figs = figures(proposal, assessment, catalogue)
    return [
        Section("AI Factory selection", tuple(selection_blocks(proposal, catalogue))),
        *code_sections(proposal),
        Section(
            "Scalability and performance",
            (
                Block(
                    "scalability.narrative",
                    "d. Scalability and performance of the application",
                    scalability_text(proposal, figs),
                ),
            ),
        ),
        Section(
            "Optimisation",
            (
                Block(
                    "optimisation.narrative",
                    "e. Optimisation of the proposed work",
                    normalise(proposal.optimisation_narrative),
                ),
            ),
        ),
    ]


def portal_text(sections: list[Section]) -> str:
    """All blocks as one plain-text document (the golden files compare this)."""
    out = []
    for section in sections:
        out.append(f"=== {section.title} ===")
        for block in section.blocks:
            out.append(f"--- {block.label} ({plural(block.chars, 'character')}) ---")
            out.append(block.text if block.text else "(empty)")
        out.append("")
    return "\n".join(out)
