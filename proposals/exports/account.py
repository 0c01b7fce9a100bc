"""Everything the wizard holds about a person, as one zip file (the data export of
the privacy notice; reads only).

``account.json`` describes the account and lists every proposal with its status
history, the review comments the applicant can read and the revisions sent for
review; each proposal's current content (as its JSON export, with the names of its
team) and each revision are files of their own in the ``aifactory-proposal/1``
format (docs/proposal-format.md), so any of them can be imported again.

The teams of others' proposals that the person is a member of are listed too (the
proposal, their role, since when, whether they switched its mail off, and the
comments they wrote there), but not those proposals' content: that is their
owner's (a member who may export it does so from the proposal).
"""

import io
import json
import zipfile

from django.utils import timezone

from proposals import domain, selectors
from proposals.domain import jsonformat
from proposals.exports.jsonio import export_text

SCHEMA = "aifactory-account-export/1"


def _when(moment) -> str | None:
    return moment.isoformat() if moment is not None else None


def _revision_text(snapshot: dict) -> str:
    """A stored snapshot in the format's own order (the database may reorder keys);
    a snapshot the current reader refuses is written as stored."""
    try:
        return domain.dumps(jsonformat.parse(snapshot))
    except domain.FormatError:
        return json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n"


def _account(user) -> dict:
    profile = getattr(user, "account", None)
    preferences = getattr(user, "preferences", None)
    return {
        "username": user.get_username(),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "email_confirmed_at": _when(profile.verified_at if profile else None),
        "number_format": preferences.number_format if preferences else None,
        "time_zone": preferences.time_zone if preferences else None,
        "language": preferences.language if preferences else None,
        "browser_language": preferences.browser_language if preferences else None,
        # Sign-in with an OpenID Connect provider: who the provider says they are.
        "provider_identities": [
            {
                "issuer": identity.issuer,
                "subject": identity.subject,
                "email": identity.email,
                "linked_at": _when(identity.linked_at),
                "last_used_at": _when(identity.last_used_at),
            }
            for identity in user.identities.order_by("linked_at")
        ],
    }


def _comment(comment, user) -> dict:
    return {
        "id": comment.pk,
        "reply_to": comment.parent_id,
        "by": "you" if comment.author_id == user.pk else "support staff",
        "at": _when(comment.created_at),
        "section": comment.get_section_display(),
        "field": comment.field_label,
        "text": comment.body,
    }


def _membership(membership, user) -> dict:
    proposal = membership.proposal
    return {
        "proposal": proposal.pk,
        "title": proposal.title,
        "role": membership.role,
        "since": _when(membership.since),
        "mail_switched_off": membership.muted,
        "deleted_at": _when(proposal.deleted_at),
        "comments": [_comment(comment, user) for comment in proposal.own_comments],
    }


def account_archive(*, user, now=None) -> tuple[str, bytes]:
    """The zip file's name and bytes for ``user``."""
    now = now or timezone.now()
    files: dict[str, str] = {}
    proposals = []
    for proposal in selectors.account_data_proposals(user=user):
        current = f"proposals/{proposal.pk}/current.json"
        files[current] = export_text(proposal)
        revisions = []
        for revision in proposal.revisions.all():
            name = f"proposals/{proposal.pk}/r{revision.number}.json"
            files[name] = _revision_text(revision.snapshot)
            revisions.append(
                {
                    "number": revision.number,
                    "sent_at": _when(revision.created_at),
                    "file": name,
                }
            )
        proposals.append(
            {
                "id": proposal.pk,
                "title": proposal.title,
                "status": proposal.get_status_display(),
                "created_at": _when(proposal.created_at),
                "updated_at": _when(proposal.updated_at),
                "archived_at": _when(proposal.archived_at),
                "deleted_at": _when(proposal.deleted_at),
                "file": current,
                "revisions": revisions,
                "status_history": [
                    {
                        "from": change.get_from_status_display(),
                        "to": change.get_to_status_display(),
                        "at": _when(change.at),
                        "note": change.note,
                    }
                    for change in proposal.status_changes.all()
                ],
                "comments": [
                    _comment(comment, user)
                    for comment in proposal.review_comments.all()
                ],
            }
        )
    summary = {
        "format": SCHEMA,
        "exported_at": _when(now),
        "account": _account(user),
        "proposals": proposals,
        "member_of": [
            _membership(membership, user)
            for membership in selectors.account_memberships(user=user)
        ],
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "account.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
        )
        for name, text in files.items():
            archive.writestr(name, text)
    name = f"aifactory-data-{user.pk}-{timezone.localdate(now):%Y-%m-%d}.zip"
    return name, buffer.getvalue()
