"""E-mails of the review workflow: who is told what. Each function returns the
mails to send; the services store them with the action (``services.mail_queue``) and a
worker sends them after the commit, so nothing is sent for a write that was rolled back
and a mail server outage never breaks the action.

Links are absolute, built from the configured site address (``settings.SITE_URL``),
whatever caused the mail. A mail that no confirmed address can receive is still
returned, marked ``undeliverable`` with the reason: it is stored and shown to staff
under "Mail delivery", never dropped.

Staff mail about a proposal never goes to a staff member conflicted on it
(``selectors.staff_conflicted_on``: on its team, or declared a conflict with its
organisation); as a team member they still get the team's mail.
"""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import translation

from proposals import localization
from proposals.domain import technical_review
from proposals.domain.team import mentioned_names
from proposals.links import site_reverse, site_url
from proposals.models import NotificationMute
from proposals.models.preferences import StaffMail
from proposals.selectors import (
    STAFF_GROUP,
    address_confirmed,
    staff_conflicted_on,
    verified_addresses,
)


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    body: str
    # Why nobody can receive it (blank: it can be sent).
    undeliverable: str = ""


def _messages(template: str, context: dict, recipients) -> list[Mail]:
    """One mail per recipient whose address is verified: nothing is sent to an
    address its owner has not confirmed; each in its recipient's language, number
    format and time zone. When none of them is, one undeliverable mail (in English)
    says who it was for and why, for staff to see."""
    recipients = sorted({address for address in recipients if address})
    verified = verified_addresses(addresses=recipients)
    if verified:
        people = {
            user.email: user
            for user in get_user_model().objects.filter(email__in=verified)
        }
        mails = []
        for address in sorted(verified):
            # Language, numbers and times as the recipient chose.
            with localization.for_recipient(people.get(address)):
                subject = render_to_string(f"emails/{template}_subject.txt", context)
                body = render_to_string(f"emails/{template}.txt", context)
            mails.append(Mail(address, " ".join(subject.split()), body))
        return mails
    # For the staff's delivery log: in English, whatever page caused it.
    with translation.override(settings.LANGUAGE_CODE):
        subject = render_to_string(f"emails/{template}_subject.txt", context)
        body = render_to_string(f"emails/{template}.txt", context)
    subject = " ".join(subject.split())
    if recipients:
        reason = "Nobody confirmed the address: " + ", ".join(recipients) + "."
    else:
        reason = "Nobody to send it to: no active support staff member has an address."
    to = recipients[0] if len(recipients) == 1 else ""
    return [Mail(to, subject, body, undeliverable=reason)]


def staff_addresses(*, proposal, exclude=None, subscribed=False) -> list[str]:
    """E-mail addresses of the active support staff who may review ``proposal``
    (none conflicted on it: ``selectors.staff_conflicted_on``), without
    ``exclude``'s. ``subscribed``: only those who want every new proposal at once
    (``Preferences.staff_mail``: "all", or automatic before they first took one);
    when nobody does, the desk's shared address (``DESK_EMAIL``) if set."""
    users = get_user_model().objects.filter(groups__name=STAFF_GROUP, is_active=True)
    users = users.exclude(pk__in=staff_conflicted_on(proposal=proposal))
    if exclude is not None:
        users = users.exclude(pk=exclude.pk)
    if subscribed:
        users = users.exclude(
            preferences__staff_mail__in=[StaffMail.MINE, StaffMail.DIGEST]
        )
        found = sorted({e for e in users.values_list("email", flat=True) if e})
        return found or ([settings.DESK_EMAIL] if settings.DESK_EMAIL else [])
    return sorted({email for email in users.values_list("email", flat=True) if email})


def submission_to_staff(*, revision, state=None) -> list[Mail]:
    """Tell the staff that a proposal waits for review: its handler if it has
    one, otherwise every support staff member (none conflicted on it)."""
    proposal = revision.proposal
    url = site_reverse("proposals:staff_review", proposal.pk)
    context = {"revision": revision, "proposal": proposal, "url": url}
    return _messages(
        "review_submitted", context, handler_or_staff(proposal=proposal, state=state)
    )


def _applicant_has_it(proposal) -> bool:
    """Whether the applicant still has the proposal: a deleted one is not mailed
    about, since every link to it would answer 404."""
    return proposal.deleted_at is None


