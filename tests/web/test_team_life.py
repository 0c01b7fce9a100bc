"""A proposal's team in the rest of the applicant's life: the list of proposals,
the mail of the team, account deletion and the JSON format (issue 31)."""

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from proposals import services
from proposals.exports.portal import portal_text
from proposals.models import (
    FieldStamp,
    Membership,
    NotificationMute,
    OutgoingMail,
    Proposal,
    TeamEvent,
)
from tests.factories import PASSWORD, ProposalFactory, UserFactory
from tests.web.test_exports import get_pdf, load_demo, pdf_text

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

    # The session's first page notes the page's language once
    # (localization.follow_page_language): not what is counted here.
    user_client.get(LIST)
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


def test_a_mention_and_a_team_comment_are_written_in_each_readers_language(team, user):
    proposal, ed, vi = team
    services.preferences_set(user=vi, number_format="en_GB", language="fr")
    services.preferences_set(user=user, number_format="en_GB", language="de")
    services.comment_add(proposal=proposal, author=ed, section="codes", body="@vi ?")
    sent = mails()
    assert sent[vi.email] == [f"Ed Itor vous a mentionné sur {proposal.title}"]
    assert sent[user.email] == [f"Ed Itor hat {proposal.title} kommentiert"]
    body = OutgoingMail.objects.get(to=user.email).body
    assert "auf der Team-Seite des Antrags abschalten" in body


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


# --------------------------------------------------------------------------------------
# Deleting an account
# --------------------------------------------------------------------------------------

DELETE = reverse("account_delete")


def _days_ago(days):
    return timezone.now() - timedelta(days=days)


@pytest.fixture
def teams(user):
    """``user`` owns one proposal with an editor (and an older viewer and a newer
    editor) and one draft with a viewer only."""
    first = UserFactory(username="first", first_name="First", last_name="Editor")
    later = UserFactory(username="later")
    viewer = UserFactory(username="viewer")
    shared = ProposalFactory(owner=user, title="With editors")
    join(shared, viewer, "viewer", since=_days_ago(30))
    join(shared, later, "editor", since=_days_ago(5))
    join(shared, first, "editor", since=_days_ago(10))
    read_only = ProposalFactory(owner=user, title="With a viewer")
    join(read_only, viewer, "viewer")
    OutgoingMail.objects.all().delete()
    return shared, read_only, first, later, viewer


def test_the_deletion_page_asks_an_owner_to_hand_team_proposals_over_first(
    user_client, teams
):
    shared, read_only, *_ = teams
    page = user_client.get(DELETE).text
    section = page[page.index('data-testid="delete-team"') :]
    section = section[: section.index("</div>")]
    assert "Hand each of them over to one of its members on its Team page" in section
    assert f'href="/proposals/{shared.pk}/team/">With editors</a>' in section
    assert "First Editor, its longest-standing editor, becomes its owner" in section
    assert f'href="/proposals/{read_only.pk}/team/">With a viewer</a>' in section
    assert "it has no editor to take it over" in section
    assert "its viewer loses it" in section
    # Only the viewer's draft goes with the account.
    assert "Your 1 draft never sent for review is deleted" in page


def test_deleting_an_owner_hands_team_proposals_to_the_longest_standing_editor(
    user_client, user, teams, django_capture_on_commit_callbacks
):
    shared, read_only, first, later, viewer = teams
    with django_capture_on_commit_callbacks(execute=False):
        response = user_client.post(DELETE, {"password": PASSWORD}, follow=True)
    assert "1 proposal with a team now belongs to its longest-standing editor." in (
        response.text
    )
    shared.refresh_from_db()
    assert shared.owner == first and shared.deleted_at is None
    assert set(shared.memberships.values_list("user__username", "role")) == {
        ("later", "editor"),
        ("viewer", "viewer"),
    }
    kinds = set(shared.team_events.values_list("kind", "by_name"))
    assert ("account_deleted", "") in kinds and ("transferred", "") in kinds
    assert shared.team_events.get(kind="account_deleted").by_label == "former member"
    new_owner = f'"{shared.title}" has a new owner'
    told = set(OutgoingMail.objects.values_list("to", "subject"))
    for person in (first, later, viewer):
        assert (person.email, new_owner) in told
    # The viewer-only draft went with the account; its viewer was told.
    assert not Proposal.objects.filter(pk=read_only.pk).exists()
    gone = f'"{read_only.title}" was deleted with its owner\'s account'
    assert (viewer.email, gone) in told
    assert not any(to == user.email for to, _ in told)


def test_a_members_deletion_leaves_their_edits_to_a_former_member(
    user, client, proposal
):
    member = UserFactory(username="leaver", first_name="Lee", last_name="Ver")
    join(proposal, member, "editor")
    services.team._record(proposal, member, TeamEvent.Kind.JOINED, "Lee Ver", "editor")
    stamp = FieldStamp.objects.create(
        proposal=proposal, key="title", user=member, at=timezone.now()
    )
    assert stamp.by_label == "Lee Ver"
    client.force_login(member)
    page = client.get(DELETE).text
    assert "You leave the team of the 1 proposal you are a member of" in page
    client.post(DELETE, {"password": PASSWORD})

    assert not Membership.objects.filter(proposal=proposal).exists()
    stamp.refresh_from_db()
    assert stamp.user is None and stamp.by_label == "former member"
    events = list(proposal.team_events.all())
    assert [(e.kind, e.by_label) for e in events] == [
        ("account_deleted", "former member"),
        ("joined", "former member"),
    ]
    assert all("Lee" not in (e.by_name + e.subject) for e in events)
    proposal.refresh_from_db()
    assert proposal.owner == user and proposal.deleted_at is None


