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
from decimal import Decimal, InvalidOperation
from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.db import models, transaction
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from proposals import charts, localization, selectors, services
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.numbers import format_number
from proposals.domain.sections import ROW_PREFIX, TABLE_BY_KIND, TABLE_KINDS
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
    Stale,
    build_step_forms,
    collect_changes,
    field_bases,
    navigated_here,
    neighbours,
    plan_folded,
    plan_optional,
    removed_row_form,
    row_id,
    row_values,
    shown_rows,
    stale_inputs,
    table_columns,
    wizard_progress,
)

TEMPLATE = "proposals/wizard.html"
NUMBER_FIELDS = (models.IntegerField, models.DecimalField, models.FloatField)
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
    request._time_zone = localization.zone_named(
        getattr(proposal, "owner_time_zone", None)
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
            read_revision = proposal.revision
            # Edited: the step's open items are shown as what they are from now on.
            services.proposal_mark_visited(proposal=proposal, step=step.slug)
            system_before = proposal.system_id
            saved = _save(
                request, proposal, step, posted_rows_only=autosave, locked=True
            )
        # Assessed and rendered after the commit, without the lock.
        return _step_post(
            request, proposal, step, saved, system_before, autosave, read_revision
        )
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
        stored = {str(r.pk) for r in getattr(proposal, kind).all()}
        foreign = row is not None and str(row) not in stored
        if foreign and services.ROW_MODELS[kind].objects.filter(pk=row).exists():
            raise Http404("No such row.")  # another proposal's
        saved = _save(
            request,
            proposal,
            step,
            row_op=(operation, kind, None if row is None else int(row)),
            locked=True,
        )
    return _after_rows(request, owned_proposal(request, pk), step, saved)


def _step_post(
    request, proposal, step, saved, system_before, autosave, read_revision=None
):
    step_forms, outcome = saved.step_forms, saved.outcome
    if proposal.system_id != system_before:
        # A new system changes what the inputs mean (GPUs per node, GCDs): show the
        # step afresh, in the unit the new system allows, like after a row operation.
        return _after_rows(request, owned_proposal(request, proposal.pk), step, saved)
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
        )
    if autosave:
        context = _page(
            request, proposal, step, step_forms, **saved.context(number_format(request))
        )
        # The page puts a newer value in an input only where the person has not
        # typed since (static/js/app.js), and then takes its base too: an input
        # being typed in keeps its old base, so its save shows the conflict.
        context["refresh_json"] = json.dumps(
            {"inputs": stale.inputs, "removed": stale.removed}
        )
        # A region is rendered and sent again only when what it shows changed: the
        # page sends back the fingerprint of what it shows (``revision_field``).
        for region in ("chart", "findings", "badges"):
            shown = request.POST.get(f"{region}_key")
            context[f"{region}_changed"] = shown != context[f"{region}_key"]
        context["summary_changed"] = summary_changed(
            request.POST.get("summary_key"), context["summary_key"]
        )
        return _answer(request, "autosave", context)
    if (
        outcome.conflicts
        or saved.gone
        or any(form.errors for form in step_forms.all_forms())
    ):
        # The page again, as posted, but with another tab's newer values in the
        # inputs this page did not change (and those values as their bases).
        _show_stored(step_forms, saved.bases, stale)
        context = _page(
            request, proposal, step, step_forms, **saved.context(number_format(request))
        )
        context["focus_heading"] = True  # not <body>: the step and its messages
        return _answer(request, "page", context)
    destination = request.POST.get("goto", step.slug)
    if destination not in STEP_BY_SLUG:
        destination = step.slug
    return redirect("proposals:step", pk=proposal.pk, step=destination)


def _show_stored(step_forms, bases, stale) -> None:
    """Bound forms show the stored value of the ``stale`` inputs (the person did
    not change them here); their bases become the stored values."""
    if not stale.inputs:
        return
    data = None
    for form in step_forms.all_forms():
        if not form.is_bound:
            continue
        if data is None:
            data = form.data.copy()
        form.data = data
    if data is None:
        return
    for key, entry in stale.inputs.items():
        data[key] = entry["value"]
        bases[key] = entry["base"]


def _after_rows(request, proposal, step, saved):
    """After a row operation (or a change of system): the step's forms afresh, with
    what was typed and refused, the conflicts of this request, and what the row
    operation could not do (a row changed or removed elsewhere)."""
    fresh = build_step_forms(
        step,
        proposal,
        gpu_unit=_gpu_unit(proposal),
        number_format=number_format(request),
    )
    # The inputs show what is stored: so do their bases, but for the conflicting
    # inputs, whose base stays what this page had shown ("Keep mine").
    bases = field_bases(fresh)
    bases.update(
        {key: value for key, value in saved.bases.items() if key in saved.conflicted}
    )
    context = _page(
        request, proposal, step, fresh, **saved.context(number_format(request))
    )
    context["posted_bases_json"] = json.dumps(bases)
    kind = saved.row_op[1] if saved.row_op else ""
    context["focus"] = f"{kind}-{saved.new_row.pk}" if saved.new_row else ""
    if request.htmx:
        return _answer(request, "rows", context)
    if context["conflicts"] or saved.needs_answer:
        return _answer(request, "page", context)
    anchor = context["focus"] or (f"section-{kind}" if kind else "")
    url = reverse("proposals:step", args=[proposal.pk, step.slug])
    return redirect(url + (f"#{anchor}" if anchor else ""))