def _team_people(proposal):
    """The active accounts of ``proposal``'s team: its owner and its members."""
    return (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(pk=proposal.owner_id) | Q(memberships__proposal=proposal))
    )


def team_addresses(proposal, *, exclude=None) -> list[str]:
    """The addresses of ``proposal``'s team (owner and members) who did not switch
    its mail off, without ``exclude``'s (the person who caused the mail)."""
    members = _team_people(proposal).exclude(
        pk__in=NotificationMute.objects.filter(proposal=proposal).values("user")
    )
    if exclude is not None:
        members = members.exclude(pk=exclude.pk)
    return sorted({email for email in members.values_list("email", flat=True) if email})


def mentioned_members(*, comment) -> list:
    """The people of the proposal's team that ``comment`` names as ``@username``
    (compared casefolded), without its author. An internal staff note mentions
    nobody: its text never reaches the applicant's side."""
    if comment.staff_only:
        return []
    names = set(mentioned_names(comment.body))
    if not names:
        return []
    people = _team_people(comment.proposal).exclude(pk=comment.author_id).distinct()
    return [
        person
        for person in people.order_by("pk")
        if person.get_username().casefold() in names
    ]


def status_to_applicant(*, change) -> list[Mail]:
    """Tell the applicant's team that staff changed the status (with the staff's
    note)."""
    proposal = change.proposal
    if not _applicant_has_it(proposal):
        return []
    url = site_reverse("proposals:review_status", proposal.pk)
    context = {"change": change, "proposal": proposal, "url": url}
    return _messages("review_status", context, team_addresses(proposal))


def comment_to_applicant(*, comment, skip=()) -> list[Mail]:
    """Send a staff comment to the applicant's team, except the addresses in
    ``skip`` (told by a mention instead); internal notes are never sent."""
    proposal = comment.proposal
    if comment.staff_only or not _applicant_has_it(proposal):
        return []
    team = team_addresses(proposal)
    recipients = [address for address in team if address not in skip]
    if team and not recipients:
        return []  # every one of them is told by the mention
    url = site_reverse("proposals:review_status", proposal.pk)
    context = {"comment": comment, "proposal": proposal, "url": url}
    return _messages("review_comment", context, recipients)


def comment_to_team(*, comment, skip=()) -> list[Mail]:
    """Tell the rest of the team (not its author, not those who switched the
    proposal's mail off, not the addresses in ``skip``) about an applicant-side
    comment. Nothing for a team of one."""
    proposal = comment.proposal
    recipients = [
        address
        for address in team_addresses(proposal, exclude=comment.author)
        if address not in skip
    ]
    if not recipients or not _applicant_has_it(proposal):
        return []
    url = site_reverse("proposals:review_status", proposal.pk)
    context = {
        "comment": comment,
        "proposal": proposal,
        "url": url,
        "name": comment.author.get_full_name() or comment.author.get_username(),
    }
    return _messages("team_comment", context, recipients)


def mention_to_members(*, comment, mentioned) -> list[Mail]:
    """Tell each person ``mentioned`` (``mentioned_members``) that ``comment``
    names them, with its text and a link. Sent even to a member who switched the
    proposal's mail off: the switch silences the proposal's news, a mention is a
    colleague (or the staff) asking that person in particular."""
    proposal = comment.proposal
    if not mentioned or not _applicant_has_it(proposal):
        return []
    url = site_reverse("proposals:review_status", proposal.pk)
    author = comment.author
    context = {
        "comment": comment,
        "proposal": proposal,
        "url": url,
        "name": author.get_full_name() or author.get_username() if author else "",
    }
    return [
        mail
        for person in mentioned
        for mail in _messages("team_mention", context, [person.email])
    ]


def comment_mails(*, comment, state=None) -> list[Mail]:
    """Every mail a new comment causes. An internal staff note: none. A staff
    comment: the applicant's team. An applicant-side comment: the staff (its
    handler, or whom it answers) and the rest of the team. Either way each team
    member it mentions (``@username``) gets one mail that says so instead of the
    general one."""
    if comment.staff_only:
        return []
    mentioned = mentioned_members(comment=comment)
    told = {person.email for person in mentioned if person.email}
    mails = mention_to_members(comment=comment, mentioned=mentioned)
    if comment.by_staff:
        return comment_to_applicant(comment=comment, skip=told) + mails
    return (
        reply_to_staff(comment=comment, state=state)
        + comment_to_team(comment=comment, skip=told)
        + mails
    )


