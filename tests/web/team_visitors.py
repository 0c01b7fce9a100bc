"""The people who may come to a proposal's pages, made the way the team services
make them (an invitation accepted, a member removed), and a reader of the controls
a page shows (what a visitor could type into, press or post to)."""

import secrets
from datetime import timedelta
from html.parser import HTMLParser

from django.utils import timezone

from proposals.domain.team import INVITATION_DAYS, Role
from proposals.models import Invitation, Membership, Proposal
from proposals.services import team
from tests.factories import UserFactory

# Every kind of visitor of an applicant's page, signed in but the last.
VISITORS = (
    "owner",
    "editor",
    "viewer",
    "invited",  # an open invitation for their address, not accepted
    "removed",  # was a viewer, removed by the owner
    "stranger",  # signed in, never on the team
    "anonymous",
)


def member(proposal, role: str, **names):
    """A new account on ``proposal``'s team as ``role`` (as an accepted invitation
    leaves it: a membership row and its invitation, accepted)."""
    person = UserFactory(**names)
    now = timezone.now()
    _invitation(proposal, person, role, accepted_at=now, accepted_by=person)
    Membership.objects.create(proposal=proposal, user=person, role=role, since=now)
    return person


def _invitation(proposal, person, role, **accepted):
    now = timezone.now()
    return Invitation.objects.create(
        proposal=proposal,
        email=person.email,
        role=role,
        token_hash=team.token_hash(secrets.token_urlsafe(32)),
        invited_by=proposal.owner,
        created_at=now,
        expires_at=now + timedelta(days=INVITATION_DAYS),
        **accepted,
    )


def visitor(proposal, kind: str):
    """The account of one of ``VISITORS`` (``None`` for anonymous)."""
    if kind == "owner":
        return proposal.owner
    if kind in (Role.EDITOR, Role.VIEWER):
        return member(proposal, kind)
    if kind == "invited":  # an open invitation, as an editor
        person = UserFactory()
        _invitation(proposal, person, Role.EDITOR)
        return person
    if kind == "removed":  # an editor the owner removed
        person = member(proposal, Role.EDITOR)
        membership = Membership.objects.get(proposal=proposal, user=person)
        team.member_remove(membership=membership, by=proposal.owner)
        return person
    if kind == "stranger":
        return UserFactory()
    assert kind == "anonymous", kind
    return None


TABLES = ("codes", "jobs", "measurements", "schedule")


def proposal_data(pk) -> dict:
    """The proposal and the rows of its four tables, as stored."""
    proposal = Proposal.objects.get(pk=pk)
    data = {"proposal": Proposal.objects.filter(pk=pk).values().get()}
    for kind in TABLES:
        data[kind] = list(getattr(proposal, kind).order_by("pk").values())
    return data


VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
    "source", "track", "wbr",
}  # fmt: skip


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.text = []

    def has(self, name) -> bool:
        return name in self.attrs

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def inside(self, **attrs) -> bool:
        """Whether an ancestor (or the element itself) has all of ``attrs``."""
        for node in (self, *self.ancestors()):
            if all(node.attrs.get(k) == v for k, v in attrs.items()):
                return True
        return False

    def __repr__(self):
        shown = " ".join(f'{k}="{v}"' for k, v in self.attrs.items())
        return f"<{self.tag} {shown}>"


class Page(HTMLParser):
    """Every element of a page with its attributes and its ancestors."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        parent = self._open[-1] if self._open else None
        element = Element(tag, {k: "" if v is None else v for k, v in attrs}, parent)
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self._open.pop()

    def handle_endtag(self, tag):
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                del self._open[index:]
                return

    def handle_data(self, data):
        if self._open:
            self._open[-1].text.append(data)

    def find(self, tag=None, **attrs) -> list[Element]:
        return [
            e
            for e in self.elements
            if (tag is None or e.tag == tag)
            and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def within(self, element: Element) -> list[Element]:
        return [e for e in self.elements if element in e.ancestors()]

    def posts(self) -> set[str]:
        """Every URL the page can post to: forms, ``formaction`` and ``hx-post``
        (``hx-post=""`` posts to the page itself: said as ``""``)."""
        urls = set()
        for e in self.elements:
            if e.tag == "form" and e.attrs.get("method", "get").lower() == "post":
                urls.add(e.attrs.get("action", ""))
            for name in ("formaction", "hx-post", "hx-put", "hx-patch", "hx-delete"):
                if name in e.attrs:
                    urls.add(e.attrs[name])
        return urls

    def links(self) -> set[str]:
        return {e.attrs["href"] for e in self.elements if "href" in e.attrs}
