"""What sending a proposal for review again would send: whether it is exactly
what the staff already have."""

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from proposals import assess
from proposals.domain import jsonformat
from proposals.models import Proposal, ProposalRevision


def submission_document(*, proposal: Proposal) -> dict:
    """The proposal as a revision would keep it (the JSON format), read fresh
    with its rows."""
    loaded = assess.with_children(Proposal.objects.filter(pk=proposal.pk)).get()
    return jsonformat.dump(assess.proposal_to_domain(loaded))


def latest_revision(*, proposal: Proposal) -> ProposalRevision | None:
    """The proposal's latest revision (its number, date and snapshot), or None."""
    return (
        ProposalRevision.objects.filter(proposal=proposal)
        .order_by("-number")
        .only("number", "created_at", "snapshot")
        .first()
    )


def unchanged_since(
    *, proposal: Proposal, document: dict | None = None
) -> ProposalRevision | None:
    """The latest revision when sending now would send exactly what it holds
    (``document``: the proposal as it is now, read when not given), else None."""
    latest = latest_revision(proposal=proposal)
    if latest is None:
        return None
    if document is None:
        document = submission_document(proposal=proposal)
    return latest if latest.snapshot == document else None


def unchanged_message(revision: ProposalRevision) -> str:
    """Why sending again was refused: nothing changed since ``revision``."""
    return _(
        "Nothing has changed since revision %(number)s was sent on %(date)s: "
        "nothing was sent. Change the proposal first, or confirm that you want "
        "to send it unchanged (say why in the message)."
    ) % {
        "number": revision.number,
        "date": date_format(timezone.localtime(revision.created_at), "DATE_FORMAT"),
    }
