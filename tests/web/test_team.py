"""The Team page: invitations (by link and from the list), roles, removal,
leaving, handing over, the record of changes and the mail switch."""

import re

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from proposals import services
from proposals.models import (
    Invitation,
    Membership,
    NotificationMute,
    OutgoingMail,
    TeamEvent,
)
from tests.factories import PASSWORD, ProposalFactory, UserFactory

pytestmark = pytest.mark.django_db


def _login(client, user):
    client.force_login(user)
    return client


def _invite(client, proposal, email, role="editor"):
    return client.post(
        reverse("proposals:team_invite", args=[proposal.pk]),
        {"email": email, "role": role},
    )


def _link(mail_body: str) -> str:
    return re.search(r"https?://\S+/invitations/(\S+)/", mail_body).group(0)


def test_owner_invites_and_the_invited_account_accepts(client, user, proposal):
    anna = UserFactory(username="anna", email="anna@example.eu")
    response = _invite(_login(client, user), proposal, "Anna@Example.eu")
    assert response.status_code == 302
    mail = OutgoingMail.objects.get()
    assert mail.to == "anna@example.eu"
    assert proposal.title in mail.body
    link = _link(mail.body)
    path = link[link.index("/invitations/") :]
    # Only the hash of the link's secret is stored.
    token = path.split("/")[2]
    assert not Invitation.objects.filter(token_hash=token).exists()
    # Another account with the link cannot take it.
    client.force_login(UserFactory(username="mallory"))
    page = client.get(path)
    assert b'data-testid="invitation-problem"' in page.content
    assert b'data-testid="accept"' not in page.content
    assert client.post(path).status_code == 302
    assert not Membership.objects.filter(proposal=proposal).exists()
    # Anna can.
    client.force_login(anna)
    page = client.get(path)
    assert page.status_code == 200 and b'data-testid="accept"' in page.content
    response = client.post(path)
    assert response.status_code == 302
    membership = Membership.objects.get(proposal=proposal)
    assert (membership.user, membership.role) == (anna, "editor")
    # The link works once.
    assert b"already accepted" in client.get(path).content
    kinds = list(
        TeamEvent.objects.filter(proposal=proposal)
        .order_by("at", "id")
        .values_list("kind", flat=True)
    )
    assert kinds == ["invited", "joined"]
    # Anna now sees the proposal in her list and opens its steps.
    listing = client.get(reverse("proposals:list"))
    assert proposal.title.encode() in listing.content
    step = reverse("proposals:step", args=[proposal.pk, "organisation"])
    assert client.get(step).status_code == 200