def invitation_to_person(*, invitation, token: str, by) -> list[Mail]:
    """The invitation to join a proposal's team, with its link, to the address
    the owner typed (not yet anybody's confirmed address: the link is accepted
    only by an account with that address). In the recipient's language when they
    have an account, else in the inviter's."""
    url = site_reverse("proposals:invitation", token)
    context = {
        "invitation": invitation,
        "proposal": invitation.proposal,
        "by": by,
        "url": url,
    }
    person = get_user_model().objects.filter(email__iexact=invitation.email).first()
    with localization.for_recipient(person or by):
        subject = render_to_string("emails/team_invitation_subject.txt", context)
        body = render_to_string("emails/team_invitation.txt", context)
    return [Mail(invitation.email, " ".join(subject.split()), body)]


def ownership_to_team(*, proposal, by, to) -> list[Mail]:
    """Tell the whole team that the proposal has a new owner."""
    url = site_reverse("proposals:team", proposal.pk)
    context = {"proposal": proposal, "by": by, "to": to, "url": url}
    return _messages("team_ownership", context, team_addresses(proposal))


def owner_gone_to_team(*, proposal, addresses, kept: bool) -> list[Mail]:
    """Tell the rest of a team (``addresses``, read before the deletion) that its
    owner deleted their account and, with no editor to take it over, the proposal
    went with it (``kept``: only the staff's copy of what was sent remains)."""
    if not addresses:
        return []
    context = {"proposal": proposal, "kept": kept}
    return _messages("team_owner_gone", context, addresses)


def _answered_staff_member(comment, conflicted):
    """The staff member the applicant's reply answers: the latest author of a
    staff comment the applicant can see in the thread (its opening comment
    included), if still active and not conflicted on the proposal (ids in
    ``conflicted``); ``None`` for a new thread, or when no such colleague is
    left."""
    if not comment.parent_id:
        return None
    thread = [comment.parent, *comment.parent.replies.exclude(pk=comment.pk)]
    for earlier in sorted(thread, key=lambda c: (c.created_at, c.pk), reverse=True):
        author = earlier.author
        if earlier.staff_only or not earlier.by_staff:
            continue  # the applicant never saw an internal note
        if author is not None and author.is_active and author.pk not in conflicted:
            return author if author.email else None
    return None


def reply_to_staff(*, comment, state=None) -> list[Mail]:
    """Tell the staff member whose comment the applicant answered (or, for a new
    thread, one with no staff comment or whose staff authors have left, the
    proposal's handler, or every staff member without one) about the applicant's
    message."""
    proposal = comment.proposal
    answered = _answered_staff_member(
        comment, staff_conflicted_on(proposal=proposal) if comment.parent_id else ()
    )
    recipients = (
        [answered.email]
        if answered
        else handler_or_staff(proposal=proposal, state=state)
    )
    url = site_reverse("proposals:staff_review", proposal.pk)
    context = {"comment": comment, "proposal": proposal, "url": url}
    return _messages("review_reply", context, recipients)


def edit_to_staff(*, change, state=None) -> list[Mail]:
    """Tell the staff that the applicant edited a proposal under review or ready
    to submit: its handler if it has one, otherwise every staff member."""
    proposal = change.proposal
    url = site_reverse("proposals:staff_review", proposal.pk)
    context = {"change": change, "proposal": proposal, "url": url}
    return _messages(
        "review_edited", context, handler_or_staff(proposal=proposal, state=state)
    )


def handler_or_staff(*, proposal, state=None) -> list[str]:
    """The handler's address when ``proposal`` has one who may review it, else
    every staff member's who may (none conflicted on it)."""
    handler = getattr(state, "handled_by", None) if state is not None else None
    if (
        handler is not None
        and handler.is_active
        and handler.email
        and handler.pk not in staff_conflicted_on(proposal=proposal)
    ):
        return [handler.email]
    return staff_addresses(proposal=proposal, subscribed=True)


