"""The wizard: one URL per step, a real form on each, live recompute through htmx.

A step's POST carries the whole step form (autosave: the step's own fields and the
rows typed in) plus, per input, the stored value the page showed (``bases``), so a
save changes only what this page changed: two tabs editing different fields both
keep their work, and the same field changed in both is a conflict the person
settles. What a POST asks for is said by named buttons, one meaning each:

- ``autosave`` (sent by htmx as the person types): save, answer with fragments;
- ``save`` or ``goto=<step>`` (plain submit buttons): save, then show a step;
- ``keep=<input>`` (in the conflict banner): save this page's value of that input;
- row operations have their own small endpoint (:func:`row_operation`), so their
  buttons use ``formaction`` and work without JavaScript too.

:func:`_answer` is the one place that decides which template or fragment answers.
Inputs are never swapped while someone types: autosave answers with out-of-band
fragments only (save status, errors and notes under fields, computed regions).
"""

import json
from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from aifactory import metrics
from proposals import charts, localization, selectors, services
from proposals.domain.sections import ROW_PREFIX
from proposals.domain.team import Capability
from proposals.table_rows import rows_of
from proposals.views import member_proposal, refuse_role
from proposals.views.accounts import browser_languages, number_format
from proposals.wizard.page import Page, Person
from proposals.wizard.progress import navigated_here
from proposals.wizard.regions import changed, changed_field_findings, row_regions
from proposals.wizard.saving import (
    gpu_unit_of,
    posted_bases,
    posted_row_keys,
    save_step,
)
from proposals.wizard.stale import Stale, show_stored, stale_inputs
from proposals.wizard.steps import (
    STEP_BY_SLUG,
    STEPS,
    build_step_forms,
    field_bases,
    show_read_only,
    shown_row_key,
)

TEMPLATE = "proposals/wizard.html"
STEP_SLUGS = [step.slug for step in STEPS]
ROW_OPERATIONS = services.ROW_OPERATIONS
# The fragments of ``wizard.html`` that answer htmx requests, by kind of answer.
FRAGMENTS = {
    "autosave": "autosave_response",  # status, feedback, computed regions (oob)
    "rows": "row_op_response",  # the whole form again, plus the sidebar (oob)
}


def _editable(request, pk, *, lock=False, may=Capability.EDIT):
    """Proposal ``pk`` of the request user's team in two queries (with their number
    format, read once per request), or a 404 off the team and a 403 for a role that
    does not allow ``may`` (a viewer saving); ``lock``: see the selector."""
    proposal = selectors.proposal_get_for_editing(user=request.user, pk=pk, lock=lock)
    if proposal is None:
        raise Http404("No such proposal.")
    if not selectors.member_may(proposal, may):
        refuse_role(may)
    request._number_format = selectors.number_format_of(
        proposal, languages=browser_languages(request)
    )
    request._time_zone = localization.zone_named(
        getattr(proposal, "owner_time_zone", None)
    )
    return proposal


def _step_or_404(slug: str):
    try:
        return STEP_BY_SLUG[slug]
    except KeyError:
        raise Http404("No such step.") from None


def _stored_forms(request, proposal, step):
    """The step's forms showing what is stored, in the person's number format."""
    return build_step_forms(
        step,
        proposal,
        gpu_unit=gpu_unit_of(proposal),
        number_format=number_format(request),
    )


def _page(request, proposal, step, step_forms, **answer) -> Page:
    """The page shared by the full step and its fragments: the step, its forms and
    the person reading it, with what the page shows of one evaluation of the
    proposal computed when first read (:class:`proposals.page.Page`)."""
    person = Person(
        can_edit=selectors.member_may(proposal, Capability.EDIT),
        others=_present_others(request, proposal, step),
    )
    return Page(proposal, step, step_forms, person).answer(**answer)


def _present_others(request, proposal, step) -> tuple:
    """Note that the person has ``step`` open, and who else on the team has the
    proposal open (``selectors.Seen``): nothing is read or written for a proposal
    without a team (``has_team``, read with the proposal)."""
    has_team = getattr(proposal, "has_team", None)
    if has_team is None:  # read by another selector (after a row operation)
        has_team = proposal.memberships.exists()
    if not has_team:
        return ()
    seen = selectors.presence_of(proposal=proposal)
    services.presence_note(
        proposal=proposal, user=request.user, step=step.slug, seen=seen
    )
    return selectors.present_others(seen, user=request.user)


def _remember_chart(page: Page) -> None:
    """Note which data the page's chart URL stands for, so that the image view
    draws it without assessing the proposal again."""
    url, key = page.chart
    if url:
        charts.remember(page.proposal.pk, key, page.evaluation.chart_data)


def _keys_field(keys: dict) -> str:
    return " ".join(f"{prefix}:{key}" for prefix, key in keys.items())


def _row_keys_shown(page: Page) -> str:
    """The fingerprint of each row the step's form shows, from the bases the page
    is given (what its inputs show)."""
    bases = json.loads(page.posted_bases_json or page.bases_json)
    return _keys_field(
        {
            entry.anchor: shown_row_key(entry.anchor, bases)
            for entries in page.forms.tables.values()
            for entry in entries
        }
    )


