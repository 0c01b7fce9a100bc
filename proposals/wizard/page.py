"""The wizard page as one object: what a step's templates read, passed as ``page``.

A :class:`Page` is one request's step of one proposal: the proposal, the step, its
forms and the person reading it (:class:`Person`), with the parts computed from one
evaluation on first use (``functools.cached_property``): the findings, the fields'
help, the mode's terms, what was typed and not saved, the live regions. An answer to
a POST adds what the save did (:meth:`Page.answer`).

Templates read ``page.<part>``. A part the page does not have is an error
(:class:`UnknownPart`), not the empty string Django's templates make of an
``AttributeError``: a misspelt or removed part fails the test that renders it.

The functions at the end build the page a wizard request answers with, from plain
values (the proposal, the step, the save, the person's number format and user):
the view reads the request once and decides only which template answers.
"""

import json
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

from django.urls import reverse

from proposals import charts, selectors, services
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.jobplan import nodes_for
from proposals.domain.numbers import NumberFormat
from proposals.domain.sections import ROW_PREFIX, TABLE_BY_KIND, TABLE_KINDS
from proposals.domain.team import Capability
from proposals.evaluation import Evaluation
from proposals.forms.base import gpu_unit_label
from proposals.live import (
    help_of,
    mode_terms,
    refused_inputs,
    row_figures,
    wizard_findings,
)
from proposals.wizard.changes import field_bases
from proposals.wizard.feedback import feedback_values, step_feedback_regions
from proposals.wizard.form_regions import (
    field_findings_regions,
    jobs_total_region,
    of_rows,
    row_regions,
    schedule_total_region,
    shown_row_keys,
    shown_row_values,
)
from proposals.wizard.parts import page_parts
from proposals.wizard.progress import plan_folded, plan_optional, wizard_progress
from proposals.wizard.regions import (
    Region,
    Sidebar,
    changed,
    flatten,
    presence_region,
    review_panel_region,
    shown_field,
    sidebar_regions,
    wizard_chart,
    wizard_regions,
)
from proposals.wizard.saving import Saved
from proposals.wizard.stale import Stale, gone_now, show_stored
from proposals.wizard.steps import (
    STEPS,
    neighbours,
    show_read_only,
    stored_forms,
    table_columns,
)

EMPTY = MappingProxyType({})


class UnknownPart(Exception):
    """A template (or code) asked the page for a part it does not have. Not an
    ``AttributeError``, which Django's templates would render as nothing."""

    silent_variable_failure = False


class Person(NamedTuple):
    """Who reads the page: whether their role lets them edit, and who else on the
    team has the proposal open (``selectors.Seen`` each). Whether they may send it
    for review is the review box's region's own input."""

    can_edit: bool
    others: tuple = ()


def person_of(proposal, step, user) -> Person:
    """Who reads the page: whether ``user`` may edit, and who else on the team has
    the proposal open (``selectors.Seen``), noting that ``user`` has ``step`` open;
    nothing is read or written for a proposal without a team (``has_team``, read
    with the proposal)."""
    can_edit = selectors.member_may(proposal, Capability.EDIT)
    has_team = getattr(proposal, "has_team", None)
    if has_team is None:  # read by another selector
        has_team = proposal.memberships.exists()
    if not has_team:
        return Person(can_edit=can_edit)
    seen = selectors.presence_of(proposal=proposal)
    services.presence_note(proposal=proposal, user=user, step=step.slug, seen=seen)
    return Person(can_edit, selectors.present_others(seen, user=user))


