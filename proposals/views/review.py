"""The review workflow pages.

Applicant pages use the owner-only selector (anybody else gets a 404). Staff pages
answer 404 to every signed-in user outside the "Support staff" group, so they do not
reveal that a proposal exists. Forms post normally and work without JavaScript; with
htmx the comment forms swap only their own section's threads.
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from proposals import assess, selectors, services
from proposals.domain import jsonformat, workflow
from proposals.domain.documents import layout
from proposals.domain.sections import SECTION_SLUGS
from proposals.domain.team import Capability
from proposals.live import live_context
from proposals.models import ReviewComment
from proposals.review_forms import (
    CommentForm,
    SubmitForm,
)
from proposals.views import member_proposal

# The wizard's last step has no comment section of its own: it shows the general one.
STEP_SECTIONS = {"review": ReviewComment.Section.GENERAL}


def staff_required(view):
    """Sign-in first (login redirect), then 404 for anybody outside the staff."""

    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not selectors.user_is_support_staff(user=request.user):
            raise Http404("No such page.")
        return view(request, *args, **kwargs)

    return wrapped


def _section_or_404(section: str) -> str:
    section = STEP_SECTIONS.get(section, section)
    if section not in ReviewComment.Section.values:
        raise Http404("No such section.")
    return section


def document_of(proposal) -> dict:
    return jsonformat.dump(assess.proposal_to_domain(proposal))


def _threads_response(
    request,
    proposal,
    section: str,
    *,
    staff: bool,
    form=None,
    template="proposals/review_threads.html",
):
    """The threads of one section: the htmx answer to a comment form."""
    threads = selectors.review_comment_threads(
        proposal=proposal, include_staff_only=staff, section=section
    )[0]
    field_rows = None
    if staff and section in SECTION_SLUGS:
        field_rows = next(
            s.rows for s in layout(document_of(proposal)) if s.key == section
        )
    return TemplateResponse(
        request,
        template,
        {
            "proposal": proposal,
            "section": threads,
            "staff_view": staff,
            "comment_url": comment_url_for(proposal, staff),
            "form": form,
            "field_rows": field_rows,
            "canned_replies": (
                selectors.canned_replies_for(language=get_language()) if staff else ()
            ),
        },
    )


def comment_url_for(proposal, staff: bool) -> str:
    name = "proposals:staff_comment" if staff else "proposals:review_comment"
    return reverse(name, args=[proposal.pk])


def add_comment(request, proposal, *, staff: bool):
    form = CommentForm(request.POST)
    section = request.POST.get("section", "")
    if form.is_valid():
        data = form.cleaned_data
        section = data["section"]
        parent = selectors.review_comment_for(
            proposal=proposal, pk=data["parent"], include_staff_only=staff
        )
        if data["parent"] and parent is None:
            raise Http404("No such comment.")
        try:
            comment = services.comment_add(
                proposal=proposal,
                author=request.user,
                section=section,
                body=data["body"],
                field=data["field"],
                parent=parent,
                staff_only=staff and data["staff_only"],
                shown_revision=data["revision"] if staff else None,
            )
        except services.ReviewError as exc:
            form.add_error(None, str(exc))
        else:
            form = None
            section = comment.section  # a reply joins its thread's section
            if not request.htmx:
                messages.success(request, _("Comment added."))
    if form is not None and not request.htmx:
        messages.error(request, _("The comment was not added: write something first."))
    if request.htmx and section in ReviewComment.Section.values:
        return _threads_response(request, proposal, section, staff=staff, form=form)
    name = "proposals:staff_review" if staff else "proposals:review_status"
    anchor = f"#comments-{section}" if section in SECTION_SLUGS else ""
    return redirect(reverse(name, args=[proposal.pk]) + anchor)


# Applicant ------------------------------------------------------------------------


@login_required
@require_GET
def review_status(request, pk):
    """The applicant's view of the review: status, history, staff comments."""
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    targets = workflow.allowed_targets(proposal.status, workflow.APPLICANT)
    return TemplateResponse(
        request,
        "proposals/review_status.html",
        {
            "proposal": proposal,
            # "Send for review": when the status allows it and the role may send.
            "can_submit": workflow.SUBMITTED in targets
            and selectors.member_may(proposal, Capability.SEND),
            "can_edit": selectors.member_may(proposal, Capability.EDIT),
            "changes": selectors.review_status_changes(proposal=proposal),
            "revisions": selectors.review_revisions(proposal=proposal),
            # Who changed what in each revision sent (the history names them).
            "authors_by_revision": selectors.revision_authors(proposal=proposal),
            "assessments": selectors.review_assessments(proposal=proposal),
            "sections": selectors.review_comment_threads(
                proposal=proposal, include_staff_only=False
            ),
            "comment_url": comment_url_for(proposal, staff=False),
            "staff_view": False,
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def review_send(request, pk):
    """Send for review: GET confirms (listing the error findings), POST sends."""
    proposal = member_proposal(request, pk, may=Capability.SEND)
    form = SubmitForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            revision = services.review_submit(
                proposal=proposal,
                user=request.user,
                note=form.cleaned_data["note"],
                unchanged_ok=form.cleaned_data["unchanged"],
            )
        except services.ReviewError as exc:
            messages.error(request, str(exc))
            if isinstance(exc, services.UnchangedSince):
                return redirect("proposals:review_send", pk=proposal.pk)
        else:
            messages.success(
                request,
                _(
                    "Sent for review as revision %(number)s. "
                    "You will get an e-mail when the staff answer."
                )
                % {"number": revision.number},
            )
        return redirect("proposals:review_status", pk=proposal.pk)
    # The findings as the wizard places them (no chart: this page shows none).
    live = live_context(proposal)
    return TemplateResponse(
        request,
        "proposals/review_send.html",
        {
            "proposal": proposal,
            "form": form,
            "can_submit": workflow.SUBMITTED
            in workflow.allowed_targets(proposal.status, workflow.APPLICANT),
            "errors": [
                item for item in live["findings"] if item["finding"].severity == "error"
            ],
            "assessment": live["assessment"],
            "tier_label": live["tier_label"],
            "unchanged_since": selectors.unchanged_since(proposal=proposal),
        },
    )


@login_required
@require_POST
def review_comment(request, pk):
    """The applicant adds a comment or replies to a staff comment."""
    proposal = member_proposal(request, pk, may=Capability.COMMENT, children=False)
    return add_comment(request, proposal, staff=False)


@login_required
@require_GET
def review_step_comments(request, pk, section):
    """htmx fragment: the staff comments on one wizard step, to show beside it."""
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    section = _section_or_404(section)
    return _threads_response(
        request,
        proposal,
        section,
        staff=False,
        template="proposals/review_step_comments.html",
    )
