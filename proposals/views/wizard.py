"""The wizard: one URL per step, a real form on each, live recompute through htmx.

Every POST to a step carries the whole step form plus the revision it was based on.
With htmx (``request.htmx``) an ``autosave`` answers with out-of-band fragments only:
the save indicator, the revision, the field errors and the computed regions; the
inputs themselves are never swapped. Without JavaScript the same POST saves, validates
and redirects, so the wizard works as plain HTML forms.
"""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from proposals import selectors, services
from proposals.domain.fields import FIELD_BY_KEY, columns
from proposals.domain.sections import TABLE_BY_KIND, TABLE_KINDS
from proposals.live import live_context
from proposals.services import RevisionConflict
from proposals.views import owned_proposal
from proposals.wizard import (
    STEP_BY_SLUG,
    STEPS,
    TABLE_FORMS,
    build_step_forms,
    collect_changes,
    neighbours,
)

TEMPLATE = "proposals/wizard.html"
STEP_SLUGS = [step.slug for step in STEPS]
ROW_ACTIONS = {"add", "delete", "up", "down"}


def _step_or_404(slug: str):
    try:
        return STEP_BY_SLUG[slug]
    except KeyError:
        raise Http404("No such step.") from None


def _gpu_unit(request, proposal) -> str:
    """The unit GPU counts are typed in: GCDs only on systems whose GPUs have several
    dies. A POST is read in the unit its own form showed (the posted radio; no radio,
    no GCDs); a page is shown in the unit last used for this proposal."""
    key = f"gpu_unit:{proposal.pk}"
    if request.method == "POST":
        unit = request.POST.get("gpu_unit", "gpus")
        if request.session.get(key, "gpus") != unit:
            request.session[key] = unit
    else:
        unit = request.session.get(key, "gpus")
    if proposal.system is None or proposal.system.gcds_per_gpu < 2:
        return "gpus"
    return unit if unit in ("gpus", "gcds") else "gpus"


def _page(request, proposal, step, step_forms, **extra):
    """Context shared by the full page and its fragments."""
    previous, following = neighbours(step.slug)
    system = proposal.system
    return {
        "proposal": proposal,
        "step": step,
        "steps": STEPS,
        "previous_step": previous,
        "next_step": following,
        "forms": step_forms,
        "gpu_unit": step_forms.gpu_unit,
        "gpu_unit_label": "GCDs" if step_forms.gpu_unit == "gcds" else "GPUs",
        "slurm_devices_per_node": system.gpus_per_node * system.gcds_per_gpu
        if system
        else None,
        "post_url": reverse("proposals:step", args=[proposal.pk, step.slug]),
        # The vocabulary the step templates read: tables, their columns, units.
        "table_kinds": TABLE_KINDS,
        "tables": TABLE_BY_KIND,
        "columns": {kind: columns(kind) for kind in TABLE_KINDS},
        "units": {key: spec.unit for key, spec in FIELD_BY_KEY.items() if spec.unit},
        "chart_changed": True,
        **live_context(proposal),
        **extra,
    }


@login_required
@require_http_methods(["GET", "POST"])
def wizard(request, pk, step):
    """One step of the wizard: GET shows it, POST saves it."""
    if request.method == "POST":
        return wizard_post(request, pk, step)
    return wizard_step(request, pk, step)


def wizard_step(request, pk, step):
    step = _step_or_404(step)
    proposal = owned_proposal(request, pk)
    unit = _gpu_unit(request, proposal)
    step_forms = build_step_forms(step, proposal, gpu_unit=unit)
    context = _page(request, proposal, step, step_forms)
    # Staff comments waiting for the applicant, shown on the step tabs.
    context["comments_by_step"] = selectors.review_open_comments_by_step(
        proposal=proposal
    )
    return TemplateResponse(request, TEMPLATE, context)


def _row(proposal, kind, pk):
    """A row of this proposal; rows of other proposals are a 404."""
    if kind not in TABLE_FORMS:
        raise Http404("No such table.")
    for row in getattr(proposal, kind).all():
        if str(row.pk) == pk:
            return row
    raise Http404("No such row.")


def _parse_action(value: str):
    """``autosave``, ``save``, ``goto:<step>``, ``add:<kind>`` or
    ``<delete|up|down>:<kind>:<pk>``."""
    parts = (value or "save").split(":")
    return parts[0], parts[1:]