class Page:
    """One step of the wizard for one person, as its templates read it."""

    # The vocabulary the step templates read: the steps, the tables, their columns.
    steps = STEPS
    table_kinds = TABLE_KINDS
    tables = TABLE_BY_KIND

    # What the answer to a POST says (:meth:`answer`); nothing on a GET.
    saved = False
    conflicts: tuple | list = ()
    conflict_notes = EMPTY
    posted_bases_json = ""
    row_changed = row_gone = None
    restore_refused = False
    row_full = None
    # What the view adds to the page it answers with.
    focus = ""  # the row a row operation added: focused on load
    focus_heading = False  # moved here from another step
    comments_by_step = None  # the staff comments waiting, by step
    refresh_json = ""  # an autosave: other tabs' newer values
    bases_update_json = ""  # an autosave: the bases of the inputs it sent
    # The key of each row's values region the page shows (by the row's prefix):
    # from its inputs' bases (:func:`finish`), or for an autosave what the page
    # posted, with the rows it sent and those stored otherwise updated.
    row_values = EMPTY

    def __init__(self, proposal, step, forms, person: Person):
        self.proposal = proposal
        self.step = step
        self.forms = forms  # wizard.StepForms
        self.person = person
        self.previous_step, self.next_step = neighbours(step.slug)
        # The removed rows a save found typed into (``None``: no save here).
        self.gone_typed: set | None = None

    def answer(self, **parts) -> "Page":
        """Add what a save did (``Saved.context()``) or a question to the page; a
        name the page does not declare is an error."""
        for name, value in parts.items():
            if name != "gone_typed" and not hasattr(type(self), name):
                raise UnknownPart(f"The page has no part {name!r} to answer with.")
            setattr(self, name, value)
        return self

    def __getattr__(self, name):
        # Only called for a name the page does not have, or for a part whose
        # computation raised AttributeError: that one is raised again as it is.
        if name.startswith("__"):  # copy, pickle and the like ask for these
            raise AttributeError(name)
        if hasattr(type(self), name):
            return getattr(type(self), name).__get__(self, type(self))
        raise UnknownPart(f"The wizard page has no part {name!r}.")

    # --- The person -------------------------------------------------------------

    @property
    def can_edit(self) -> bool:
        """Whether the page shows the controls that change the proposal: none to a
        viewer (the inputs read-only, no autosave, row or paste buttons)."""
        return self.person.can_edit

    # --- The step and its forms -------------------------------------------------

    @cached_property
    def columns(self) -> dict:
        """Each table's columns, by kind (in the request's language)."""
        return {kind: table_columns(kind) for kind in TABLE_KINDS}

    @cached_property
    def units(self) -> dict:
        """Each field's unit by field key (the unit beside an input), in the
        request's language."""
        return {key: spec.unit for key, spec in FIELD_BY_KEY.items() if spec.unit}

    @cached_property
    def post_url(self) -> str:
        return reverse("proposals:step", args=[self.proposal.pk, self.step.slug])

    @property
    def gpu_unit(self) -> str:
        return self.forms.gpu_unit

    @cached_property
    def gpu_unit_label(self) -> str:
        return gpu_unit_label(self.forms.gpu_unit)

    @cached_property
    def status_label(self) -> str:
        """The proposal's review status as the page writes it (the badge beside the
        title and the review box): translated once per request."""
        return self.proposal.status_label

    @cached_property
    def slurm_devices_per_node(self):
        system = self.proposal.system
        return system.gpus_per_node * system.gcds_per_gpu if system else None

    @cached_property
    def bases_json(self) -> str:
        """What each input shows, as the page's bases (a JSON object)."""
        return json.dumps(field_bases(self.forms))

    @cached_property
    def field_stamps(self):
        """Who changed each field last (the history link beside its label)."""
        return selectors.StampsOnDemand(self.proposal)

    # --- One evaluation and what the step shows of it ---------------------------

    @cached_property
    def evaluation(self) -> Evaluation:
        return Evaluation.of(self.proposal)

    @property
    def assessment(self):
        return self.evaluation.assessment

    @property
    def tier_label(self):
        return self.assessment.mode_label

    @cached_property
    def findings(self):
        """The findings located in the wizard (``live.Findings``): ``items``,
        ``by_step``, ``by_anchor``, ``counts_by_step``, ``counts``."""
        return wizard_findings(self.evaluation, self.step.slug)

    @cached_property
    def figures(self) -> tuple[dict, dict]:
        """Each job row's figures and each measurement's point, by the row's id."""
        return row_figures(self.evaluation)

    @property
    def job_figures(self) -> dict:
        return self.figures[0]

    @property
    def point_figures(self) -> dict:
        return self.figures[1]

    @property
    def jobs_total(self) -> Region:
        """The job plan's total under its table (a region of the step's forms)."""
        return jobs_total_region(self.assessment.plan.total_gpu_hours)

    @property
    def schedule_total(self) -> Region:
        return schedule_total_region(self.assessment.schedule.total_gpu_hours)

    @cached_property
    def help(self):
        """Tier-fitted help (``text``) and ``examples`` by field key."""
        return help_of(self.evaluation, self.proposal)

    @cached_property
    def terms(self):
        """The terms of the request's mode (``None``: not known yet)."""
        terms = self.evaluation.reference.terms
        return mode_terms(terms, self.proposal, self.assessment)

    @cached_property
    def refused(self):
        """What was typed and not saved (``live.Refused``)."""
        return refused_inputs(self.proposal, self.evaluation.rows, self.step.slug)

    @property
    def cluster(self):
        return self.proposal.system

    @cached_property
    def max_gpus_nodes(self):
        # duck-typed: the model has the same gpus_per_node as the domain's Cluster
        return nodes_for(self.proposal.max_gpus_per_job or 0, self.proposal.system)

    @cached_property
    def gone_now(self) -> list:
        """The rows removed elsewhere that this request found typed into."""
        return gone_now(self.refused.gone_rows, self.gone_typed)

    # --- The applicant's path ---------------------------------------------------

    @cached_property
    def progress(self):
        """Progress from the badges' counts."""
        return wizard_progress(
            self.findings.counts_by_step,
            self.refused.refused_by_step,
            self.proposal.visited_steps,
        )

    @cached_property
    def plan_folded(self) -> bool:
        """What the tier does not ask for (Playground: job plan, measurements)."""
        return plan_folded(self.terms, self.proposal)

    @cached_property
    def plan_optional(self) -> bool:
        return plan_optional(self.terms)

    # --- The live regions -------------------------------------------------------

    @cached_property
    def chart(self) -> tuple[str, str]:
        """``(url, key)`` of the chart's image (``""``: no chart)."""
        return wizard_chart(self.evaluation, self.proposal.pk)

    @cached_property
    def parts(self) -> dict:
        """The parts every autosave's answer sends again (:mod:`.parts`)."""
        return page_parts(self)

    @cached_property
    def regions(self) -> dict:
        """The page's live regions by name: the sidebar's, the step badges, the
        progress, who else has the proposal open."""
        findings = tuple(
            {key: item[key] for key in ("finding", "step", "anchor", "css")}
            for item in self.findings.items
        )
        refused = self.refused
        sidebar = Sidebar(
            findings=findings,
            finding_counts=self.findings.counts,
            refused_labels=tuple(refused.refused_labels),
            plan_folded=self.plan_folded,
            chart_url=self.chart[0],
            can_edit=self.can_edit,
            step=self.step.slug,
        )
        evaluation = self.evaluation
        return {
            **sidebar_regions(
                evaluation, self.proposal.pk, sidebar, evaluation.calendar
            ),
            **wizard_regions(
                STEPS,
                self.progress,
                self.findings.counts_by_step,
                refused.refused_by_step,
            ),
            "presence": presence_region(self.person.others, STEPS, self.step.slug),
            "review_panel": review_panel_region(self.proposal, self.status_label),
        }

    @cached_property
    def all_regions(self) -> list:
        return flatten(self.regions)

    @cached_property
    def changed_regions(self) -> list:
        """The regions the answer renders: all of them, but for an autosave's."""
        return self.all_regions

    @cached_property
    def field_findings_regions(self) -> list:
        """The findings under the fields, one region per form of the step (its
        own, and every row, sent or not): the page keeps their keys too, so an
        autosave re-sends the forms whose findings changed, emptied ones too."""
        return field_findings_regions(
            self.findings.by_anchor, self.step, self.evaluation.rows
        )

    @cached_property
    def feedback_regions(self) -> list:
        """The feedback under the step's own fields, one keyed region."""
        return step_feedback_regions(feedback_values(self), self.forms.main)

    @cached_property
    def row_regions(self) -> list:
        """The figures of the step's rows and its tables' totals, keyed."""
        return row_regions(
            self.evaluation, self.figures, self.refused.refused_rows, self.step.tables
        )

    @property
    def keyed_regions(self) -> list:
        """Every region the page lists in ``regions``, the rows' values aside."""
        return (
            self.all_regions
            + self.field_findings_regions
            + self.feedback_regions
            + self.row_regions
        )

    @cached_property
    def regions_shown(self) -> str:
        """The page's ``regions`` input: the key of every region it shows, the
        values of its rows included (the one list of keys the page posts)."""
        shown = shown_field(self.keyed_regions)
        rows = " ".join(f"{name}:{key}" for name, key in self.row_values.items())
        return f"{shown} {rows}" if rows else shown


