"""E-mails of the review workflow: who is told what. Each function returns the
mails to send; the services store them with the action (``services.mail_queue``) and a
worker sends them after the commit, so nothing is sent for a write that was rolled back
and a mail server outage never breaks the action.

Links are absolute when the view passes the site's base URL (``link_base``), and
site-relative otherwise (management commands, tests).
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.urls import reverse

from proposals import localization
from proposals.selectors import STAFF_GROUP, verified_addresses


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    body: str


def _messages(template: str, context: dict, recipients) -> list[Mail]:
    """One mail per recipient whose address is verified: nothing is sent to an
    address its owner has not confirmed."""
    recipients = verified_addresses(addresses=recipients)
    people = {
        user.email: user
        for user in get_user_model().objects.filter(email__in=recipients)
    }
    mails = []
    for address in sorted(recipients):
        # Numbers and times in the recipient's format and zone.
        with localization.for_recipient(people.get(address)):
            subject = render_to_string(f"emails/{template}_subject.txt", context)
            body = render_to_string(f"emails/{template}.txt", context)
        mails.append(Mail(address, " ".join(subject.split()), body))
    return mails


def staff_addresses(*, exclude=None) -> list[str]:
    """E-mail addresses of the active support staff, without ``exclude``'s."""
    users = get_user_model().objects.filter(groups__name=STAFF_GROUP, is_active=True)
    if exclude is not None:
        users = users.exclude(pk=exclude.pk)
    return sorted({email for email in users.values_list("email", flat=True) if email})


def submission_to_staff(*, revision, state=None, link_base: str = "") -> list[Mail]:
    """Tell the staff that a proposal waits for review: its handler if it has
    one, otherwise every support staff member."""
    url = link_base + reverse("proposals:staff_review", args=[revision.proposal_id])
    context = {"revision": revision, "proposal": revision.proposal, "url": url}
    return _messages("review_submitted", context, handler_or_staff(state))


def _applicant_has_it(proposal) -> bool:
    """Whether the applicant still has the proposal: a deleted one is not mailed
    about, since every link to it would answer 404."""
    return proposal.deleted_at is None


def status_to_applicant(*, change, link_base: str = "") -> list[Mail]:
    """Tell the applicant that staff changed the status (with the staff's note)."""
    proposal = change.proposal
    if not _applicant_has_it(proposal):
        return []
    url = link_base + reverse("proposals:review_status", args=[proposal.pk])
    context = {"change": change, "proposal": proposal, "url": url}
    return _messages("review_status", context, [proposal.owner.email])


def comment_to_applicant(*, comment, link_base: str = "") -> list[Mail]:
    """Send a staff comment to the applicant; internal notes are never sent."""
    proposal = comment.proposal
    if comment.staff_only or not _applicant_has_it(proposal):
        return []
    url = link_base + reverse("proposals:review_status", args=[proposal.pk])
    context = {"comment": comment, "proposal": proposal, "url": url}
    return _messages("review_comment", context, [proposal.owner.email])


def reply_to_staff(*, comment, state=None, link_base: str = "") -> list[Mail]:
    """Tell the staff member whose comment the applicant answered (or, for a new
    thread, the proposal's handler, or every staff member without one) about the
    applicant's message."""
    proposal = comment.proposal
    parent_author = comment.parent.author if comment.parent_id else None
    if parent_author is not None and parent_author.email:
        recipients = [parent_author.email]
    else:
        recipients = handler_or_staff(state)
    url = link_base + reverse("proposals:staff_review", args=[proposal.pk])
    context = {"comment": comment, "proposal": proposal, "url": url}
    return _messages("review_reply", context, recipients)


def edit_to_staff(*, change, state=None, link_base: str = "") -> list[Mail]:
    """Tell the staff that the applicant edited a proposal under review or ready
    to submit: its handler if it has one, otherwise every staff member."""
    proposal = change.proposal
    url = link_base + reverse("proposals:staff_review", args=[proposal.pk])
    context = {"change": change, "proposal": proposal, "url": url}
    return _messages("review_edited", context, handler_or_staff(state))


def handler_or_staff(state) -> list[str]:
    """The handler's address when the proposal has one, else every staff member's."""
    handler = getattr(state, "handled_by", None) if state is not None else None
    if handler is not None and handler.is_active and handler.email:
        return [handler.email]
    return staff_addresses()


def handover_to_staff(*, state, by, link_base: str = "") -> list[Mail]:
    """Tell a staff member that a colleague handed them a proposal."""
    proposal = state.proposal
    url = link_base + reverse("proposals:staff_review", args=[proposal.pk])
    context = {"proposal": proposal, "by": by, "url": url, "state": state}
    return _messages("review_handover", context, [state.handled_by.email])
