"""Where each wizard field is shown: the layout of every step, of the code card and
of each table's row, declared once as data (as the Django admin's ``fieldsets``).

The wizard's forms take their fields from here (``forms.WizardStepForm``), so a
field that is not laid out is not in the form: a Save without JavaScript never
posts it, and nothing blanks its stored value. The step templates place a layout's
groups by name (``{{ group(page, page.forms.main, page.step.layout.request) }}``);
what a field is called and how it is explained stays in :mod:`.field_catalogue`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import Translated, gettext_noop


@dataclass(frozen=True)
class Cell:
    """One field in a row; ``width`` is its column's classes (``""``: full width)."""

    name: str
    width: str = ""


@dataclass(frozen=True)
class Group:
    """Fields shown together: a ``legend`` makes them a ``<fieldset>``, with an
    optional ``description`` under it; each row of several cells is a grid row."""

    name: str
    rows: tuple[tuple[Cell, ...], ...]
    legend: str = Translated(default="")
    description: str = Translated(default="")

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(cell.name for row in self.rows for cell in row)


@dataclass(frozen=True)
class Layout:
    """The groups of one step or one row, in page order. ``layout["request"]`` (and
    ``{{ layout.request }}`` in a template) is the group of that name."""

    groups: tuple[Group, ...]

    @property
    def fields(self) -> tuple[str, ...]:
        """Every laid-out field, in page order: the fields of the form."""
        return tuple(name for group in self.groups for name in group.fields)

    def __getitem__(self, name: str) -> Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(f"No group {name!r} in this layout.")


def _one(*names: str) -> tuple[tuple[Cell, ...], ...]:
    """Rows of one full-width field each."""
    return tuple((Cell(name),) for name in names)


def _columns(*names: str) -> Layout:
    """A table row's layout: one cell per column, in column order."""
    return Layout((Group("columns", (tuple(Cell(name) for name in names),)),))


def _row(*cells: tuple[str, str]) -> tuple[Cell, ...]:
    return tuple(Cell(name, width) for name, width in cells)


# The proposal's own fields, by step (a step without any has no layout).
STEP_LAYOUTS: dict[str, Layout] = {
    "organisation": Layout(
        (
            Group(
                "about",
                _one("title", "call_family"),
                legend=gettext_noop("About the proposal"),
            ),
            Group(
                "organisation",
                (
                    _row(
                        ("organisation_name", "col-md-7"),
                        ("organisation_kind", "col-md-5"),
                        ("organisation_country", "col-md-7"),
                        ("vat_number", "col-md-5"),
                    ),
                    (Cell("ongoing_eurohpc_project"),),
                ),
                legend=gettext_noop("Organisation and eligibility"),
            ),
            Group(
                "quick",
                _one("hpc_experience", "stack_demonstrated_on_target"),
                legend=gettext_noop("Quick selection"),
                description=gettext_noop(
                    "Two questions that, with your GPU-hours and scaling "
                    "data, decide which call we recommend."
                ),
            ),
        )
    ),
    "selection": Layout(
        (
            Group("system", _one("system")),
            Group(
                "request",
                (
                    (Cell("libraries"),),
                    _row(
                        ("total_gpu_hours", "col-md-6"),
                        ("max_gpus_per_job", "col-md-6"),
                    ),
                    _row(
                        ("storage_tb", "col-md-4"),
                        ("storage_justification", "col-md-8"),
                        ("transfer_in_tb", "col-md-2 col-6"),
                        ("transfer_out_tb", "col-md-2 col-6"),
                        ("transfer_justification", "col-md-8"),
                    ),
                    _row(
                        ("extra_cpu_hours", "col-md-6"),
                        ("duration_months", "col-md-6"),
                    ),
                    (Cell("auxiliary_services"),),
                ),
            ),
        )
    ),
    "scalability": Layout(
        (
            Group("narrative", _one("scalability_narrative")),
            Group(
                "plan",
                (
                    _row(
                        ("workload", "col-md-7"),
                        ("runtime_stability_pct", "col-md-5"),
                    ),
                ),
            ),
        )
    ),
    "optimisation": Layout((Group("narrative", _one("optimisation_narrative")),)),
}

# One row of each table kind: the code card (a card of fields, the model's compute
# inputs folded away) and the other tables' columns, in column order.
ROW_LAYOUTS: dict[str, Layout] = {
    "codes": Layout(
        (
            Group(
                "main",
                (
                    (Cell("role"),),
                    _row(("name", "col-md-8"), ("version", "col-md-4")),
                    (Cell("references"),),
                    (Cell("description"),),
                    (Cell("launch_command"),),
                ),
            ),
            Group(
                "compute",
                (
                    _row(
                        ("model_use", "col-md-4"),
                        ("model_parameters", "col-md-4"),
                        ("training_tokens", "col-md-4"),
                        ("dataset_samples", "col-md-4"),
                        ("epochs", "col-md-2 col-6"),
                        ("tokens_per_sample", "col-md-3 col-6"),
                        ("assumed_mfu_pct", "col-md-3"),
                    ),
                ),
            ),
        )
    ),
    "measurements": _columns(
        "code", "gpus", "throughput", "unit", "mfu_pct", "comm_overhead_pct", "hardware"
    ),
    "jobs": _columns("title", "gpus", "hours", "count"),
    "schedule": _columns("from_month", "to_month", "gpu_hours", "activity"),
}


def step_layout(slug: str) -> Layout | None:
    """The layout of a step's own fields (``None``: the step has none)."""
    return STEP_LAYOUTS.get(slug)


def row_layout(kind: str) -> Layout:
    """The layout of one row of the table ``kind``."""
    return ROW_LAYOUTS[kind]