# --- The pages a request answers with ---------------------------------------


def step_page(proposal, step, user, number_format: NumberFormat) -> Page:
    """The step as stored, for ``user``; a viewer's inputs take no typing."""
    step_forms = stored_forms(proposal, step, number_format)
    person = person_of(proposal, step, user)
    if not person.can_edit:
        show_read_only(step_forms)
    return Page(proposal, step, step_forms, person)


def posted_page(proposal, step, saved: Saved, stale: Stale) -> Page:
    """The page again, as posted, but with another tab's newer values in the inputs
    this page did not change (and those values as their bases)."""
    show_stored(saved.step_forms, saved.bases, stale)
    person = person_of(proposal, step, saved.user)
    page = Page(proposal, step, saved.step_forms, person).answer(**saved.context())
    page.focus_heading = True  # not <body>: the step and its messages
    return page


def autosave_page(proposal, step, saved: Saved, stale: Stale, shown) -> Page:
    """The autosave's answer, out of band: the save's status and what it could not
    do, the inputs' feedback and the rows' figures, and the live regions whose key
    the page does not show yet (``shown``: the keys the page posted)."""
    person = person_of(proposal, step, saved.user)
    page = Page(proposal, step, saved.step_forms, person).answer(**saved.context())
    # The page puts a newer value in an input only where the person has not
    # typed since (static/js/app.js), and then takes its base too: an input
    # being typed in keeps its old base, so its save shows the conflict.
    page.refresh_json = json.dumps({"inputs": stale.inputs, "removed": stale.removed})
    # What the page merges into its bases: those of the inputs it sent, as saved
    # (not every input's: the page keeps the others).
    page.bases_update_json = json.dumps(saved.bases)
    # The rows' values it shows now: as it posted them, but for the rows it sent
    # (as saved) and those sent again whole (as stored).
    prefixes = {m.group(1) for key in saved.bases if (m := ROW_PREFIX.match(key))}
    sent = {r.name: r.key for r in shown_row_values(sorted(prefixes), saved.bases)}
    posted = shown_row_keys(shown)
    page.row_values = {**posted, **stale.keys, **sent}
    if posted:
        # Only the rows the page shows (a row added in another tab is not: an
        # out-of-band fragment without its target is an error in the browser).
        # A POST with no row's key (a page loaded before rows' values were
        # regions, a client that posts no keys) gets every row's, as before.
        rows = page.row_values
        page.row_regions = of_rows(page.row_regions, rows)
        page.field_findings_regions = of_rows(page.field_findings_regions, rows)
    # Every region whose key the page does not show yet.
    page.changed_regions = changed(page.keyed_regions, shown)
    return page


