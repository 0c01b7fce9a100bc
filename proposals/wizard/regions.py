"""The live parts of a page as objects: a region is a name (the id of the element it
replaces), a template, and the frozen inputs that template reads, computed from one
evaluation of the request (:mod:`proposals.evaluation`).

The template receives the inputs and nothing else, and a region's ``key`` is derived
from them (with the number format and language they are written in), so the
fingerprint an autosave compares cannot drift from what the page shows: an autosave
renders, out of band, exactly the regions whose key the page does not show yet
(:func:`changed`), and tells the page the keys it now shows (:func:`shown_field`).
Regions are the page's only freshness mechanism: the live parts of the step's forms
(each row's values and figures, the findings under the fields) are regions too
(:mod:`proposals.wizard.form_regions`), in the same one list of keys.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from functools import cached_property

from django.urls import reverse
from django.utils import translation

from proposals import charts, selectors
from proposals.domain import numbers, workflow
from proposals.domain.team import Capability
from proposals.domain.tiers import tier_label
from proposals.services.revisions import canonical

#: The Jinja2 macros of the live regions (``proposals/jinja2/proposals/live/``).
SIDEBAR = "proposals/live/sidebar.html"
WIZARD = "proposals/live/wizard.html"
KEY_LENGTH = 12


@dataclass(frozen=True)
class Region:
    """One live part of a page: ``name`` is its element's id (or, for the
    findings under a form's fields, the form's: ``ff-jobs-17``)."""

    name: str
    template: str
    inputs: object  # a frozen dataclass
    #: Whether its rendering may be kept in the cache under :attr:`key` (its
    #: template reads its inputs and nothing else: no clock, no request).
    cached: bool = False

    @cached_property
    def key(self) -> str:
        """A short fingerprint of what the region shows: its template, its inputs
        and the number format and language they are written in (those of the
        request: a region lives for one request)."""
        return region_key(self.template, self.inputs, written_in())

    def context(self) -> dict:
        """The template's context: the inputs, by name."""
        return {f.name: getattr(self.inputs, f.name) for f in fields(self.inputs)}


def written_in() -> tuple[str, str | None]:
    """The number format and language the request's regions are written in."""
    return numbers.active_format().name, translation.get_language()


def region_key(template: str, inputs, written: tuple) -> str:
    """:attr:`Region.key` of a region of ``template`` with ``inputs``, ``written``
    in a number format and language (:func:`written_in`)."""
    text = repr((template, inputs, written))
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def keyed(regions) -> list[Region]:
    """``regions``, each with its key worked out, the format and the language read
    once for them all (an autosave compares some thirty keys)."""
    regions = list(regions)
    written = written_in()
    for region in regions:
        if "key" not in region.__dict__:  # not yet worked out (cached_property)
            region.__dict__["key"] = region_key(region.template, region.inputs, written)
    return regions


def shown_field(regions) -> str:
    """What the page's ``regions`` input holds: ``name:key`` of each region shown."""
    return " ".join(f"{region.name}:{region.key}" for region in keyed(regions))


def parse_shown(text: str | None) -> dict[str, str]:
    """The keys a page says it shows, by region name (nothing for anything else)."""
    pairs = (item.partition(":") for item in (text or "").split())
    return {name: key for name, _, key in pairs if name and key}


def changed(regions, shown: str | None) -> list[Region]:
    """The ``regions`` whose key differs from the one the page ``shown``."""
    seen = parse_shown(shown)
    return [region for region in keyed(regions) if seen.get(region.name) != region.key]


# --- The inputs of each region ------------------------------------------------------


@dataclass(frozen=True)
class ProposalRef:
    """What a region needs of the proposal itself: its address."""

    pk: int


@dataclass(frozen=True)
class TierInputs:
    tier: str | None
    tier_label: str
    recommended_tier: str | None
    recommended_label: str
    reasons: tuple
    refused_labels: tuple


@dataclass(frozen=True)
class TotalsInputs:
    requested_gpu_hours: float | None
    billing: object
    plan_total: float
    plan_has_rows: bool
    largest_job_gpus: int | None
    largest_job_nodes: int | None
    schedule_total: float
    schedule_has_rows: bool
    #: The request and the job plan in the call's unit (node-hours), if not GPU-hours.
    call_request: object = None


@dataclass(frozen=True)
class FindingsInputs:
    findings: tuple  # items: finding, step, anchor, css (see ``live``)
    finding_counts: dict
    staff_view: bool
    proposal: ProposalRef
    #: The total GPU-hours as stored (``canonical``): the base of SCAL-3's action.
    request_base: str = ""
    #: The page's step, where SCAL-3's action comes back to (none on the staff's).
    step: str = ""


