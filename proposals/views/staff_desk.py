"""The help desk's tools around the queue and the review page: canned replies,
bulk actions on the queue, saved views of the queue."""

from django.http import Http404
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from proposals import routing, selectors
from proposals.domain import canned, numbers
from proposals.domain.tiers import tier_label
from proposals.models import ReviewComment
from proposals.views import staff_proposal
from proposals.views.review import staff_required
from proposals.views.staff import _review_page

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
    response = _review_page(request, proposal)
    response.context_data["prefill"] = prefill
    return response