def fresh_page(proposal, step, saved: Saved) -> Page:
    """After a row operation (or a change of system): the step's forms afresh, with
    what was typed and refused, the conflicts of this request, and what the row
    operation could not do (a row changed or removed elsewhere)."""
    fresh = stored_forms(proposal, step, saved.fmt)
    # The inputs show what is stored: so do their bases, but for the conflicting
    # inputs, whose base stays what this page had shown ("Keep mine").
    bases = field_bases(fresh)
    bases.update(
        {key: value for key, value in saved.bases.items() if key in saved.conflicted}
    )
    person = person_of(proposal, step, saved.user)
    page = Page(proposal, step, fresh, person).answer(**saved.context())
    page.posted_bases_json = json.dumps(bases)
    kind = saved.row_op[1] if saved.row_op else ""
    page.focus = f"{kind}-{saved.new_row.pk}" if saved.new_row else ""
    return page


def question_page(proposal, step, user, number_format, **question) -> Page:
    """The step afresh from what is stored (its inputs' bases too), as after a row
    operation, with a ``question`` above it."""
    fresh = stored_forms(proposal, step, number_format)
    person = person_of(proposal, step, user)
    page = Page(proposal, step, fresh, person).answer(saved=True, **question)
    page.posted_bases_json = json.dumps(field_bases(fresh))
    return page


def finish(page: Page, kind: str) -> Page:
    """What every answer but an autosave's carries: the key of each row's values
    the step's form shows (from the bases its inputs show); and the data the
    chart's URL stands for, noted so that the image view draws it without
    assessing again."""
    if kind != "autosave":
        bases = json.loads(page.posted_bases_json or page.bases_json)
        anchors = [e.anchor for entries in page.forms.tables.values() for e in entries]
        page.row_values = {r.name: r.key for r in shown_row_values(anchors, bases)}
    if kind != "autosave" or page.regions["chart"] in page.changed_regions:
        url, key = page.chart
        if url:
            charts.remember(page.proposal.pk, key, page.evaluation.chart_data)
    return page