def finding_links(findings, staff_view, proposal_pk, request_base, step):
    """The live findings list's items (``live/sidebar.html#findings``, a global of
    the Jinja2 environment; written by ``rows/finding_items.html``): ``(item, href,
    action)`` each. The list grows with the proposal's rows, so each item's link to
    its step is one ``reverse()`` per step, not one per finding."""
    urls: dict = {}
    items = []
    for item in findings or ():
        where = item["step"]
        if staff_view:
            href = f"#section-{where}-h"
        else:
            if where not in urls:
                urls[where] = reverse("proposals:step", args=[proposal_pk, where])
            href = f"{urls[where]}#{item['anchor']}"
        action = None
        if not staff_view:
            action = _finding_action(item, proposal_pk, request_base, step)
        items.append((item, href, action))
    return items


#: Findings with an action beside them: the code, the URL's name.
_FINDING_ACTIONS = {"SCAL-3": "proposals:use_plan_total"}


def _finding_action(item, proposal_pk, request_base, step) -> dict | None:
    """The form of a finding's action (SCAL-3: "use the job plan's total"), posted
    with the stored value it replaces (``request_base``, the region's input) and
    the page's ``step`` to come back to; none to a viewer (no ``request_base``)."""
    name = _FINDING_ACTIONS.get(item["finding"].code)
    if name is None or not request_base:
        return None
    return {
        "url": reverse(name, args=[proposal_pk]),
        "base": request_base,
        "step": step or item["step"],
    }


@dataclass(frozen=True)
class ChartInputs:
    chart_url: str
    chart_svg: str
    scaling_points: tuple
    projection: object
    plan_folded: bool
    tier_label: str


@dataclass(frozen=True)
class ComputeInputs:
    compute_estimate: object
    mfu_check: tuple
    staff_view: bool
    proposal: ProposalRef


@dataclass(frozen=True)
class EnergyInputs:
    energy: object


@dataclass(frozen=True)
class CalendarInputs:
    calendar: object


@dataclass(frozen=True)
class BarInputs:
    tier: str | None
    tier_label: str
    requested_gpu_hours: float | None
    finding_counts: dict


@dataclass(frozen=True)
class Sidebar:
    """What the sidebar shows beyond the assessment: the findings as this page
    places them, what was typed and not saved, and how the chart is shown."""

    findings: tuple
    finding_counts: dict
    refused_labels: tuple = ()
    staff_view: bool = False
    plan_folded: bool = False
    chart_url: str = ""
    chart_svg: str = ""
    #: Whether the reader may change the proposal (a viewer may not): the findings'
    #: actions are offered only then.
    can_edit: bool = True
    #: The wizard's step the page shows (``""`` on the staff's page).
    step: str = ""


def _request_base(evaluation) -> str:
    """The stored total GPU-hours as an autosave's base reads them (the model's
    Decimal, not the engine's float), for SCAL-3's "use the job plan's total"."""
    model = evaluation.model
    return canonical(model.total_gpu_hours) if model is not None else ""


def sidebar_regions(evaluation, proposal_pk: int, sidebar: Sidebar, calendar) -> dict:
    """The sidebar's regions (and the small screens' bar) of one evaluation, with
    the request's ``calendar``."""
    a = evaluation.assessment
    ref = ProposalRef(proposal_pk)
    parts = {
        "tier": ("live-tier", f"{SIDEBAR}#tier", _tier(a, sidebar)),
        "totals": ("live-totals", f"{SIDEBAR}#totals", _totals(a)),
        "findings": (
            "live-findings",
            f"{SIDEBAR}#findings",
            FindingsInputs(
                sidebar.findings,
                sidebar.finding_counts,
                sidebar.staff_view,
                ref,
                _request_base(evaluation) if sidebar.can_edit else "",
                sidebar.step,
            ),
        ),
        "chart": ("live-chart", f"{SIDEBAR}#chart", _chart(a, sidebar)),
        "compute": (
            "live-compute",
            f"{SIDEBAR}#compute",
            ComputeInputs(a.compute_estimate, a.mfu_check, sidebar.staff_view, ref),
        ),
        "energy": ("live-energy", f"{SIDEBAR}#energy", EnergyInputs(a.energy)),
        "calendar": (
            "live-calendar",
            f"{SIDEBAR}#calendar",
            CalendarInputs(calendar),
        ),
        "bar": (
            "live-bar",
            "proposals/live/bar.html#live_bar",
            BarInputs(
                a.tier, a.mode_label, a.requested_gpu_hours, sidebar.finding_counts
            ),
        ),
    }
    return {key: Region(*part, cached=True) for key, part in parts.items()}