def _answer(request, kind: str, page: Page, *, status=200):
    """The one place that decides what answers: ``page`` (the full step), or for
    htmx ``autosave`` / ``rows`` fragments (``FRAGMENTS``). The templates read
    ``page`` and nothing else of the view's."""
    if kind != "autosave":
        page.row_keys_shown = _row_keys_shown(page)
    if kind != "autosave" or page.regions["chart"] in page.changed_regions:
        _remember_chart(page)
    context = {"page": page}
    if kind == "page" or not request.htmx:
        return TemplateResponse(request, TEMPLATE, context, status=status)
    response = TemplateResponse(
        request, f"{TEMPLATE}#{FRAGMENTS[kind]}", context, status=status
    )
    if kind == "rows" and request.POST.get("autosave"):
        # An autosave whose answer is the whole form (the system changed what the
        # inputs mean): its own swap is "none", so point it at the form.
        response.headers["HX-Retarget"] = "#wizard-form"
        response.headers["HX-Reswap"] = "outerHTML"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def wizard(request, pk, step):
    """One step of the wizard: GET shows it, POST saves it."""
    step = _step_or_404(step)
    if request.method == "POST":
        autosave = bool(request.htmx) and bool(request.POST.get("autosave"))
        if autosave:
            metrics.time_as_autosave(request)  # /metrics' autosave latency
        with transaction.atomic():
            # Read locked (one writer per proposal): the save compares the page's
            # bases with what was read here and writes in the same transaction.
            proposal = _editable(request, pk, lock=True)
            read_revision = proposal.revision
            # Edited: the step's open items are shown as what they are from now on.
            services.proposal_mark_visited(proposal=proposal, step=step.slug)
            system_before = proposal.system_id
            saved = save_step(
                request, proposal, step, posted_rows_only=autosave, locked=True
            )
        # Assessed and rendered after the commit, without the lock.
        return _step_post(
            request, proposal, step, saved, system_before, autosave, read_revision
        )
    proposal = _editable(request, pk, may=Capability.READ)
    left = request.GET.get("from")
    editor = selectors.member_may(proposal, Capability.EDIT)
    if editor and left in STEP_BY_SLUG and left != step.slug:
        # The step tabs say which step was left (so it was seen).
        services.proposal_mark_visited(proposal=proposal, step=left)
    step_forms = _stored_forms(request, proposal, step)
    if not editor:  # a viewer reads the step: inputs that take no typing
        show_read_only(step_forms)
    page = _page(request, proposal, step, step_forms)
    # Moved here from another step: focus goes to this step's heading (focus.js).
    page.focus_heading = navigated_here(
        left,
        urlsplit(request.headers.get("Referer", "")).path,
        [reverse("proposals:step", args=[proposal.pk, s]) for s in STEP_SLUGS],
    )
    # Staff comments waiting for the applicant, shown on the step tabs.
    page.comments_by_step = selectors.review_open_comments_by_step(proposal=proposal)
    return _answer(request, "page", page)


@login_required
@require_POST
def row_operation(request, pk, step, kind, operation, row=None):
    """Add a row to a table of the step, or remove or move one, or add back (or
    forget) a row removed in another tab that this person had edited; the step's
    typed values are saved first (the buttons submit the whole form), in the same
    transaction, against what the page showed (``bases``): a row changed elsewhere
    is not removed until the person says so, a row removed elsewhere is said to be."""
    step = _step_or_404(step)
    if kind not in step.tables or operation not in ROW_OPERATIONS:
        raise Http404("No such table on this step.")
    if operation != "add" and row is None:
        raise Http404("No such row.")
    with transaction.atomic():
        proposal = _editable(request, pk, lock=True)
        stored = {str(r.pk) for r in rows_of(proposal, kind)}
        foreign = row is not None and str(row) not in stored
        if foreign and services.ROW_MODELS[kind].objects.filter(pk=row).exists():
            raise Http404("No such row.")  # another proposal's
        saved = save_step(
            request,
            proposal,
            step,
            row_op=(operation, kind, None if row is None else int(row)),
            locked=True,
        )
    return _after_rows(
        request, member_proposal(request, pk, may=Capability.EDIT), step, saved
    )


