"""What a field's feedback block shows (``fb-<input id>``, ``rows/feedback.html``):
its errors, the conflict with a value saved since, the reading note, the reviewer's
findings on it, the largest job in physical GPUs and nodes, and (outside table
rows) the tier-fitted help with its examples.

The blocks of the step's own form are one keyed region (:func:`step_feedback_regions`,
``fb-step``), like the findings under the fields (:mod:`.form_regions`): an autosave
sends them again only when what they show changed. The blocks of the rows it sent
come with every answer (``posted_feedback``): a row's are only on the page where
the row was typed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from django.utils.translation import ngettext

from proposals.domain.numbers import num
from proposals.wizard.form_regions import shown_findings
from proposals.wizard.regions import Region


def physical_gpus_text(gpus, nodes, per_node) -> str:
    """``= 32 physical GPUs, 8 nodes of 4 GPUs`` (under the largest job's size)."""
    if nodes:
        return ngettext(
            "= %(gpus)s physical GPUs, %(nodes)s node of %(per_node)s GPUs",
            "= %(gpus)s physical GPUs, %(nodes)s nodes of %(per_node)s GPUs",
            nodes,
        ) % {"gpus": num(gpus), "nodes": num(nodes), "per_node": per_node}
    return ngettext("= %(gpus)s physical GPU", "= %(gpus)s physical GPUs", gpus) % {
        "gpus": num(gpus)
    }


class Feedback(NamedTuple):
    """A field's feedback block (``fb-<input id>``): see ``rows/feedback.html``."""

    anchor: str
    label: str | None
    oob: bool
    errors: list
    note: str
    findings: tuple
    gpus: str
    help: str
    examples: tuple
    conflict: str  # the other value saved since the page showed it, and by whom


def feedback_values(page) -> dict:
    """What the feedback blocks and the cells read of the wizard's ``page``
    (:class:`proposals.wizard.page.Page`), looked up once per tag rather than once per
    cell."""
    return {
        "findings_by_anchor": page.findings.by_anchor,
        "proposal": page.proposal,
        "max_gpus_nodes": page.max_gpus_nodes,
        "cluster": page.cluster,
        "help": page.help.text,
        "help_examples": page.help.examples,
        "gpu_unit_label": page.gpu_unit_label,
        "conflict_notes": page.conflict_notes,
    }


def feedback(values, field, *, compact=False, oob=False, notes=None, errors=None):
    """The data of ``field``'s feedback block: its errors, reading note and the
    reviewer's findings; ``compact`` (table cells) without the help, labelled."""
    form = field.form
    if errors is None:
        errors = form.errors.get(field.name)
    notes = form.notes if notes is None else notes
    return block(
        values,
        field.auto_id,
        field.name,
        field.label if compact else None,
        errors,
        notes.get(field.name),
        oob=oob,
    )


def block(values, anchor, name, label, errors, note, *, oob=False) -> Feedback:
    """:func:`feedback` from its parts (a table's cells: without a bound field);
    ``label`` (table cells only) is ``None`` for a block with the field's help."""
    gpus = ""
    if name == "max_gpus_per_job":
        proposal = values.get("proposal")
        if proposal and proposal.max_gpus_per_job:
            nodes = values.get("max_gpus_nodes")
            per_node = values["cluster"].gpus_per_node if nodes else None
            gpus = physical_gpus_text(proposal.max_gpus_per_job, nodes, per_node)
    text = examples = ""
    if label is None:
        text = values["help"].get(name) or ""
        examples = values["help_examples"].get(name) or () if text else ()
    found = values["findings_by_anchor"].get(anchor)  # most inputs have none
    return Feedback(
        anchor,
        label,
        bool(oob),
        errors or (),
        note or "",
        shown_findings(found) if found else (),
        gpus,
        text,
        examples,
        values["conflict_notes"].get(anchor, ""),
    )


def form_feedback(values, form, *, oob=False) -> list[Feedback]:
    """The feedback block of every input of ``form`` (compact in a table row's),
    as the page shows them after the form was read."""
    form.errors  # noqa: B018 (validated first: cleaning makes the reading notes)
    compact, notes = bool(form.prefix), form.notes
    return [
        feedback(values, field, compact=compact, oob=oob, notes=notes)
        for field in form
        if not field.is_hidden
    ]


# --- The step's own form: one keyed region ----------------------------------------

STEP_FEEDBACK = "proposals/rows/posted_feedback.html#form_feedback"
#: The feedback region of the step's own form (the blocks' ids are ``fb-id_<name>``).
STEP_FEEDBACK_NAME = "fb-step"


@dataclass(frozen=True)
class FormFeedbackInputs:
    """Each block as it shows (:class:`Feedback`, its text made plain: a region's
    key is the ``repr`` of its inputs)."""

    blocks: tuple


def _shown(item: Feedback) -> Feedback:
    return item._replace(
        label=None if item.label is None else str(item.label),
        oob=False,  # the region's rendering says whether it is out of band
        errors=tuple(str(error) for error in item.errors),
        note=str(item.note),
        gpus=str(item.gpus),
        help=str(item.help),
        examples=tuple(item.examples),
        conflict=str(item.conflict),
    )


def step_feedback_regions(values, form) -> list[Region]:
    """The feedback blocks of the step's own ``form`` (errors, a conflict, notes,
    findings and help under each field) as one region; none for a step without a
    form of its own. An autosave sends them again only when they changed."""
    if form is None:
        return []
    blocks = tuple(_shown(item) for item in form_feedback(values, form))
    return [Region(STEP_FEEDBACK_NAME, STEP_FEEDBACK, FormFeedbackInputs(blocks))]