def _tier(a, sidebar: Sidebar) -> TierInputs:
    return TierInputs(
        a.tier,
        a.mode_label,
        a.recommended_tier,
        tier_label(a.recommended_tier),
        tuple(a.reasons),
        tuple(sidebar.refused_labels),
    )


def _totals(a) -> TotalsInputs:
    plan, schedule = a.plan, a.schedule
    return TotalsInputs(
        a.requested_gpu_hours,
        a.billing,
        plan.total_gpu_hours,
        bool(plan.rows),
        plan.largest_job_gpus,
        plan.largest_job_nodes,
        schedule.total_gpu_hours,
        bool(schedule.rows),
        a.call_request,
    )


def _chart(a, sidebar: Sidebar) -> ChartInputs:
    return ChartInputs(
        sidebar.chart_url,
        sidebar.chart_svg,
        a.scaling_points,
        a.projection,
        sidebar.plan_folded,
        a.mode_label,
    )


def wizard_chart(evaluation, proposal_pk: int) -> tuple[str, str]:
    """The wizard's chart: ``(url, key)`` of the image of its data (``""`` and
    ``"none"`` without measurements); the chart is not drawn here."""
    data = evaluation.chart_data
    if not data:
        return "", "none"
    key = charts.url_key(data)
    return reverse("proposals:chart", args=[proposal_pk, key]), key


@dataclass(frozen=True)
class BadgesInputs:
    slug: str
    state: object  # StepProgress, or None for a step with nothing to fill in
    refused: int
    counts: dict


@dataclass(frozen=True)
class ProgressInputs:
    progress: object


def wizard_regions(steps, progress, counts_by_step, refused_by_step) -> dict:
    """The step badges (one region per step) and the progress summary."""
    by_step = progress.by_step
    return {
        "badges": {
            step.slug: Region(
                f"badges-{step.slug}",
                f"{WIZARD}#step_badges",
                BadgesInputs(
                    step.slug,
                    by_step.get(step.slug),
                    refused_by_step.get(step.slug, 0),
                    counts_by_step.get(step.slug, {}),
                ),
            )
            for step in steps
        },
        "progress": Region(
            "wizard-progress",
            f"{WIZARD}#progress_summary",
            ProgressInputs(progress),
        ),
    }


@dataclass(frozen=True)
class PresenceInputs:
    """The other members who have the proposal open: ``(name, step slug, step
    title, this step)`` each, by name (no time: the region changes when
    somebody comes, goes or moves to another step, not at every autosave)."""

    others: tuple


PRESENCE = f"{WIZARD}#presence"


def presence_region(others, steps, step: str) -> Region:
    """Who else has the proposal open (``others``: ``selectors.Seen``), and on
    which of ``steps``; an empty region when nobody."""
    # The steps' titles only when somebody is there (translated: not for nothing).
    titles = {item.slug: item.title for item in steps} if others else {}
    return Region(
        "live-presence",
        PRESENCE,
        PresenceInputs(
            tuple(
                (
                    seen.name,
                    seen.step,
                    str(titles.get(seen.step, "")),
                    seen.step == step,
                )
                for seen in others
            )
        ),
    )


@dataclass(frozen=True)
class ReviewPanelInputs:
    """The wizard's review box: the proposal's review status (an autosave that
    withdraws "ready to submit" changes it) and whether the reader may send it
    now (their role allows it and the workflow lets the applicant send from it)."""

    pk: int
    status: str
    status_label: str
    can_send: bool


REVIEW_PANEL = f"{WIZARD}#review_panel"


def review_panel_region(proposal, status_label: str) -> Region:
    """The review status box of the wizard, for the reader of ``proposal``."""
    sendable = workflow.SUBMITTED in workflow.allowed_targets(
        proposal.status, workflow.APPLICANT
    )
    return Region(
        "review-panel",
        REVIEW_PANEL,
        ReviewPanelInputs(
            proposal.pk,
            proposal.status,
            status_label,
            sendable and selectors.member_may(proposal, Capability.SEND),
        ),
    )


def flatten(regions: dict) -> list[Region]:
    """Every region of a ``{name: Region or {name: Region}}`` mapping, in order."""
    flat = []
    for value in regions.values():
        flat.extend(value.values() if isinstance(value, dict) else [value])
    return flat