def wizard_post(request, pk, step):
    step = _step_or_404(step)
    proposal = owned_proposal(request, pk)
    action, args = _parse_action(request.POST.get("action", "save"))
    try:
        expected = int(request.POST.get("revision", ""))
    except ValueError:
        expected = -1
    unit = _gpu_unit(request, proposal)
    autosave = bool(request.htmx) and action == "autosave"
    step_forms = build_step_forms(
        step, proposal, request.POST, gpu_unit=unit, posted_rows_only=autosave
    )
    changes = collect_changes(step_forms, request.POST)
    row_action = None
    if action in ROW_ACTIONS:
        kind = args[0] if args else ""
        if kind not in step.tables:
            raise Http404("No such table on this step.")
        target = None
        if action != "add":
            target = _row(proposal, kind, args[1] if len(args) > 1 else "")
        row_action = services.RowAction(action, kind, target)
    system_before = proposal.system_id
    try:
        outcome, new_row = services.proposal_save_step(
            proposal=proposal,
            expected_revision=expected,
            changes=changes,
            row_action=row_action,
        )
    except RevisionConflict as conflict:
        return _conflict(request, proposal, step, step_forms, conflict)

    for form in outcome.refused:
        form.add_error(None, "These values contradict each other; they were not saved.")
    has_errors = any(form.errors for form in step_forms.all_forms())

    # A new system changes what the inputs mean (GPUs per node, GCDs): show the step
    # afresh, in the unit the new system allows, like after a row operation.
    system_changed = proposal.system_id != system_before
    if row_action is not None or system_changed:
        # Read the rows again and show the step's forms afresh (keeping the errors of
        # this request on the forms that had them).
        proposal = owned_proposal(request, pk)
        fresh = build_step_forms(step, proposal, gpu_unit=_gpu_unit(request, proposal))
        _carry_errors(step_forms, fresh, request.POST)
        if request.htmx:
            context = _page(request, proposal, step, fresh, saved=True)
            context["focus"] = f"{row_action.kind}-{new_row.pk}" if new_row else ""
            response = TemplateResponse(request, f"{TEMPLATE}#row_op_response", context)
            if row_action is None:  # an autosave: its own swap is "none"
                response.headers["HX-Retarget"] = "#wizard-form"
                response.headers["HX-Reswap"] = "outerHTML"
            return response
        if has_errors:
            return TemplateResponse(
                request, TEMPLATE, _page(request, proposal, step, fresh)
            )
        if row_action is not None:
            anchor = (
                f"#{row_action.kind}-{new_row.pk}"
                if new_row
                else f"#section-{row_action.kind}"
            )
            return redirect(reverse("proposals:step", args=[pk, step.slug]) + anchor)

    if autosave:
        context = _page(request, proposal, step, step_forms, saved=True)
        # The chart (tens of kilobytes) is sent again only when what it shows changed.
        context["chart_changed"] = request.POST.get("chart_key") != context["chart_key"]
        return TemplateResponse(request, f"{TEMPLATE}#autosave_response", context)
    if has_errors:
        context = _page(request, proposal, step, step_forms, saved=True)
        return TemplateResponse(request, TEMPLATE, context)
    destination = step.slug
    if action == "goto" and args and args[0] in STEP_BY_SLUG:
        destination = args[0]
    return redirect("proposals:step", pk=pk, step=destination)


def _carry_errors(old, fresh, data):
    """Keep the errors (and the typed, refused values) of rows that are still there."""
    old_by_prefix = {form.prefix: form for form in old.all_forms()}
    for form in fresh.all_forms():
        previous = old_by_prefix.get(form.prefix)
        if previous is not None and previous.errors:
            form.data, form.is_bound = data, True
            form._errors = previous.errors


def _conflict(request, proposal, step, step_forms, conflict):
    """Nothing was saved: the proposal changed elsewhere since this page was loaded."""
    proposal.refresh_from_db(fields=["revision"])
    context = _page(
        request,
        proposal,
        step,
        step_forms,
        conflict=True,
        current_revision=conflict.current,
    )
    template = f"{TEMPLATE}#conflict_response" if request.htmx else TEMPLATE
    return TemplateResponse(request, template, context, status=409)
