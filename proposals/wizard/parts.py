"""The page's parts an autosave's answer sends again every time, out of band: the
status badge, the "ready" notice, the inputs the page keeps (every input's base,
the keys of the regions it shows, the revision), the save's status and the
conflict banner.

Each is a region (:class:`~proposals.wizard.regions.Region`) like the sidebar's: a
Jinja2 macro of ``proposals/live/parts.html`` with its inputs, placed in the page
by ``region()``. Unlike the sidebar's they are sent whether their key changed
or not, as they say what this save did (the page's script has written "Saving…"
into the save's status meanwhile). Python decides what they show (the save's
state, the counts); the macros only write it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from proposals.wizard.regions import Region

PARTS = "proposals/live/parts.html"
# Each part's element id (the revision's part is several inputs: the first's).
ELEMENT = {
    "status_badge": "wizard-status",
    "ready_notice": "ready-notice",
    "revision_field": "bases-field",
    "save_status": "save-status",
    "conflict_banner": "conflict-banner",
}


@dataclass(frozen=True)
class StatusInputs:
    status_label: str


@dataclass(frozen=True)
class ReadyInputs:
    editing: bool  # a viewer is told nothing: they change nothing
    status: str
    send_url: str


@dataclass(frozen=True)
class RevisionInputs:
    bases: str  # every input's base (JSON), as the page shows them
    bases_update: str  # an autosave: the bases of the inputs it saved (JSON)
    regions: str  # the key of every region the page shows
    revision: int
    refresh: str  # an autosave: another tab's newer values (JSON)


@dataclass(frozen=True)
class SaveStatusInputs:
    state: str  # what the page's script reads (:func:`save_state`)
    conflicts: int
    gone: int  # rows edited here and removed elsewhere, that this save found typed
    gone_item: str  # the one such row's kind ("job type"), when there is one
    restore_refused: bool
    row_changed: bool
    refused_here: int
    saved: bool


@dataclass(frozen=True)
class ConflictInputs:
    conflicts: tuple
    row_changed: object
    gone_rows: tuple
    restore_refused: bool
    row_gone: object
    post_url: str


def save_state(page) -> str:
    """``conflict``, ``refused``, ``question`` (a row changed elsewhere was not
    removed), ``saved`` or ``idle``: the save's status as the page's script and
    styles read it, the first that applies."""
    if page.conflicts:
        return "conflict"
    if page.gone_now or page.restore_refused:
        return "refused"
    if page.row_changed:
        return "question"
    if page.refused.refused_here:
        return "refused"
    return "saved" if page.saved else "idle"


def page_parts(page) -> dict[str, Region]:
    """The parts of ``page`` (a :class:`~proposals.wizard.page.Page`), by name."""
    proposal, gone = page.proposal, page.gone_now
    send_url = reverse("proposals:review_send", args=[proposal.pk])
    parts = {
        "status_badge": StatusInputs(page.status_label),
        "ready_notice": ReadyInputs(page.can_edit, proposal.status, send_url),
        "revision_field": RevisionInputs(
            page.posted_bases_json or page.bases_json,
            page.bases_update_json,
            page.regions_shown,
            proposal.revision,
            page.refresh_json or "",
        ),
        "save_status": SaveStatusInputs(
            save_state(page),
            len(page.conflicts),
            len(gone),
            str(gone[0]["item"]).lower() if len(gone) == 1 else "",
            bool(page.restore_refused),
            bool(page.row_changed),
            page.refused.refused_here,
            bool(page.saved),
        ),
        "conflict_banner": ConflictInputs(
            tuple(page.conflicts),
            page.row_changed,
            tuple(page.refused.gone_rows),
            bool(page.restore_refused),
            page.row_gone,
            page.post_url,
        ),
    }
    return {
        name: Region(ELEMENT[name], f"{PARTS}#{name}", inputs)
        for name, inputs in parts.items()
    }
