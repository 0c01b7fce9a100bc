"""The staff's diff page: what changed between two revisions of a proposal (or the
latest and the current draft), field by field, with the change in tier and findings."""

from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from proposals import assess, exports, selectors
from proposals.domain import technical_review
from proposals.domain.documents import diff_documents, diff_findings, flatten
from proposals.domain.fields import row_names
from proposals.domain.tiers import tier_label
from proposals.http import parse_int
from proposals.review_page import choice_name
from proposals.views import proposal_revision, staff_proposal
from proposals.views.review import document_of, staff_required


@staff_required
@require_GET
def staff_diff(request, pk):
    """What changed between two revisions (or the latest and the current draft),
    field by field, with the change in tier and findings."""
    proposal = staff_proposal(request, pk)
    revisions = list(selectors.review_revisions(proposal=proposal))
    latest = proposal.review_state.latest_revision.number
    first = revisions[0].number

    def number(name: str, default: int):
        value = request.GET.get(name, "")
        if value == "current":
            return "current"
        return parse_int(value, name=name, default=default)

    a = number("a", latest - 1 if latest > first else first)
    b = number("b", latest)
    old = _side(proposal, a)
    new = _side(proposal, b)
    sections = diff_documents(
        old["document"],
        new["document"],
        choice_name,
        old_ids=old["row_ids"],
        new_ids=new["row_ids"],
    )
    return TemplateResponse(
        request,
        "proposals/staff_diff.html",
        {
            "proposal": proposal,
            "revisions": revisions,
            "a": a,
            "b": b,
            "old": old,
            "new": new,
            "sections": sections,
            # Who made each change (the later side's field stamps), by path.
            "authors": selectors.change_authors(
                [change for section in sections for change in section.rows],
                new["stamps"],
                {path for path, _value in flatten(new["document"])},
            ),
            "findings": diff_findings(
                old["findings"], new["findings"], row_names(new["document"])
            ),
            "tier_changed": old["tier"] != new["tier"],
        },
    )


def _side(proposal, number) -> dict:
    """One side of a diff: a stored revision, or the live draft."""
    if number == "current":
        assessment = assess.assess_proposal(proposal)
        return {
            "label": _("current draft"),
            "document": document_of(proposal),
            "tier": assessment.tier or "",
            "tier_label": assessment.mode_label,
            "findings": [f.to_dict() for f in assessment.findings],
            "counts": assessment.counts,
            "stamps": selectors.stamps_by_path(proposal=proposal),
            "row_ids": selectors.row_ids_of(proposal=proposal),
        }
    revision = proposal_revision(proposal, number)
    # Recorded in the portal's English: worded again in the reader's language (and
    # number format) from the revision assessed again, as the review page does.
    fresh = exports.source_from_snapshot(revision.snapshot, revision=revision.number)
    return {
        "label": _("revision %(number)s") % {"number": revision.number},
        "revision": revision,
        "document": revision.snapshot,
        "tier": revision.tier,
        "tier_label": tier_label(revision.tier or None),
        "findings": technical_review.reworded(
            revision.findings, fresh.assessment.findings
        ),
        "stamps": revision.stamps or {},
        "row_ids": revision.row_ids or {},
        "counts": {
            "error": revision.error_count,
            "warning": revision.warning_count,
            "info": revision.info_count,
        },
    }