# --------------------------------------------------------------------------------------
# The JSON format's team, and what the portal text and the PDF never hold
# --------------------------------------------------------------------------------------

ADDRESS = re.compile(r"[^\s@<>()]+@[^\s@<>()]+")


@pytest.fixture
def named_team(user):
    """A proposal of Ann Owner's with an editor Ed Itor and a viewer whose user
    name is an e-mail address (and who gave no name)."""
    user.first_name, user.last_name = "Ann", "Owner"
    user.save()
    proposal = load_demo("lumi-fast-lane", user)
    join(proposal, UserFactory(username="ed", first_name="Ed", last_name="Itor"))
    viewer = UserFactory(username="vi.ewer@example.eu", email="vi.ewer@example.eu")
    join(proposal, viewer, "viewer", since=timezone.now() + timedelta(seconds=1))
    return proposal


def test_the_json_export_lists_the_team_by_names_only(user_client, named_team):
    text = user_client.get(reverse("proposals:export_json", args=[named_team.pk])).text
    assert json.loads(text)["team"] == ["Ann Owner", "Ed Itor", "vi.ewer"]
    assert ADDRESS.search(text) is None


def test_a_solo_proposal_exports_no_team(user_client, user):
    proposal = load_demo("playground", user)
    text = user_client.get(reverse("proposals:export_json", args=[proposal.pk])).text
    assert "team" not in json.loads(text)


def test_an_import_reads_the_team_and_makes_nobody_a_member(
    user_client, user, named_team
):
    text = user_client.get(reverse("proposals:export_json", args=[named_team.pk])).text
    response = user_client.post(
        reverse("proposals:import_json"),
        {"file": SimpleUploadedFile("p.json", text.encode(), "application/json")},
    )
    assert response.status_code == 302
    copy = Proposal.objects.exclude(pk=named_team.pk).get(owner=user)
    assert not Membership.objects.filter(proposal=copy).exists()
    again = user_client.get(reverse("proposals:export_json", args=[copy.pk])).text
    assert "team" not in json.loads(again)


def test_an_address_in_the_team_is_refused_with_its_path(user_client, named_team):
    data = json.loads(
        user_client.get(reverse("proposals:export_json", args=[named_team.pk])).text
    )
    data["team"] = ["Ann Owner", "Ed <ed@example.eu>"]
    response = user_client.post(
        reverse("proposals:import_json"),
        {"file": SimpleUploadedFile("p.json", json.dumps(data).encode())},
    )
    assert response.status_code == 200
    assert "team[1]" in response.text
    assert "looks like an e-mail address" in response.text


def test_the_portal_text_and_the_pdf_hold_no_address_of_the_team(
    user_client, named_team, run_tasks
):
    page = user_client.get(reverse("proposals:export_portal", args=[named_team.pk]))
    text = portal_text(page.context["sections"])
    assert text and ADDRESS.search(text) is None
    url = reverse("proposals:export_pdf", args=[named_team.pk])
    pdf = " ".join(pdf_text(get_pdf(user_client, url, run_tasks).content))
    assert "Defect detection models" in pdf
    assert ADDRESS.search(pdf) is None


def test_the_data_export_lists_the_teams_one_is_on_but_not_their_content(
    client, user, named_team
):
    ed = User.objects.get(username="ed")
    NotificationMute.objects.create(proposal=named_team, user=ed)
    services.comment_add(proposal=named_team, author=ed, section="codes", body="Mine")
    services.comment_add(
        proposal=named_team, author=user, section="codes", body="The owner's"
    )
    client.force_login(ed)
    response = client.get(reverse("account_data"))
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    summary = json.loads(archive.read("account.json"))
    assert summary["proposals"] == []
    [membership] = summary["member_of"]
    assert membership["proposal"] == named_team.pk
    assert membership["title"] == named_team.title
    assert (membership["role"], membership["mail_switched_off"]) == ("editor", True)
    assert [c["text"] for c in membership["comments"]] == ["Mine"]
    assert not any(name.startswith("proposals/") for name in archive.namelist())


def test_the_owners_data_export_holds_the_json_export_with_its_team(
    user_client, named_team
):
    archive = zipfile.ZipFile(
        io.BytesIO(user_client.get(reverse("account_data")).content)
    )
    [item] = json.loads(archive.read("account.json"))["proposals"]
    current = archive.read(item["file"]).decode()
    assert json.loads(current)["team"] == ["Ann Owner", "Ed Itor", "vi.ewer"]
    export = user_client.get(reverse("proposals:export_json", args=[named_team.pk]))
    assert current == export.text


def test_an_operator_deleting_an_account_hands_team_proposals_over_too(user, teams):
    shared, read_only, first, *_ = teams
    out = io.StringIO()
    call_command("delete_account", user.username, stdout=out)
    assert "1 draft(s)" in out.getvalue()
    assert "1 proposal(s) with a team would go to their longest-standing editor" in (
        out.getvalue()
    )
    call_command("delete_account", user.username, "--yes", stdout=out)
    assert "1 proposal(s) with a team handed to an editor" in out.getvalue()
    shared.refresh_from_db()
    assert shared.owner == first
