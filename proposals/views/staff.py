"""The support staff's pages: the queue, the review of one proposal, its assessment,
status, comments and diff. Every page answers 404 to a signed-in user outside the
"Support staff" group (see ``review.staff_required``), so it does not reveal that a
proposal exists.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.text import get_text_list
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import (
    require_GET,
    require_POST,
)

from proposals import (
    exports,
    localization,
    notifications,
    reference_data,
    selectors,
    services,
)
from proposals.domain import technical_review, workflow
from proposals.domain.response_times import (
    every_response_time,
    response_time,
    wait_for,
)
from proposals.evaluation import Reference
from proposals.links import site_reverse
from proposals.models import Proposal, ReviewComment
from proposals.queue_csv import queue_csv
from proposals.review_assessment import (
    add_form_rows,
    assessment_checklist,
    assessment_form_initial,
)
from proposals.review_forms import (
    AssignForm,
    QueueFilterForm,
    StatusForm,
)
from proposals.review_fragments import section_fragments
from proposals.review_page import sidebar
from proposals.selectors.scaling_kit import scaling_kit_last
from proposals.views import proposal_revision, staff_proposal
from proposals.views.accounts import number_format, request_preferences
from proposals.views.queue_tools import queue_tools
from proposals.views.review import (
    add_comment,
    comment_url_for,
    staff_required,
)

# Staff ----------------------------------------------------------------------------


def _in_sentence(label: str) -> str:
    """A status label inside a sentence: lower case, except in German, whose
    nouns keep their capitals."""
    return label if (get_language() or "").startswith("de") else label.lower()


def _note_help(note_required, targets, latest):
    """The sentence under the status note: which new statuses need a note, with
    "Ready to submit" while the latest revision has error findings."""
    names = [
        _("“%(status)s”") % {"status": _in_sentence(label)} for label in note_required
    ]
    if workflow.READY in targets and latest.error_count:
        names.append(
            ngettext(
                "“ready to submit” (revision %(number)s has %(count)s error finding)",
                "“ready to submit” (revision %(number)s has %(count)s error findings)",
                latest.error_count,
            )
            % {"number": latest.number, "count": latest.error_count}
        )
    if not names:
        return ""
    return _("Needed for %(statuses)s.") % {"statuses": get_text_list(names, _("and"))}


def _with_wait(state, today, terms, clock):
    """Attach ``wait`` (working days waited against the call mode's typical
    response time, the desk's holidays skipped) to a review state that waits for
    the staff, ``None`` to the others; and ``new_activity``: something happened
    since its handler last opened it."""
    state.wait = None
    if state.proposal.status in workflow.WAITING_FOR_STAFF:
        state.wait = wait_for(
            sent=timezone.localdate(state.submitted_at),
            today=today,
            response=response_time(
                terms, state.proposal.call_family, state.latest_revision.tier
            ),
            counted=selectors.on_the_clock(state.proposal),
            **clock(),
        )
    opened = getattr(state, "handler_opened_at", None)
    state.new_activity = bool(
        state.handled_by_id
        and state.last_activity_at
        and (opened is None or state.last_activity_at > opened)
    )
    return state


@login_required
@require_GET
def landing(request):
    """Where a sign-in leads: staff to the review queue, applicants to their list."""
    if selectors.user_is_support_staff(user=request.user):
        return redirect("proposals:review_queue")
    return redirect("proposals:list")


def _queue(request):
    """The filter form, the reader's clock and the filtered queue."""
    form = QueueFilterForm(request.GET or None)
    clock = selectors.staff_clock(preferences=request_preferences(request))
    queue = selectors.review_queue(**form.filters(), user=request.user, clock=clock)
    return form, clock, queue


@staff_required
@require_GET
def staff_queue(request):
    """Proposals sent for review, filtered (the filters live in the URL) and
    paginated; htmx gets the results."""
    form, clock, queryset = _queue(request)
    page = selectors.queue_page(queryset, request.GET.get("page"), user=request.user)
    today = timezone.localdate()
    terms = reference_data.cached_terms()
    for state in selectors.queue_mark_conflicts(page.object_list, user=request.user):
        _with_wait(state, today, terms, clock)
    query = request.GET.copy()
    query.pop("page", None)
    template = "proposals/staff_queue.html"
    if request.htmx and request.htmx.target == "queue-results":
        template += "#results"
    return TemplateResponse(
        request,
        template,
        {
            "form": form,
            "filter_problems": form.problems(),
            "response_times": every_response_time(terms),
            "holiday_country": clock.country,
            "closure_days": len(clock.closed),
            "page": page,
            "query": query.urlencode(),
            "changed_statuses": list(workflow.AFTER_EDIT.values()),
            **queue_tools(request),
        },
    )


@staff_required
@require_GET
def staff_queue_csv(request):
    """The filtered queue as a CSV file (every row, not one page), for a meeting."""
    form, clock, queryset = _queue(request)
    return queue_csv_response(request, queryset, clock)


def queue_csv_response(request, queryset, clock):
    """The review states of ``queryset`` (``selectors.review_queue``) as the
    queue's CSV file, waits on ``clock``, rows the reader is conflicted on
    marked."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="review-queue-{timezone.localdate():%Y-%m-%d}.csv"'
    )
    response["X-Content-Type-Options"] = "nosniff"
    today = timezone.localdate()
    terms = reference_data.cached_terms()
    states = selectors.queue_mark_conflicts(queryset.iterator(), user=request.user)
    queue_csv(
        response,
        (_with_wait(state, today, terms, clock) for state in states),
        link=lambda state: site_reverse("proposals:staff_review", state.proposal_id),
        fmt=number_format(request),
    )
    return response


def _unconfirmed_handover(state, by) -> str:
    """The warning after handing a proposal to a colleague whose address is
    unconfirmed: who heard of it instead."""
    others = notifications.handover_addresses(state=state, by=by)
    name = state.handled_by
    if not others:
        return _(
            "%(name)s has not confirmed their e-mail address: the hand-over mail "
            "waits until they do (nobody else could be told)."
        ) % {"name": name}
    return _(
        "%(name)s has not confirmed their e-mail address: the hand-over mail went "
        "to %(where)s instead."
    ) % {
        "name": name,
        "where": settings.DESK_EMAIL or _("the other staff"),
    }


@staff_required
@require_POST
def staff_assign(request, pk):
    """Take, hand over or release a proposal. Taking one that a colleague handles
    first asks (saying who has it); the confirmation names that colleague, so a
    handler who changed in between is asked about again."""
    proposal = staff_proposal(request, pk)
    form = AssignForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose the colleague to hand it over to."))
        return redirect("proposals:staff_review", pk=proposal.pk)
    action = form.cleaned_data["action"]
    to = {"take": request.user, "release": None}.get(action)
    if action == "hand_over":
        to = selectors.staff_members().filter(pk=form.cleaned_data["to"]).first()
        if to is None:
            messages.error(request, _("That person is not a support staff member."))
            return redirect("proposals:staff_review", pk=proposal.pk)
    expected = form.cleaned_data["expected_handler"]
    try:
        state = services.review_assign(
            proposal=proposal,
            user=request.user,
            to=to,
            expected_handler=services.UNCHECKED if expected is None else expected,
        )
    except services.HandledByColleague as exc:
        return TemplateResponse(
            request,
            "proposals/staff_take_confirm.html",
            {"proposal": proposal, "handler": exc.handler, "message": str(exc)},
            status=409,
        )
    except services.ReviewError as exc:
        messages.error(request, str(exc))
    else:
        if to is None:
            message = _("Now handled by nobody.")
        elif to == request.user:
            message = _("Now handled by you.")
        else:
            message = _("Now handled by %(name)s.") % {"name": to}
            if not selectors.address_confirmed(user=to):
                messages.warning(request, _unconfirmed_handover(state, request.user))
        messages.success(request, message)
    return redirect("proposals:staff_review", pk=proposal.pk)


def _shown_revision(request, proposal):
    """The review revision picked by ``?revision=N`` (404 if there is none), or
    ``None`` for the working draft."""
    number = request.GET.get("revision", "")
    if not number or number == "current":
        return None
    if not (number.isascii() and number.isdigit() and len(number) <= 9):
        raise Http404("No such revision.")
    return proposal_revision(proposal, int(number))


def _review_source(request, proposal, latest, reference):
    """The revision shown (``None``: the working draft), its export source, and
    whether the draft differs from the latest revision sent for review."""
    shown = _shown_revision(request, proposal)
    if shown is None:
        source = exports.source_for(proposal, reference)
        return shown, source, source.evaluation.document != latest.snapshot
    source = exports.source_from_snapshot(
        shown.snapshot, revision=shown.number, reference=reference
    )
    return shown, source, False


def review_page(request, proposal, *, assessment_form=None, status=200):
    """The staff review page (also re-rendered with a refused assessment)."""
    latest = proposal.review_state.latest_revision
    # The process's reference data, as the wizard reads it (an admin's edit is
    # seen at once in this process, in the others as proposals/reference_data.py
    # says), not the catalogue read again at every view.
    reference = Reference.cached()
    shown, source, changed_since_latest = _review_source(
        request, proposal, latest, reference
    )
    threads = {
        entry["key"]: entry
        for entry in selectors.review_comment_threads(
            proposal=proposal, include_staff_only=True
        )
    }
    sections = [
        {**fragments, "threads": threads[fragments["key"]]}
        for fragments in section_fragments(source)
    ]
    targets = workflow.allowed_targets(proposal.status, workflow.STAFF)
    assessments = selectors.review_assessments(proposal=proposal)
    previous = assessments.get(latest.number)
    if assessment_form is None:
        # The latest revision's findings, reworded for this reader: from the page's
        # own evaluation when it shows that revision, or a draft identical to it
        # (one assessment per page).
        shows_latest = shown.pk == latest.pk if shown else not changed_since_latest
        assessment_form = assessment_form_initial(
            latest,
            previous,
            source
            if shows_latest
            else exports.source_from_snapshot(
                latest.snapshot, revision=latest.number, reference=reference
            ),
        )
    add_form_rows(assessment_form)
    team = selectors.review_team(proposal=proposal)
    note_required = [
        str(Proposal.Status(status).label)
        for status in workflow.NOTE_REQUIRED
        if status in targets
    ]
    return TemplateResponse(
        request,
        "proposals/staff_review.html",  # Jinja2: proposals/jinja2/
        {
            "proposal": proposal,
            "latest": latest,
            "shown": shown,
            "export_query": f"?revision={shown.number}" if shown else "",
            "changed_since_latest": changed_since_latest,
            "sections": sections,
            "general": threads[ReviewComment.Section.GENERAL],
            "status_form": StatusForm(targets=targets),
            "note_required": note_required,
            "note_help": _note_help(note_required, targets, latest),
            "ended": proposal.status in workflow.TERMINAL,
            "can_request_changes": workflow.CHANGES_REQUESTED in targets,
            "revisions": selectors.review_revisions(proposal=proposal),
            "changes": selectors.review_status_changes(proposal=proposal),
            "assessments": assessments,
            "previous_assessment": previous,
            "assessment_form": assessment_form,
            "outcomes": technical_review.OUTCOMES,
            "decisions": technical_review.DECISIONS,
            "comment_url": comment_url_for(proposal, staff=True),
            "staff_view": True,
            "canned_replies": selectors.canned_replies_for(language=get_language()),
            # Whom it can be handed to: nobody conflicted on it.
            "staff_members": selectors.staff_members_free(proposal=proposal, team=team),
            "team": team,
            "kit": scaling_kit_last(proposal=proposal),
            "prefill": None,  # a canned reply inserted (staff_desk.reply_insert)
            **sidebar(source, proposal),
        },
        status=status,
        using="jinja2",
    )


@staff_required
@require_GET
def staff_review(request, pk):
    """The whole proposal read-only, the way the applicant's exports show it (the
    draft, or any revision with ``?revision=N``), with the live sidebar, comments
    per section, the technical assessment, the status form, revisions and the audit
    trail."""
    proposal = staff_proposal(request, pk)
    services.review_visit_record(proposal=proposal, user=request.user)
    return review_page(request, proposal)


@staff_required
@require_POST
def staff_assess(request, pk):
    """Record the technical assessment of the latest revision; "Request changes"
    also asks the applicant for the changes chosen in the checklist."""
    proposal = staff_proposal(request, pk)
    latest = proposal.review_state.latest_revision
    decisions = {
        i: (
            request.POST.get(f"decision-{i}", ""),
            request.POST.get(f"reason-{i}", "")[: technical_review.MAX_REASON + 1],
        )
        for i in range(len(latest.findings))
    }
    # The assessment and its change-request note are for the applicant (their
    # page, their e-mail): the findings worded in the applicant's format.
    with localization.for_recipient(proposal.owner):
        source = exports.source_from_snapshot(latest.snapshot, revision=latest.number)
    items = technical_review.with_decisions(
        assessment_checklist(latest, source=source), decisions
    )
    own = [
        text[: technical_review.MAX_REASON + 1]
        for text in request.POST.getlist("own_condition")[
            : technical_review.MAX_OWN_CONDITIONS + 1
        ]
    ]
    own_items = technical_review.own_conditions(own)
    outcome = request.POST.get("outcome", "")
    text = request.POST.get("text", "")
    request_changes = request.POST.get("action") == "request_changes"
    try:
        services.review_assess(
            proposal=proposal,
            user=request.user,
            revision=latest,
            outcome=outcome,
            items=items + own_items,
            text=text,
            request_changes=request_changes,
        )
    except services.AssessmentProblems as exc:
        form = {
            "outcome": outcome,
            "text": text,
            "items": items,
            "own_conditions": [item["message"] for item in own_items],
        }
        form["problems"] = exc.problems
        return review_page(request, proposal, assessment_form=form, status=422)
    except services.ReviewError as exc:
        messages.error(request, str(exc))
    else:
        done = (
            _("Changes requested for revision %(number)s.")
            if request_changes
            else _("Assessment recorded for revision %(number)s.")
        )
        messages.success(request, done % {"number": latest.number})
    url = reverse("proposals:staff_review", args=[proposal.pk])
    return redirect(url + "#assessment-h")


@staff_required
@require_POST
def staff_comment(request, pk):
    """Staff comment on a section or field (optionally an internal note)."""
    proposal = staff_proposal(request, pk)
    return add_comment(request, proposal, staff=True)


@staff_required
@require_POST
def staff_set_status(request, pk):
    """Staff move the proposal to another status, with a note."""
    proposal = staff_proposal(request, pk)
    form = StatusForm(
        request.POST, targets=workflow.allowed_targets(proposal.status, workflow.STAFF)
    )
    if form.is_valid():
        try:
            change = services.review_set_status(
                proposal=proposal,
                user=request.user,
                to_status=form.cleaned_data["to_status"],
                note=form.cleaned_data["note"],
                expected_status=form.cleaned_data["from_status"],
            )
        except services.ReviewError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request,
                _("Status set to “%(status)s”.")
                % {"status": change.get_to_status_display()},
            )
    else:
        # A choice the current status no longer offers: say who changed what.
        stale = selectors.review_stale_status(
            proposal=proposal, seen_status=request.POST.get("from_status", "")
        )
        messages.error(
            request, stale or _("That status change is not possible from here.")
        )
    return redirect("proposals:staff_review", pk=proposal.pk)
