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
from django.core.exceptions import BadRequest
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from proposals import charts, selectors, services
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.sections import TABLE_BY_KIND, TABLE_KINDS
from proposals.live import (
    SUMMARY_PARTS,
    live_context,
    region_key,
    summary_changed,
    summary_field,
)
from proposals.views import owned_proposal
from proposals.views.accounts import browser_languages, number_format
from proposals.wizard import (
    STEP_BY_SLUG,
    STEPS,
    Change,
    build_step_forms,
    collect_changes,
    field_bases,
    navigated_here,
    neighbours,
    plan_folded,
    plan_optional,
    table_columns,
    wizard_progress,
)

TEMPLATE = "proposals/wizard.html"
STEP_SLUGS = [step.slug for step in STEPS]
ROW_OPERATIONS = services.ROW_OPERATIONS
# The fragments of ``wizard.html`` that answer htmx requests, by kind of answer.
FRAGMENTS = {
    "autosave": "autosave_response",  # status, feedback, computed regions (oob)
    "rows": "row_op_response",  # the whole form again, plus the sidebar (oob)
}


def _editable(request, pk, *, lock=False):
    """The request user's proposal ``pk`` in two queries (with the owner's number
    format, read once per request), or a 404; ``lock``: see the selector."""
    proposal = selectors.proposal_get_for_editing(user=request.user, pk=pk, lock=lock)
    if proposal is None:
        raise Http404("No such proposal.")
    request._number_format = selectors.number_format_of(
        proposal, languages=browser_languages(request)
    )
    return proposal


def _step_or_404(slug: str):
    try:
        return STEP_BY_SLUG[slug]
    except KeyError:
        raise Http404("No such step.") from None


def _gpu_unit(proposal, posted: str | None = None) -> str:
    """The unit GPU counts are typed in: the proposal's (or, for a POST that carries
    the toggle, the posted one: its numbers are in that unit); GCDs only on systems
    whose GPUs have several dies."""
    unit = posted if posted in ("gpus", "gcds") else proposal.gpu_unit
    if proposal.system is None or proposal.system.gcds_per_gpu < 2:
        return "gpus"
    return unit


def _page(request, proposal, step, step_forms, **extra):
    """Context shared by the full page and its fragments."""
    previous, following = neighbours(step.slug)
    system = proposal.system
    live = live_context(proposal, step=step.slug, chart_link=True)
    folded = plan_folded(live["mode_terms"], proposal)
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
        "bases_json": json.dumps(field_bases(step_forms)),
        # The vocabulary the step templates read: tables, their columns, units.
        "table_kinds": TABLE_KINDS,
        "tables": TABLE_BY_KIND,
        "columns": {kind: table_columns(kind) for kind in TABLE_KINDS},
        "units": {key: spec.unit for key, spec in FIELD_BY_KEY.items() if spec.unit},
        # Regions an autosave may leave out when the page shows them already.
        "chart_changed": True,
        "findings_changed": True,
        "badges_changed": True,
        "summary_changed": SUMMARY_PARTS,
        **live,
        # The applicant's path: progress from the badges' counts; what the tier
        # does not ask for (Playground: job plan, measurements) folded away.
        "progress": wizard_progress(
            live["counts_by_step"], live["refused_by_step"], proposal.visited_steps
        ),
        "plan_folded": folded,
        "plan_optional": plan_optional(live["mode_terms"]),
        # Without measurements the chart region's text names the tier and whether
        # it asks for scaling data; every number is written in the person's format.
        "chart_key": region_key(live["chart_key"], folded, live["tier_label"]),
        # Every part of the summary writes numbers in the person's format.
        "summary_key": summary_field(live["summary_keys"], number_format(request).name),
        **extra,
    }


def _remember_chart(proposal, context) -> None:
    """Note which data the page's chart URL stands for, so that the image view
    draws it without assessing the proposal again."""
    if context.get("chart_url"):
        charts.remember(proposal.pk, context["chart_image_key"], context["chart_data"])


