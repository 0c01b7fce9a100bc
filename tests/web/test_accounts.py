"""Sign up, log in, log out, password change and reset; lists show only own proposals."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from proposals.models import Proposal
from tests.factories import PASSWORD, ProposalFactory

pytestmark = pytest.mark.django_db


def test_signup_creates_account_after_the_emailed_link(
    client, catalogue, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("signup"),
            {
                "username": "newcomer",
                "email": "Newcomer@Example.eu",
                "password1": "a-long-unusual-passphrase",
                "password2": "a-long-unusual-passphrase",
            },
        )
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("signup_done")
    # Not usable before the address is confirmed.
    assert not User.objects.get(username="newcomer").is_active
    assert client.get(reverse("proposals:list")).status_code == 302
    (message,) = mail.outbox
    assert message.to == ["Newcomer@example.eu"]
    link = re.search(r"https?://[^/]+(/\S+)", message.body).group(1)
    page = client.get(link)
    assert "Confirm <strong>Newcomer@example.eu</strong>" in page.text
    response = client.post(link)
    assert response.headers["Location"] == reverse("proposals:list")
    assert client.get(reverse("proposals:list")).status_code == 200
    user = User.objects.get(username="newcomer")
    assert user.is_active and user.account.verified_at is not None
    # The link is spent.
    assert client.get(link).status_code == 400


def test_signup_errors_are_shown_next_to_the_field(client, catalogue):
    response = client.post(
        reverse("signup"),
        {"username": "x", "email": "not-an-email", "password1": "a", "password2": "b"},
    )
    assert response.status_code == 200
    content = response.content.decode()
    assert "Enter a valid email address." in content
    assert "password fields didn" in content


def test_login_and_logout(client, user):
    response = client.post(
        reverse("login"), {"username": user.username, "password": PASSWORD}
    )
    assert response.status_code == 302
    assert client.get(reverse("proposals:list")).status_code == 200
    client.post(reverse("logout"))
    response = client.get(reverse("proposals:list"))
    assert response.status_code == 302
    assert response.headers["Location"].startswith(reverse("login"))


def test_password_change(user_client, user):
    response = user_client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another-long-passphrase-42",
            "new_password2": "another-long-passphrase-42",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("another-long-passphrase-42")


def test_password_reset_sends_a_working_link(client, user):
    client.post(reverse("password_reset"), {"email": user.email})
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/\S+)", mail.outbox[0].body).group(1)
    response = client.get(link, follow=True)
    assert response.status_code == 200
    response = client.post(
        response.redirect_chain[-1][0],
        {
            "new_password1": "reset-passphrase-9876",
            "new_password2": "reset-passphrase-9876",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("reset-passphrase-9876")


def test_list_shows_only_own_proposals(user_client, user, other_user):
    ProposalFactory(owner=user, title="Mine to see")
    ProposalFactory(owner=other_user, title="Somebody else's")
    content = user_client.get(reverse("proposals:list")).content.decode()
    assert "Mine to see" in content
    assert "Somebody else" not in content


def test_create_proposal_precreates_main_code_entry(user_client, user):
    response = user_client.post(
        reverse("proposals:create"),
        {"title": "Vision model", "call_family": "industrial_innovation", "system": ""},
    )
    assert response.status_code == 302
    proposal = Proposal.objects.get(owner=user, title="Vision model")
    assert [code.role for code in proposal.codes.all()] == ["main"]


def test_anonymous_is_sent_to_login(client, proposal):
    for url in (reverse("proposals:list"), proposal.get_absolute_url()):
        response = client.get(url)
        assert response.status_code == 302
        assert response.headers["Location"].startswith(reverse("login"))
