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
The view reads the request and the person (their number format, time zone and
languages) once, at the top, and passes plain values down to the wizard's package
(``proposals/wizard/``), which saves (``saving``) and builds the page that answers
(``page``).
Inputs are never swapped while someone types: autosave answers with out-of-band
fragments only (save status, errors and notes under fields, computed regions).
"""

from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from aifactory import metrics
from proposals import localization, selectors, services
from proposals.domain.team import Capability
from proposals.table_rows import rows_of
from proposals.views import refuse_role
from proposals.views.accounts import browser_languages, number_format
from proposals.wizard import page as pages
from proposals.wizard.changes import posted_bases
from proposals.wizard.saving import save_step
from proposals.wizard.stale import stale_since
from proposals.wizard.steps import STEP_BY_SLUG, STEPS, navigated_here

# The page and its fragments are Jinja2 templates (proposals/jinja2/proposals/wizard/).
TEMPLATE = "proposals/wizard/page.html"
STEP_SLUGS = [step.slug for step in STEPS]
ROW_OPERATIONS = services.ROW_OPERATIONS
# The templates that answer htmx requests, by kind of answer.
FRAGMENTS = {
    # the page's parts, changed regions and feedback, all out of band (Jinja2)
    "autosave": "proposals/wizard/autosave.html",
    # the whole form again, plus every region out of band (Jinja2)
    "rows": "proposals/wizard/rows.html",
}


def _editable(request, pk, *, lock=False, may=Capability.EDIT):
    """Proposal ``pk`` of the request user's team in two queries, with the person's
    number format (read with it, once per request), or a 404 off the team and a 403
    for a role that does not allow ``may`` (a viewer saving); ``lock``: see the
    selector. The number format and time zone are also kept on the request, where
    the templates' filters read them."""
    proposal = selectors.proposal_get_for_editing(user=request.user, pk=pk, lock=lock)
    if proposal is None:
        raise Http404("No such proposal.")
    if not selectors.member_may(proposal, may):
        refuse_role(may)
    fmt = selectors.number_format_of(proposal, languages=browser_languages(request))
    request._number_format = fmt
    request._time_zone = localization.zone_named(
        getattr(proposal, "owner_time_zone", None)
    )
    return proposal, fmt


def _step_or_404(slug: str):
    try:
        return STEP_BY_SLUG[slug]
    except KeyError:
        raise Http404("No such step.") from None