def _answer(request, kind: str, context, *, status=200):
    """The one place that decides what answers: ``page`` (the full step), or for
    htmx ``autosave`` / ``rows`` fragments (``FRAGMENTS``)."""
    if kind != "autosave" or context.get("chart_changed"):
        _remember_chart(context["proposal"], context)
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
        with transaction.atomic():
            # Read locked (one writer per proposal): the save compares the page's
            # bases with what was read here and writes in the same transaction.
            proposal = _editable(request, pk, lock=True)
            # Edited: the step's open items are shown as what they are from now on.
            services.proposal_mark_visited(proposal=proposal, step=step.slug)
            system_before = proposal.system_id
            saved = _save(
                request, proposal, step, posted_rows_only=autosave, locked=True
            )
        # Assessed and rendered after the commit, without the lock.
        return _step_post(request, proposal, step, saved, system_before, autosave)
    proposal = _editable(request, pk)
    left = request.GET.get("from")
    if left in STEP_BY_SLUG and left != step.slug:
        # The step tabs say which step was left (so it was seen).
        services.proposal_mark_visited(proposal=proposal, step=left)
    step_forms = build_step_forms(
        step,
        proposal,
        gpu_unit=_gpu_unit(proposal),
        number_format=number_format(request),
    )
    context = _page(request, proposal, step, step_forms)
    # Moved here from another step: focus goes to this step's heading (focus.js).
    context["focus_heading"] = navigated_here(
        left,
        urlsplit(request.headers.get("Referer", "")).path,
        [reverse("proposals:step", args=[proposal.pk, s]) for s in STEP_SLUGS],
    )
    # Staff comments waiting for the applicant, shown on the step tabs.
    context["comments_by_step"] = selectors.review_open_comments_by_step(
        proposal=proposal
    )
    return _answer(request, "page", context)


@login_required
@require_POST
def row_operation(request, pk, step, kind, operation, row=None):
    """Add a row to a table of the step, or remove or move one; the step's typed
    values are saved first (the buttons submit the whole form)."""
    step = _step_or_404(step)
    proposal = owned_proposal(request, pk)
    if kind not in step.tables or operation not in ROW_OPERATIONS:
        raise Http404("No such table on this step.")
    target = None
    if operation != "add":
        target = next(
            (r for r in getattr(proposal, kind).all() if str(r.pk) == str(row)), None
        )
        if target is None:  # another proposal's row, or removed already
            raise Http404("No such row.")
    saved = _save(
        request,
        proposal,
        step,
        row_action=services.RowAction(operation, kind, target),
    )
    return _after_rows(request, owned_proposal(request, pk), step, saved)


def _step_post(request, proposal, step, saved, system_before, autosave):
    step_forms, outcome = saved.step_forms, saved.outcome
    if proposal.system_id != system_before:
        # A new system changes what the inputs mean (GPUs per node, GCDs): show the
        # step afresh, in the unit the new system allows, like after a row operation.
        return _after_rows(request, owned_proposal(request, proposal.pk), step, saved)
    context = _page(request, proposal, step, step_forms, **saved.context())
    if autosave:
        # A region is rendered and sent again only when what it shows changed: the
        # page sends back the fingerprint of what it shows (``revision_field``).
        for region in ("chart", "findings", "badges"):
            shown = request.POST.get(f"{region}_key")
            context[f"{region}_changed"] = shown != context[f"{region}_key"]
        context["summary_changed"] = summary_changed(
            request.POST.get("summary_key"), context["summary_key"]
        )
        return _answer(request, "autosave", context)
    if outcome.conflicts or any(form.errors for form in step_forms.all_forms()):
        context["focus_heading"] = True  # not <body>: the step and its messages
        return _answer(request, "page", context)
    destination = request.POST.get("goto", step.slug)
    if destination not in STEP_BY_SLUG:
        destination = step.slug
    return redirect("proposals:step", pk=proposal.pk, step=destination)


def _after_rows(request, proposal, step, saved):
    """After a row operation (or a change of system): the step's forms afresh, with
    what was typed and refused, and the conflicts of this request."""
    fresh = build_step_forms(
        step,
        proposal,
        gpu_unit=_gpu_unit(proposal),
        number_format=number_format(request),
    )
    context = _page(request, proposal, step, fresh, **saved.context())
    kind = saved.row_action.kind if saved.row_action else ""
    context["focus"] = f"{kind}-{saved.new_row.pk}" if saved.new_row else ""
    if request.htmx:
        return _answer(request, "rows", context)
    if context["conflicts"]:
        return _answer(request, "page", context)
    anchor = context["focus"] or (f"section-{kind}" if kind else "")
    url = reverse("proposals:step", args=[proposal.pk, step.slug])
    return redirect(url + (f"#{anchor}" if anchor else ""))