def _step_post(
    request, proposal, step, saved, system_before, autosave, read_revision=None
):
    step_forms, outcome = saved.step_forms, saved.outcome
    if proposal.system_id != system_before:
        # A new system changes what the inputs mean (GPUs per node, GCDs): show the
        # step afresh, in the unit the new system allows, like after a row operation.
        return _after_rows(
            request,
            member_proposal(request, proposal.pk, may=Capability.EDIT),
            step,
            saved,
        )
    # What the page shows that another tab has changed since (inputs this request
    # did not change; rows removed): sent to the page, or shown in a page answer.
    # A page whose last answer was at the revision this request read has seen
    # every write (its own answers carry ``revision``): nothing to look for.
    seen = request.POST.get("revision")
    if autosave and seen and seen == str(read_revision):
        stale = Stale()
    else:
        stale = stale_inputs(
            step,
            proposal,
            saved.bases,
            skip=saved.unsettled,
            gpu_unit=step_forms.gpu_unit,
            number_format=number_format(request),
            shown_keys=posted_row_keys(request),
        )
    if autosave:
        return _autosave_answer(request, proposal, step, saved, stale)
    if (
        outcome.conflicts
        or saved.gone
        or any(form.errors for form in step_forms.all_forms())
    ):
        # The page again, as posted, but with another tab's newer values in the
        # inputs this page did not change (and those values as their bases).
        show_stored(step_forms, saved.bases, stale)
        page = _page(request, proposal, step, step_forms, **saved.context())
        page.focus_heading = True  # not <body>: the step and its messages
        return _answer(request, "page", page)
    destination = request.POST.get("goto", step.slug)
    if destination not in STEP_BY_SLUG:
        destination = step.slug
    return redirect("proposals:step", pk=proposal.pk, step=destination)


def _autosave_answer(request, proposal, step, saved, stale):
    """The autosave's answer, out of band: the save's status and what it could not
    do, the inputs' feedback and the rows' figures, and the live regions whose key
    the page does not show yet."""
    page = _page(request, proposal, step, saved.step_forms, **saved.context())
    # The page puts a newer value in an input only where the person has not
    # typed since (static/js/app.js), and then takes its base too: an input
    # being typed in keeps its old base, so its save shows the conflict.
    page.refresh_json = json.dumps(
        {"inputs": stale.inputs, "removed": stale.removed, "keys": stale.keys}
    )
    # What the page merges into its bases: those of the inputs it sent, as saved
    # (not every input's: the page keeps the others), and those rows' fingerprints.
    page.bases_update_json = json.dumps(saved.bases)
    prefixes = {m.group(1) for key in saved.bases if (m := ROW_PREFIX.match(key))}
    page.row_keys_update = _keys_field(
        {prefix: shown_row_key(prefix, saved.bases) for prefix in prefixes}
    )
    # The page-level regions and measurements' figures it does not show yet, and
    # the figures of the job rows it sent (no key kept: they come with each row).
    shown = request.POST.get("regions")
    page.changed_regions = (
        changed(page.all_regions, shown)
        + changed(page.point_regions, shown)
        + row_regions(
            saved.step_forms,
            page.evaluation,
            page.job_figures,
            page.refused.refused_rows,
        )
        + changed_field_findings(page.field_findings_regions, shown)
    )
    return _answer(request, "autosave", page)


def _after_rows(request, proposal, step, saved):
    """After a row operation (or a change of system): the step's forms afresh, with
    what was typed and refused, the conflicts of this request, and what the row
    operation could not do (a row changed or removed elsewhere)."""
    fresh = _stored_forms(request, proposal, step)
    # The inputs show what is stored: so do their bases, but for the conflicting
    # inputs, whose base stays what this page had shown ("Keep mine").
    bases = field_bases(fresh)
    bases.update(
        {key: value for key, value in saved.bases.items() if key in saved.conflicted}
    )
    page = _page(request, proposal, step, fresh, **saved.context())
    page.posted_bases_json = json.dumps(bases)
    kind = saved.row_op[1] if saved.row_op else ""
    page.focus = f"{kind}-{saved.new_row.pk}" if saved.new_row else ""
    if request.htmx:
        return _answer(request, "rows", page)
    if page.conflicts or saved.needs_answer:
        return _answer(request, "page", page)
    anchor = page.focus or (f"section-{kind}" if kind else "")
    url = reverse("proposals:step", args=[proposal.pk, step.slug])
    return redirect(url + (f"#{anchor}" if anchor else ""))


def step_with_question(request, proposal, step_slug: str, **extra):
    """The step afresh from what is stored (its inputs' bases too), as after a row
    operation, with ``extra`` in the context (a question above the step); for htmx
    in place of the step's form, whatever the button's own target."""
    step = STEP_BY_SLUG[step_slug]
    fresh = _stored_forms(request, proposal, step)
    page = _page(request, proposal, step, fresh, saved=True, **extra)
    page.posted_bases_json = json.dumps(field_bases(fresh))
    if not request.htmx:
        return _answer(request, "page", page)
    response = _answer(request, "rows", page)
    response.headers["HX-Retarget"] = "#wizard-form"
    response.headers["HX-Reswap"] = "outerHTML"
    return response


def save_posted_step(request, proposal, slug: str) -> dict | None:
    """Store what a step's form posted, field by field, as its Save button does:
    for the views that receive the whole step form without JavaScript (a paste
    posted from the step page saves what was typed there first). Returns what
    each input of the page is now based on (``None``: the page sent none)."""
    if "bases" not in request.POST:
        return None
    if request.htmx:  # the autosave stored what was typed
        return posted_bases(request)
    with transaction.atomic():
        # Read locked, as the step's own save: compared and written at once.
        locked = _editable(request, proposal.pk, lock=True)
        return save_step(request, locked, STEP_BY_SLUG[slug], locked=True).bases
