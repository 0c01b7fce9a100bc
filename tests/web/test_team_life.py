"""A proposal's team in the rest of the applicant's life: the list of proposals,
the mail of the team, account deletion and the JSON format (issue 31)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from proposals import services
from proposals.models import Membership, NotificationMute, OutgoingMail
from tests.factories import ProposalFactory, UserFactory

pytestmark = pytest.mark.django_db
LIST = reverse("proposals:list")


def join(proposal, user, role="editor", since=None):
    return Membership.objects.create(
        proposal=proposal, user=user, role=role, since=since or timezone.now()
    )


# --------------------------------------------------------------------------------------
# The proposal list
# --------------------------------------------------------------------------------------


def _item(html, title):
    """The list item of the proposal ``title``."""
    start = html.index(f">{title}</a>")
    start = html.rindex("<li", 0, start)
    return html[start : html.index("</li>", start)]


def test_the_list_marks_shared_proposals_and_offers_what_the_role_allows(
    user, user_client
):
    owner = UserFactory(username="ann", first_name="Ann", last_name="Owner")
    own = ProposalFactory(owner=user, title="Mine")
    edited = ProposalFactory(owner=owner, title="Edited together")
    viewed = ProposalFactory(owner=owner, title="Only read")
    join(edited, user, "editor")
    join(viewed, user, "viewer")
    ProposalFactory(owner=owner, title="Not shared")

    html = user_client.get(LIST).text

    assert "Not shared" not in html
    mine = _item(html, "Mine")
    assert "Shared with you" not in mine
    for action in ("proposals:duplicate", "proposals:archive", "proposals:delete"):
        assert reverse(action, args=[own.pk]) in mine
    editor = _item(html, "Edited together")
    assert "Shared with you by Ann Owner · your role: Editor" in editor
    assert reverse("proposals:duplicate", args=[edited.pk]) in editor
    assert reverse("proposals:archive", args=[edited.pk]) not in editor
    assert reverse("proposals:delete", args=[edited.pk]) not in editor
    viewer = _item(html, "Only read")
    assert "Shared with you by Ann Owner · your role: Viewer" in viewer
    assert "proposal-actions" not in viewer
    for action in ("proposals:duplicate", "proposals:archive", "proposals:delete"):
        assert reverse(action, args=[viewed.pk]) not in viewer


def test_the_list_reads_shared_proposals_in_a_fixed_number_of_queries(
    user, user_client
):
    def shared(count):
        for n in range(count):
            proposal = ProposalFactory(owner=UserFactory(first_name=f"Owner{n}"))
            join(proposal, user, "viewer" if n % 2 else "editor")
        with CaptureQueriesContext(connection) as queries:
            html = user_client.get(LIST).text
        return html, len(queries)

    html, one = shared(1)
    assert html.count('data-testid="shared-with-you"') == 1
    html, six = shared(5)
    assert html.count('data-testid="shared-with-you"') == 6
    assert six == one  # the owners come with the proposals, not one query each


# --------------------------------------------------------------------------------------
# The team's mail: comments and mentions
# --------------------------------------------------------------------------------------


@pytest.fixture
def team(submitted):
    """``submitted`` (owned by ``user``) with an editor Ed and a viewer Vi."""
    ed = UserFactory(username="Ed", first_name="Ed", last_name="Itor")
    vi = UserFactory(username="vi", first_name="Vi", last_name="Ewer")
    join(submitted, ed, "editor")
    join(submitted, vi, "viewer")
    OutgoingMail.objects.all().delete()
    return submitted, ed, vi


def mails():
    """The mails stored so far: address -> subjects."""
    sent = {}
    for mail in OutgoingMail.objects.order_by("pk"):
        sent.setdefault(mail.to, []).append(mail.subject)
    return sent


def test_a_members_comment_tells_the_rest_of_the_team_not_its_author(
    team, user, staff_user
):
    proposal, ed, vi = team
    services.comment_add(
        proposal=proposal, author=ed, section="codes", body="I added the version."
    )
    sent = mails()
    title = proposal.title
    assert sent[user.email] == [f"Ed Itor commented on {title}"]
    assert sent[vi.email] == [f"Ed Itor commented on {title}"]
    assert ed.email not in sent
    assert sent[staff_user.email] == [f"Applicant wrote on {title}"]
    body = OutgoingMail.objects.get(to=vi.email).body
    assert "I added the version." in body
    assert reverse("proposals:review_status", args=[proposal.pk]) in body


def test_a_team_of_one_gets_no_mail_about_its_own_comment(submitted, user, staff_user):
    OutgoingMail.objects.all().delete()
    services.comment_add(proposal=submitted, author=user, section="codes", body="Hi")
    assert mails() == {staff_user.email: [f"Applicant wrote on {submitted.title}"]}


def test_a_member_who_switched_the_mail_off_is_not_told_of_comments(team, user):
    proposal, ed, vi = team
    NotificationMute.objects.create(proposal=proposal, user=vi)
    services.comment_add(proposal=proposal, author=ed, section="codes", body="Done.")
    sent = mails()
    assert vi.email not in sent and user.email in sent


def test_a_mention_mails_the_member_once_instead_of_the_general_mail(
    team, user, staff_user
):
    proposal, ed, vi = team
    services.comment_add(
        proposal=proposal,
        author=staff_user,
        section="codes",
        body="@ed, which PyTorch version? (@nobody and @vi.)",
    )
    sent = mails()
    title = proposal.title
    assert sent[ed.email] == [f"The support staff mentioned you on {title}"]
    assert sent[vi.email] == [f"The support staff mentioned you on {title}"]
    assert sent[user.email] == [f"New comment on {title}"]
    body = OutgoingMail.objects.get(to=ed.email).body
    assert "which PyTorch version?" in body
    assert reverse("proposals:review_status", args=[proposal.pk]) in body


def test_a_members_mention_reaches_a_member_who_switched_the_mail_off(team, user):
    proposal, ed, vi = team
    NotificationMute.objects.create(proposal=proposal, user=vi)
    services.comment_add(
        proposal=proposal, author=ed, section="scalability", body="@VI can you check?"
    )
    sent = mails()
    assert sent[vi.email] == [f"Ed Itor mentioned you on {proposal.title}"]
    assert sent[user.email] == [f"Ed Itor commented on {proposal.title}"]
    assert ed.email not in sent


def test_an_internal_note_mentions_nobody(team, user, staff_user):
    proposal, ed, vi = team
    services.comment_add(
        proposal=proposal,
        author=staff_user,
        section="codes",
        body="@ed seems to be new at this",
        staff_only=True,
    )
    assert mails() == {}


def test_only_members_of_that_proposal_are_mentioned(team, user, other_user):
    proposal, ed, vi = team
    stranger = UserFactory(username="stranger")
    join(ProposalFactory(owner=other_user), stranger, "editor")
    services.comment_add(
        proposal=proposal,
        author=ed,
        section="codes",
        body=f"@stranger @{other_user.username} @{user.username}",
    )
    sent = mails()
    assert stranger.email not in sent and other_user.email not in sent
    assert sent[user.email] == [f"Ed Itor mentioned you on {proposal.title}"]
