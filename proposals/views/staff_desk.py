"""The help desk's tools around the queue and the review page: canned replies,
bulk actions on the queue, saved views of the queue."""

from django.contrib import messages
from django.http import Http404, QueryDict
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from proposals import routing, selectors, services
from proposals.domain import canned, numbers
from proposals.domain.tiers import tier_label
from proposals.models import ReviewComment
from proposals.review_forms import BulkForm
from proposals.views import staff_proposal
from proposals.views.accounts import request_preferences
from proposals.views.queue_tools import filters_query
from proposals.views.review import staff_required
from proposals.views.staff import queue_csv_response, review_page

# Canned replies ---------------------------------------------------------------


def placeholder_values(proposal) -> dict[str, str]:
    """The values of ``domain.canned.PLACEHOLDERS`` for ``proposal``, from its
    latest revision, in the reader's language, number format and time zone."""
    latest = proposal.review_state.latest_revision
    owner = proposal.owner
    shown = routing.proposal_cutoff(
        proposal, zone=timezone.get_current_timezone(), now=timezone.now()
    )
    return {
        "applicant": (owner.get_full_name() or owner.get_username()) if owner else "",
        "title": proposal.title,
        "organisation": proposal.organisation_name,
        "tier": str(tier_label(latest.tier)) if latest.tier else "",
        "system": latest.system.name if latest.system_id else "",
        "gpu_hours": numbers.hours(latest.total_gpu_hours, missing=""),
        "next_cutoff": shown.cutoff.text if shown and shown.cutoff else "",
    }


@staff_required
@require_POST
def staff_reply_insert(request, pk):
    """Insert a canned reply (``reply``, in the reader's language) into the new
    comment of ``section``, after what was already typed (``body``); nothing is
    stored. htmx gets the comment box; without JavaScript the review page comes
    back with the box filled."""
    proposal = staff_proposal(request, pk)
    section = request.POST.get("section", "")
    if section not in ReviewComment.Section.values:
        raise Http404("No such section.")
    reply = selectors.canned_reply_get(
        pk=request.POST.get("reply", ""), language=get_language()
    )
    typed = request.POST.get("body", "")[:5000].rstrip()
    problem = ""
    if reply is None:
        problem = _("Choose a canned reply first.")
        body = typed
    else:
        text = canned.fill(reply.body, placeholder_values(proposal))
        body = f"{typed}\n\n{text}" if typed else text
    prefill = {
        "section": section,
        "body": body[:5000],
        "field": request.POST.get("field", ""),
        "problem": problem,
    }
    if request.htmx:
        return TemplateResponse(
            request,
            "proposals/review_threads.html#comment-box",
            {"section": {"key": section}, "prefill": prefill},
        )
    response = review_page(request, proposal)
    response.context_data["prefill"] = prefill
    return response


# Bulk actions on the queue -------------------------------------------------------


def _picked(request) -> list[int]:
    """The proposal ids picked in the queue (at most ``BULK_LIMIT``), in order."""
    picked = []
    for value in request.POST.getlist("pick"):
        good = value.isascii() and value.isdigit() and len(value) <= 9
        if good and int(value) not in picked:
            picked.append(int(value))
    return picked[: selectors.BULK_LIMIT]


def _queue_url(query: str) -> str:
    """The queue with the filters of ``query`` (re-encoded: nothing else)."""
    query = QueryDict(query).urlencode()
    return reverse("proposals:review_queue") + (f"?{query}" if query else "")


@staff_required
@require_POST
def staff_queue_bulk(request):
    """A bulk action on the rows picked in the queue: first a confirmation that
    lists what will change and which rows are refused (and why), then, once
    confirmed, all of it or nothing."""
    form = BulkForm(request.POST)
    picked = _picked(request)
    query = request.POST.get("query", "")
    if not form.is_valid() or not picked:
        problems = [e for errors in form.errors.values() for e in errors]
        messages.error(
            request,
            " ".join(problems) if picked else _("Pick at least one proposal first."),
        )
        return redirect(_queue_url(query))
    data = form.cleaned_data
    if data["action"] == "export":  # a read: the file at once, nothing to confirm
        clock = selectors.staff_clock(preferences=request_preferences(request))
        queue = selectors.review_queue(user=request.user, clock=clock)
        return queue_csv_response(request, queue.filter(proposal_id__in=picked), clock)
    to = None
    if data["action"] == "hand_over":
        to = selectors.staff_members().filter(pk=data["to"]).first()
        if to is None:
            messages.error(request, _("That person is not a support staff member."))
            return redirect(_queue_url(query))
    options = {
        "action": data["action"],
        "to": to,
        "to_status": data["to_status"],
        "note": data["note"],
    }
    if data["confirm"]:
        seen = {}
        for pk in picked:
            handler = request.POST.get(f"handler-{pk}", "")
            seen[pk] = (
                int(handler) if handler.isdigit() else None,
                request.POST.get(f"status-{pk}", ""),
            )
        try:
            done = services.review_bulk(user=request.user, seen=seen, **options)
        except services.ReviewError as exc:
            messages.error(request, _("Nothing was changed. %(why)s") % {"why": exc})
        else:
            messages.success(
                request,
                ngettext("Done for %(n)s proposal.", "Done for %(n)s proposals.", done)
                % {"n": done},
            )
            return redirect(_queue_url(query))
    rows = selectors.queue_bulk_plan(user=request.user, pks=picked, **options)
    return TemplateResponse(
        request,
        "proposals/staff_queue_bulk.html",
        {
            "form": form,
            "to": to,
            "query": query,
            "queue_url": _queue_url(query),
            "changing": [row for row in rows if not row.refused],
            "refused": [row for row in rows if row.refused],
        },
    )


# Saved views of the queue ------------------------------------------------------


@staff_required
@require_POST
def staff_view_save(request):
    """Save the queue's current filters (``query``) under ``name``."""
    query = filters_query(request.POST.get("query", ""))
    try:
        view = services.saved_view_save(
            user=request.user,
            name=request.POST.get("name", ""),
            query=query,
            shared=request.POST.get("shared") == "on",
        )
    except services.ReviewError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("View “%(name)s” saved.") % {"name": view.name})
    return redirect(_queue_url(query))


@staff_required
@require_POST
def staff_view_share(request, view_id):
    """Share one of the staff member's saved views with the desk, or stop."""
    shared = request.POST.get("shared") == "on"
    view = services.saved_view_share(user=request.user, pk=view_id, shared=shared)
    if view is not None:
        message = (
            _("View “%(name)s” is shared with the desk.")
            if shared
            else _("View “%(name)s” is yours only again.")
        )
        messages.success(request, message % {"name": view.name})
    return redirect("proposals:review_queue")


@staff_required
@require_POST
def staff_view_delete(request, view_id):
    """Delete one of the staff member's saved views."""
    view = services.saved_view_delete(user=request.user, pk=view_id)
    if view is not None:
        messages.success(request, _("View “%(name)s” deleted.") % {"name": view.name})
    return redirect("proposals:review_queue")