class _Saved:
    """What one save did: the bound forms, the outcome, the new row, the conflicts."""

    def __init__(self, step_forms, outcome, new_row, row_action, bases):
        self.step_forms = step_forms
        self.outcome = outcome
        self.new_row = new_row
        self.row_action = row_action
        self.bases = bases

    def context(self) -> dict:
        return {
            "saved": True,
            "conflicts": _describe_conflicts(self.step_forms, self.outcome),
            "gone": bool(self.outcome.gone),
            "posted_bases_json": json.dumps(self.bases),
        }


def _posted_bases(request) -> dict[str, str]:
    """What each input showed when the page was loaded (``bases``: a JSON object of
    input name -> stored value as text); anything else is a bad request (400)."""
    try:
        bases = json.loads(request.POST.get("bases") or "{}")
    except (ValueError, RecursionError):  # RecursionError: ``[[[[...`` too deep
        raise BadRequest("bases must be a JSON object.") from None
    if not isinstance(bases, dict) or not all(
        isinstance(value, str) for value in bases.values()
    ):
        raise BadRequest("bases must map input names to text.")
    return bases


def _save(
    request, proposal, step, *, posted_rows_only=False, row_action=None, locked=False
):
    """Validate and store a step's POST (field by field) and its row operation."""
    unit = _gpu_unit(proposal, request.POST.get("gpu_unit"))
    step_forms = build_step_forms(
        step,
        proposal,
        request.POST,
        gpu_unit=unit,
        number_format=number_format(request),
        posted_rows_only=posted_rows_only,
    )
    bases = _posted_bases(request)
    keep = request.POST.get("keep")
    if keep:
        # "Keep mine" in the conflict banner: this page's value wins over the other.
        bases[keep] = field_bases(step_forms).get(keep)
    collected = collect_changes(step_forms, request.POST, bases)
    changes = collected.changes
    if "gpu_unit" in request.POST and unit != proposal.gpu_unit:
        # Only the toggle itself changes the unit (steps without it never post it).
        changes.append(Change(proposal, {"gpu_unit": unit}, step_forms.main))
    outcome, new_row = services.proposal_save_step(
        proposal=proposal,
        changes=changes,
        refused=collected.refused,
        cleared=collected.cleared,
        row_action=row_action,
        locked=locked,
    )
    for change in outcome.refused:
        change.form.add_error(
            None, "These values contradict each other; they were not saved."
        )
    # What each input is now based on: its saved or confirmed value; a conflicting,
    # refused or held input keeps the base it had.
    unsettled = set(collected.refused) | {
        _input_name(step_forms, conflict) for conflict in outcome.conflicts
    }
    for form in step_forms.all_forms():
        cleaned = getattr(form, "cleaned_data", None)
        if not form.is_bound or cleaned is None:
            continue
        for name in form.fields:
            key = form.add_prefix(name)
            if key in bases and key not in unsettled and name in cleaned:
                bases[key] = services.canonical(cleaned[name])
    return _Saved(step_forms, outcome, new_row, row_action, bases)


def _input_name(step_forms, conflict) -> str:
    for form in step_forms.all_forms():
        if step_forms.originals.get(id(form)) is conflict.instance:
            return form.add_prefix(conflict.name)
    return conflict.name


def _shown(field, value) -> str:
    """A stored value as the field shows it (a choice's label, a number in the
    person's format)."""
    if value is None or value == "":
        return "(empty)"
    choices = getattr(field, "choices", None)
    if choices is not None:
        flat = {}
        for key, label in choices:
            if isinstance(label, list | tuple):
                flat.update({str(k): v for k, v in label})
            else:
                flat[str(key)] = label
        return str(flat.get(services.canonical(value), value))
    return str(field.prepare_value(value))


def _describe_conflicts(step_forms, outcome) -> list[dict]:
    """The conflicts of a save as the banner shows them: the field, both values."""
    described = []
    for conflict in outcome.conflicts:
        key = _input_name(step_forms, conflict)
        form = next(
            f
            for f in step_forms.all_forms()
            if step_forms.originals.get(id(f)) is conflict.instance
        )
        field = form.fields[conflict.name]
        described.append(
            {
                "input": key,
                "label": field.label,
                "mine": form.data.get(key, ""),
                "theirs": _shown(field, conflict.theirs),
            }
        )
    return described


def save_posted_step(request, proposal, slug: str) -> None:
    """Store what a step's form posted, field by field, as its Save button does:
    for the views that receive the whole step form without JavaScript (a paste
    posted from the step page saves what was typed there first)."""
    _save(request, proposal, STEP_BY_SLUG[slug])
