"""How far the applicant is: each step's progress from the badges' counts, the
plan's folding in Playground, and whether a page load moved here from another
step (focus goes to the heading)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from proposals.domain.numbers import grouped
from proposals.domain.rulebook.common import exploratory
from proposals.table_rows import rows_of
from proposals.wizard.steps import STEPS

# What only a tier that asks for a job plan or scaling data needs on the scalability
# step: the workload shape, the runtime stability, the GPU/GCD toggle and the tables.
PLAN_TABLES = ("measurements", "jobs", "schedule")
PLAN_FIELDS = ("workload", "runtime_stability_pct")


def plan_optional(mode) -> bool:
    """Whether the request's mode (``ModeTerms``; ``None`` while the hours are not
    known) asks for a description of tests but for neither a job plan nor scaling
    data (Playground): the wizard then folds the job plan and the measurements away
    behind "Add a job plan / scaling measurements"."""
    return exploratory(mode)


def has_plan_data(proposal) -> bool:
    """Whether anything of the job plan or the scaling data is stored (rows, the
    workload shape, a stability figure): what exists is always shown."""
    return any(rows_of(proposal, kind) for kind in PLAN_TABLES) or any(
        getattr(proposal, name) not in (None, "") for name in PLAN_FIELDS
    )


def plan_folded(mode, proposal) -> bool:
    """The server's decision: fold the job plan and measurements of ``proposal``
    (its tier does not ask for them and none are stored)."""
    return plan_optional(mode) and not has_plan_data(proposal)


@dataclass(frozen=True)
class StepProgress:
    """How far one step is: ``started`` once edited or left (an untouched step is
    never complete), ``items`` the errors, warnings, open items and unsaved inputs
    the step still has (notes are advice, not items)."""

    slug: str
    started: bool
    items: int

    @property
    def complete(self) -> bool:
        return self.started and self.items == 0

    @property
    def state(self) -> str:
        if not self.started:
            return "not-started"
        return "complete" if self.complete else "todo"

    @property
    def text(self) -> str:
        """What the step tab says, in words (not only a colour)."""
        if self.complete:
            return _("complete")
        if not self.started:
            return _("not started")
        return ngettext("%(items)s item to do", "%(items)s items to do", self.items) % {
            "items": grouped(self.items, 0)
        }


@dataclass(frozen=True)
class Progress:
    """The progress of every step that has something to fill in, in step order."""

    steps: tuple[StepProgress, ...]

    @property
    def by_step(self) -> dict[str, StepProgress]:
        return {item.slug: item for item in self.steps}

    @property
    def complete(self) -> int:
        return sum(item.complete for item in self.steps)

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def items(self) -> int:
        return sum(item.items for item in self.steps)

    @property
    def percent(self) -> int:
        return round(100 * self.complete / self.total) if self.total else 100

    @property
    def text(self) -> str:
        """``4 of 5 steps complete, 3 items to do``, in the person's language."""
        values = {
            "complete": grouped(self.complete, 0),
            "total": grouped(self.total, 0),
            "items": grouped(self.items, 0),
        }
        if not self.items:
            return _("%(complete)s of %(total)s steps complete, nothing to do") % values
        return (
            ngettext(
                "%(complete)s of %(total)s steps complete, %(items)s item to do",
                "%(complete)s of %(total)s steps complete, %(items)s items to do",
                self.items,
            )
            % values
        )


def wizard_progress(
    counts_by_step: dict[str, dict[str, int]],
    refused_by_step: dict[str, int],
    visited,
) -> Progress:
    """Progress per step and overall, from the same counts the step badges show
    (findings by severity and "to do", inputs not saved). The review step has
    nothing to fill in and is not counted."""
    visited = set(visited or ())
    steps = []
    for step in STEPS:
        if step.form_class is None and not step.tables:
            continue
        counts = counts_by_step.get(step.slug, {})
        items = (
            counts.get("error", 0)
            + counts.get("warning", 0)
            + counts.get("todo", 0)
            + refused_by_step.get(step.slug, 0)
        )
        steps.append(StepProgress(step.slug, step.slug in visited, items))
    return Progress(tuple(steps))