def _answer(request, kind: str, page, *, status=200):
    """The one place that decides what answers: ``page`` (the full step), or for
    htmx ``autosave`` / ``rows`` fragments (``FRAGMENTS``). The templates read
    ``page`` and nothing else of the view's."""
    context = {"page": pages.finish(page, kind)}
    # Jinja2 templates, named to their engine: the Django engine would look for
    # each in every folder first (a missed file per folder, on every keystroke).
    if kind == "page" or not request.htmx:
        return TemplateResponse(
            request, TEMPLATE, context, status=status, using="jinja2"
        )
    response = TemplateResponse(
        request, FRAGMENTS[kind], context, status=status, using="jinja2"
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
        return _step_post(request, pk, step)
    proposal, fmt = _editable(request, pk, may=Capability.READ)
    left = request.GET.get("from")
    if (
        left in STEP_BY_SLUG
        and left != step.slug
        and selectors.member_may(proposal, Capability.EDIT)
    ):
        # The step tabs say which step was left (so it was seen).
        services.proposal_mark_visited(proposal=proposal, step=left)
    page = pages.step_page(proposal, step, request.user, fmt)
    # Moved here from another step: focus goes to this step's heading (focus.js).
    page.focus_heading = navigated_here(
        left,
        urlsplit(request.headers.get("Referer", "")).path,
        [reverse("proposals:step", args=[proposal.pk, s]) for s in STEP_SLUGS],
    )
    # Staff comments waiting for the applicant, shown on the step tabs.
    page.comments_by_step = selectors.review_open_comments_by_step(proposal=proposal)
    return _answer(request, "page", page)


def _step_post(request, pk, step):
    """Save the step's POST, then answer: an autosave with its out-of-band parts,
    a save with conflicts or errors with the page as posted, else a redirect."""
    autosave = bool(request.htmx) and bool(request.POST.get("autosave"))
    if autosave:
        metrics.time_as_autosave(request)  # /metrics' autosave latency
    with transaction.atomic():
        # Read locked (one writer per proposal): the save compares the page's
        # bases with what was read here and writes in the same transaction.
        proposal, fmt = _editable(request, pk, lock=True)
        read_revision = proposal.revision
        # Edited: the step's open items are shown as what they are from now on.
        services.proposal_mark_visited(proposal=proposal, step=step.slug)
        system_before = proposal.system_id
        saved = save_step(
            request.POST,
            proposal,
            step,
            user=request.user,
            number_format=fmt,
            posted_rows_only=autosave,
            locked=True,
        )
    # Assessed and rendered after the commit, without the lock.
    if proposal.system_id != system_before:
        # A new system changes what the inputs mean (GPUs per node, GCDs): show the
        # step afresh, in the unit the new system allows, like after a row operation.
        return _after_rows(request, pk, step, saved)
    seen = request.POST.get("revision")
    stale = stale_since(
        step,
        proposal,
        saved,
        request.POST,
        seen_current=autosave and bool(seen) and seen == str(read_revision),
    )
    if autosave:
        shown = request.POST.get("regions")  # the region keys the page shows
        kind = "autosave"
        page = pages.autosave_page(proposal, step, saved, stale, shown)
    elif (
        saved.outcome.conflicts
        or saved.gone
        or any(form.errors for form in saved.step_forms.all_forms())
    ):
        kind = "page"
        page = pages.posted_page(proposal, step, saved, stale)
    else:
        destination = request.POST.get("goto", step.slug)
        if destination not in STEP_BY_SLUG:
            destination = step.slug
        return redirect("proposals:step", pk=proposal.pk, step=destination)
    return _answer(request, kind, page)


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
        proposal, fmt = _editable(request, pk, lock=True)
        stored = {str(r.pk) for r in rows_of(proposal, kind)}
        foreign = row is not None and str(row) not in stored
        if foreign and services.ROW_MODELS[kind].objects.filter(pk=row).exists():
            raise Http404("No such row.")  # another proposal's
        saved = save_step(
            request.POST,
            proposal,
            step,
            user=request.user,
            number_format=fmt,
            row_op=(operation, kind, None if row is None else int(row)),
            locked=True,
        )
    return _after_rows(request, pk, step, saved)


def _after_rows(request, pk, step, saved):
    """After a row operation (or a change of system): the step afresh, read again
    (``page.fresh_page``); without JavaScript, a redirect to the row unless
    there is something to read or choose."""
    proposal, _fmt = _editable(request, pk)  # read again: what the save wrote
    page = pages.fresh_page(proposal, step, saved)
    if request.htmx or page.conflicts or saved.needs_answer:
        # Without htmx, the whole page: something to read or choose.
        return _answer(request, "rows", page)
    kind = saved.row_op[1] if saved.row_op else ""
    anchor = page.focus or (f"section-{kind}" if kind else "")
    url = reverse("proposals:step", args=[proposal.pk, step.slug])
    return redirect(url + (f"#{anchor}" if anchor else ""))


def step_with_question(request, proposal, step_slug: str, **extra):
    """The step afresh from what is stored (its inputs' bases too), as after a row
    operation, with ``extra`` in the context (a question above the step); for htmx
    in place of the step's form, whatever the button's own target."""
    step = STEP_BY_SLUG[step_slug]
    page = pages.question_page(
        proposal, step, request.user, number_format(request), **extra
    )
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
        return posted_bases(request.POST)
    with transaction.atomic():
        # Read locked, as the step's own save: compared and written at once.
        locked, fmt = _editable(request, proposal.pk, lock=True)
        saved = save_step(
            request.POST,
            locked,
            STEP_BY_SLUG[slug],
            user=request.user,
            number_format=fmt,
            locked=True,
        )
        return saved.bases