class _Saved:
    """What one save did: the bound forms, the outcome, the new row, the conflicts,
    the inputs it left unsettled, and what its row operation could not do."""

    def __init__(
        self, step_forms, outcome, new_row, row_op, bases, collected, restoring=False
    ):
        self.step_forms = step_forms
        self.outcome = outcome
        self.new_row = new_row
        self.row_op = row_op
        self.bases = bases
        self.conflicted = {
            _input_name(step_forms, conflict) for conflict in outcome.conflicts
        }
        # Inputs whose text is not what is stored (refused, held, conflicting).
        self.unsettled = set(collected.refused) | self.conflicted
        self.gone = collected.gone  # edited rows removed elsewhere (prefixes)
        self.restore_refused = bool(
            row_op and row_op[0] == "restore" and new_row is None and restoring
        )

    @property
    def needs_answer(self) -> bool:
        """Whether the row operation left something for the person to read or
        choose (so a page without JavaScript shows it rather than moving on)."""
        return bool(
            self.gone
            or self.outcome.row_changed
            or self.outcome.row_gone
            or self.restore_refused
        )

    def context(self, fmt) -> dict:
        return {
            "saved": True,
            "conflicts": _describe_conflicts(self.step_forms, self.outcome),
            "posted_bases_json": json.dumps(self.bases),
            "row_changed": _describe_row_changed(self.outcome.row_changed, fmt),
            "row_gone": _describe_row_gone(self.row_op, self.outcome.row_gone),
            "restore_refused": self.restore_refused,
        }


def _describe_row_changed(changed, fmt) -> dict | None:
    """A delete not done because the row changed elsewhere, as the question above
    the step shows it (:func:`describe_changed_rows`)."""
    if changed is None:
        return None
    row = changed.row
    kind = _kind_of(row)
    item = TABLE_BY_KIND[kind].item
    url = reverse(
        "proposals:row",
        kwargs={
            "pk": row.proposal_id,
            "step": TABLE_BY_KIND[kind].section,
            "kind": kind,
            "row": row.pk,
            "operation": "delete",
        },
    )
    return describe_changed_rows(
        [changed],
        fmt,
        heading=f"This {item.lower()} was changed in another tab",
        outcome="so it was not removed",
        url=url,
        confirm="Delete anyway",
        keep="Keep it",
    )


def describe_changed_rows(changed, fmt, *, heading, outcome, url, confirm, keep):
    """Rows changed elsewhere that an operation would have removed, as the question
    above the step shows them: per row, what changed (the field's label, what this
    page showed, what is stored), and the two choices (``confirm`` posts to
    ``url``; ``keep`` saves the step and closes the question)."""
    rows = []
    for change in changed:
        row = change.row
        kind = _kind_of(row)
        rows.append(
            {
                "prefix": f"{kind}-{row.pk}",
                "name": getattr(row, TABLE_BY_KIND[kind].name_field, "")
                if TABLE_BY_KIND[kind].name_field
                else "",
                "fields": [
                    {
                        "label": _field_label(kind, name),
                        "shown": _stored_text(row, name, base, fmt),
                        "stored": _stored_text(row, name, stored, fmt),
                    }
                    for name, base, stored in change.fields
                ],
            }
        )
    return {
        "heading": heading,
        "outcome": outcome,
        "rows": rows,
        "url": url,
        "confirm": confirm,
        "keep": keep,
    }


def _kind_of(row) -> str:
    return next(k for k, model in services.ROW_MODELS.items() if isinstance(row, model))


def step_with_question(request, proposal, step_slug: str, **extra):
    """The step afresh from what is stored (its inputs' bases too), as after a row
    operation, with ``extra`` in the context (a question above the step); for htmx
    in place of the step's form, whatever the button's own target."""
    step = STEP_BY_SLUG[step_slug]
    fresh = build_step_forms(
        step,
        proposal,
        gpu_unit=_gpu_unit(proposal),
        number_format=number_format(request),
    )
    context = _page(request, proposal, step, fresh, saved=True, **extra)
    context["posted_bases_json"] = json.dumps(field_bases(fresh))
    if not request.htmx:
        return _answer(request, "page", context)
    response = _answer(request, "rows", context)
    response.headers["HX-Retarget"] = "#wizard-form"
    response.headers["HX-Reswap"] = "outerHTML"
    return response