def test_a_new_person_signs_up_and_the_confirmation_brings_the_invitation_back(
    client, user, proposal, django_capture_on_commit_callbacks
):
    _invite(_login(client, user), proposal, "newcomer@example.eu", role="viewer")
    path = _link(OutgoingMail.objects.get().body)
    path = path[path.index("/invitations/") :]
    client.logout()
    page = client.get(path)
    assert page.status_code == 200
    signup = reverse("signup") + "?email=newcomer%40example.eu"
    assert signup.encode() in page.content.replace(b"&amp;", b"&")
    assert b'value="newcomer@example.eu"' in client.get(signup).content
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("signup"),
            {
                "username": "newcomer",
                "email": "newcomer@example.eu",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
    verify = [m for m in mail.outbox if m.to == ["newcomer@example.eu"]][-1]
    confirm = re.search(r"https?://\S+(/accounts/verify/\S+/)", verify.body).group(1)
    response = client.post(confirm)
    assert response.status_code == 302 and response.url == path
    client.post(path)
    membership = Membership.objects.get(proposal=proposal)
    assert (membership.user.username, membership.role) == ("newcomer", "viewer")


def test_waiting_invitations_are_listed_and_accepted_from_the_list(
    client, user, proposal
):
    bob = UserFactory(username="bob")
    services.team_invite(proposal=proposal, by=user, email=bob.email, role="viewer")
    client.force_login(bob)
    listing = client.get(reverse("proposals:list"))
    assert b'data-testid="invitations-waiting"' in listing.content
    invitation = Invitation.objects.get()
    client.post(reverse("proposals:invitation_accept", args=[invitation.pk]))
    assert Membership.objects.get(proposal=proposal).user == bob
    # Somebody else cannot accept it by its number.
    other = Invitation.objects.create(
        proposal=proposal,
        email="carol@example.eu",
        role="editor",
        token_hash="x" * 64,
        invited_by=user,
        created_at=timezone.now(),
        expires_at=timezone.now() + timezone.timedelta(days=1),
    )
    response = client.post(reverse("proposals:invitation_accept", args=[other.pk]))
    assert response.status_code == 404


def test_expired_and_revoked_invitations_do_not_work(client, user, proposal):
    anna = UserFactory(username="anna")
    token = services.team_invite(
        proposal=proposal, by=user, email=anna.email, role="editor"
    )
    Invitation.objects.update(expires_at=timezone.now())
    client.force_login(anna)
    path = reverse("proposals:invitation", args=[token])
    page = client.get(path)
    assert b"expired" in page.content
    client.post(path)
    assert not Membership.objects.exists()
    token = services.team_invite(
        proposal=proposal, by=user, email=anna.email, role="editor"
    )
    invitation = Invitation.objects.get(accepted_at=None, revoked_at=None)
    _login(client, user).post(
        reverse("proposals:team_revoke", args=[proposal.pk, invitation.pk])
    )
    client.force_login(anna)
    client.post(reverse("proposals:invitation", args=[token]))
    assert not Membership.objects.exists()


def test_the_owner_changes_a_role_removes_and_hands_over(client, user, proposal):
    anna, bob = UserFactory(username="anna"), UserFactory(username="bob")
    now = timezone.now()
    a = Membership.objects.create(
        proposal=proposal, user=anna, role="viewer", since=now
    )
    b = Membership.objects.create(proposal=proposal, user=bob, role="editor", since=now)
    _login(client, user)
    client.post(
        reverse("proposals:team_role", args=[proposal.pk, a.pk]), {"role": "editor"}
    )
    assert Membership.objects.get(pk=a.pk).role == "editor"
    client.post(reverse("proposals:team_remove", args=[proposal.pk, b.pk]))
    assert not Membership.objects.filter(user=bob).exists()
    step = reverse("proposals:step", args=[proposal.pk, "organisation"])
    client.force_login(bob)
    assert client.get(step).status_code == 404
    # Handing over asks first, then the old owner stays as an editor.
    _login(client, user)
    transfer = reverse("proposals:team_transfer", args=[proposal.pk, a.pk])
    assert client.get(transfer).status_code == 200
    proposal.refresh_from_db()
    assert proposal.owner == user
    client.post(transfer)
    proposal.refresh_from_db()
    assert proposal.owner == anna
    assert Membership.objects.get(proposal=proposal).user == user
    assert Membership.objects.get(proposal=proposal).role == "editor"
    told = set(OutgoingMail.objects.values_list("to", flat=True))
    assert {user.email, anna.email} <= told
    # The former owner can no longer manage the team.
    response = client.post(
        reverse("proposals:team_invite", args=[proposal.pk]),
        {"email": "x@example.eu", "role": "editor"},
    )
    assert response.status_code == 403
    page = client.get(reverse("proposals:team", args=[proposal.pk]))
    record = page.content.decode()
    for sentence in (
        f"{user.username.capitalize()} made anna Editor.",
        "removed bob from the team.",
        "handed the proposal over to anna.",
    ):
        assert sentence in " ".join(record.split()), sentence


def test_editors_and_viewers_cannot_manage_the_team(client, user, proposal):
    anna = UserFactory(username="anna")
    m = Membership.objects.create(
        proposal=proposal, user=anna, role="editor", since=timezone.now()
    )
    client.force_login(anna)
    urls = [
        (reverse("proposals:team_invite", args=[proposal.pk]), {"email": "z@e.eu"}),
        (reverse("proposals:team_role", args=[proposal.pk, m.pk]), {"role": "viewer"}),
        (reverse("proposals:team_transfer", args=[proposal.pk, m.pk]), {}),
        (reverse("proposals:team_remove", args=[proposal.pk, m.pk]), {}),
    ]
    for url, data in urls:
        assert client.post(url, data).status_code == 403, url
    assert Membership.objects.get(pk=m.pk).role == "editor"
    assert not Invitation.objects.exists()
    page = client.get(reverse("proposals:team", args=[proposal.pk]))
    assert page.status_code == 200
    assert b'data-testid="invite-form"' not in page.content


def test_a_member_leaves_and_the_owner_cannot(client, user, proposal):
    anna = UserFactory(username="anna")
    Membership.objects.create(
        proposal=proposal, user=anna, role="viewer", since=timezone.now()
    )
    client.force_login(anna)
    client.post(reverse("proposals:team_leave", args=[proposal.pk]))
    assert not Membership.objects.exists()
    assert TeamEvent.objects.get().kind == "left"
    _login(client, user).post(reverse("proposals:team_leave", args=[proposal.pk]))
    proposal.refresh_from_db()
    assert proposal.owner == user


def test_inviting_the_owner_or_a_member_is_refused_next_to_the_field(
    client, user, proposal
):
    anna = UserFactory(username="anna")
    Membership.objects.create(
        proposal=proposal, user=anna, role="viewer", since=timezone.now()
    )
    _login(client, user)
    for email in (user.email, anna.email.upper(), "not an address"):
        response = _invite(client, proposal, email)
        assert response.status_code == 400
        assert b"invalid-feedback" in response.content
    assert not Invitation.objects.exists()


def test_mail_switch_per_proposal(client, user, proposal):
    _login(client, user)
    url = reverse("proposals:team_notifications", args=[proposal.pk])
    client.post(url, {})
    assert NotificationMute.objects.filter(user=user, proposal=proposal).exists()
    client.post(url, {"notify": "on"})
    assert not NotificationMute.objects.exists()


def test_strangers_get_404_on_the_team_pages(client, proposal):
    client.force_login(UserFactory(username="stranger"))
    assert client.get(reverse("proposals:team", args=[proposal.pk])).status_code == 404
    other = ProposalFactory()
    assert client.get(reverse("proposals:team", args=[other.pk])).status_code == 404