def assessment_mails(*, assessment, by, state=None) -> list[Mail]:
    """Tell of a technical assessment just recorded: the applicant's team when it
    concerns them (``technical_review.concerns_applicant``: what it asks and
    where), else the desk (the handler, or the staff who get every new one; not
    ``by``, who recorded it)."""
    proposal = assessment.proposal
    context = {"assessment": assessment, "proposal": proposal, "by": by}
    if technical_review.concerns_applicant(assessment.outcome, assessment.items):
        if not _applicant_has_it(proposal):
            return []
        context["url"] = site_reverse("proposals:review_status", proposal.pk)
        return _messages("review_assessed", context, team_addresses(proposal))
    desk = set(handler_or_staff(proposal=proposal, state=state)) - {by.email}
    if not desk:
        return []
    context["url"] = site_reverse("proposals:staff_review", proposal.pk)
    return _messages("review_assessed_internal", context, desk)


def _free(person, proposal) -> bool:
    """Whether staff member ``person`` may be mailed about ``proposal``."""
    return person.pk not in staff_conflicted_on(proposal=proposal)


def handover_to_staff(*, state, by) -> list[Mail]:
    """Tell a staff member that a colleague handed them a proposal (never one
    conflicted on it: the service refuses that hand-over anyway)."""
    proposal = state.proposal
    if not _free(state.handled_by, proposal):
        return []
    url = site_reverse("proposals:staff_review", proposal.pk)
    context = {"proposal": proposal, "by": by, "url": url, "state": state}
    handler = state.handled_by
    mails = _messages("review_handover", context, [handler.email])
    if address_confirmed(user=handler):
        return mails
    # Stored "undeliverable" (sent by Retry once they confirm the address); as it
    # reaches nobody now, somebody else hears of the hand-over.
    others = handover_addresses(state=state, by=by)
    if not others:
        return mails
    context["handler"] = handler.get_full_name() or handler.get_username()
    return mails + _messages("review_handover_unconfirmed", context, others)


def handover_addresses(*, state, by) -> list[str]:
    """Who hears of a hand-over instead of a new handler whose address is
    unconfirmed (a mail to it would reach nobody): the desk's shared address
    (``DESK_EMAIL``), else the other staff who may review it."""
    handler = state.handled_by
    if settings.DESK_EMAIL:
        return [settings.DESK_EMAIL]
    return [
        address
        for address in staff_addresses(proposal=state.proposal, exclude=handler)
        if address != by.email
    ]


def taken_from_staff(*, state, by, previous) -> list[Mail]:
    """Tell a staff member that a colleague took over (or handed on, or released)
    a proposal they handled; not when they are conflicted on it since (the
    proposal is none of their business as staff)."""
    proposal = state.proposal
    if not _free(previous, proposal):
        return []
    url = site_reverse("proposals:staff_review", proposal.pk)
    context = {
        "proposal": proposal,
        "by": by,
        "url": url,
        "state": state,
        "previous": previous,
    }
    return _messages("review_taken", context, [previous.email])


def withdrawal_to_staff(*, change, state=None) -> list[Mail]:
    """Tell the handler (or every staff member) that the applicant withdrew a
    proposal under review by deleting it. The link is the staff's review page,
    which still answers."""
    proposal = change.proposal
    url = site_reverse("proposals:staff_review", proposal.pk)
    context = {"change": change, "proposal": proposal, "url": url}
    return _messages(
        "review_withdrawn", context, handler_or_staff(proposal=proposal, state=state)
    )


def cutoff_reminder_to_team(*, proposal, route, cutoff, days: int) -> list[Mail]:
    """Remind the team (those who did not switch the proposal's mail off) that
    its route's next cut-off is ``days`` away and the draft is not sent yet."""
    context = {
        "proposal": proposal,
        "route": route.label,
        "moment": cutoff.moment if cutoff.time is not None else cutoff.date,
        "timed": cutoff.time is not None,
        "days": days,
        "url": site_url(proposal.get_absolute_url()),
    }
    return _messages("cutoff_reminder", context, team_addresses(proposal))


def staff_digest(*, person, arrived, changed, since) -> list[Mail]:
    """The daily digest of staff member ``person``: the proposals that arrived
    and those that changed since ``since`` (``selectors.digest_of``), each with
    its link."""
    context = {
        "since": since,
        "arrived": [
            (s, site_reverse("proposals:staff_review", s.proposal_id)) for s in arrived
        ],
        "changed": [
            (s, site_reverse("proposals:staff_review", s.proposal_id)) for s in changed
        ],
        "queue": site_reverse("proposals:review_queue"),
        "settings": site_reverse("proposals:staff_settings"),
    }
    return _messages("staff_digest", context, [person.email])