def _describe_row_gone(row_op, gone: bool) -> dict | None:
    """A row operation on a row removed elsewhere: nothing done, said so."""
    if not gone or not row_op:
        return None
    operation, kind, _ = row_op
    return {"item": TABLE_BY_KIND[kind].item, "operation": operation}


def _field_label(kind: str, name: str) -> str:
    spec = FIELD_BY_KEY.get(f"{kind}.{name}")
    return spec.label if spec else name


def _stored_text(row, name: str, value, fmt) -> str:
    """A row's value (stored, or as a page showed it) as people read it: a number
    in the person's format, a choice by its label, a related row by its name."""
    if value is None or value == "":
        return "(empty)"
    field = type(row)._meta.get_field(name)
    if field.is_relation:
        pk = row_id(str(value))  # a base is the page's word: maybe no id at all
        related = field.related_model.objects.filter(pk=pk).first() if pk else None
        return str(getattr(related, "name", "") or related) if related else str(value)
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(field, NUMBER_FIELDS):
        try:
            return format_number(Decimal(str(value)), fmt)
        except InvalidOperation:
            pass
    return str(value)


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
    request, proposal, step, *, posted_rows_only=False, row_op=None, locked=False
):
    """Validate and store a step's POST (field by field) and its row operation
    (``row_op``: operation, table kind, row id)."""
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
    row_action = None
    if row_op is not None:
        row_action = _row_action(
            proposal, step_forms, collected, bases, row_op, request.POST
        )
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
    return _Saved(
        step_forms,
        outcome,
        new_row,
        row_op,
        bases,
        collected,
        restoring=row_action is not None and row_action.action == "restore",
    )


def _row_action(proposal, step_forms, collected, bases, row_op, data):
    """The service's row operation for ``row_op``: for a delete, what the page showed
    of the row (its bases, or this request's own new values, which are saved just
    before); for an add-back, the values typed into the removed row (posted now, or
    kept from an earlier save); for a move, the row the page showed next to it."""
    operation, kind, pk = row_op
    prefix = f"{kind}-{pk}"
    if operation == "discard":
        return services.RowAction(operation, kind, pk=pk)
    if operation == "restore":
        typed = _typed_into_removed_row(proposal, step_forms, collected, prefix)
        if typed is None:  # nothing kept (added back already): nothing to do
            return None
        values, refused = typed
        return services.RowAction(
            operation, kind, pk=pk, values=values, refused=refused
        )
    shown = None
    if operation == "delete":
        shown = shown_rows(bases, kind).get(pk, {})
        for change in collected.changes:
            if f"{kind}-{getattr(change.instance, 'pk', None)}" == prefix:
                shown.update(
                    {name: services.canonical(v) for name, v in change.values.items()}
                )
    neighbour = None
    if operation in ("up", "down"):
        # The page's order: the order its rows' inputs were posted in.
        order = list(dict.fromkeys(p for p in _posted_prefixes(data, kind)))
        if prefix in order:
            at = order.index(prefix) + (-1 if operation == "up" else 1)
            if 0 <= at < len(order):
                neighbour = int(order[at].split("-")[1])
    return services.RowAction(operation, kind, pk=pk, shown=shown, neighbour=neighbour)


def _posted_prefixes(data, kind: str):
    """The row prefixes of ``kind`` in ``data``, in the order posted (with repeats)."""
    for key in data:
        match = ROW_PREFIX.match(key)
        parts = match.group(1).split("-") if match else ("", "")
        if parts[0] == kind and row_id(parts[1]) is not None:
            yield match.group(1)


def _typed_into_removed_row(proposal, step_forms, collected, prefix):
    """The values (validated) and refused text of the removed row ``prefix``: as
    typed into the page now, else as kept in ``refused_inputs`` by the save that
    found it gone; ``None`` when neither (a second "Add it back")."""
    if prefix in collected.gone:
        return row_values(step_forms.gone[prefix].form)
    kept = {
        key: item["text"]
        for key, item in (proposal.refused_inputs or {}).items()
        if key.startswith(f"{prefix}-") and item.get("gone")
    }
    if not kept:
        return None
    kind = prefix.split("-")[0]
    form = removed_row_form(step_forms, proposal, kind, prefix, kept)
    return row_values(form)


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


def save_posted_step(request, proposal, slug: str) -> dict | None:
    """Store what a step's form posted, field by field, as its Save button does:
    for the views that receive the whole step form without JavaScript (a paste
    posted from the step page saves what was typed there first). Returns what
    each input of the page is now based on (``None``: the page sent none)."""
    if "bases" not in request.POST:
        return None
    if request.htmx:  # the autosave stored what was typed
        return _posted_bases(request)
    with transaction.atomic():
        # Read locked, as the step's own save: compared and written at once.
        locked = _editable(request, proposal.pk, lock=True)
        return _save(request, locked, STEP_BY_SLUG[slug], locked=True).bases
