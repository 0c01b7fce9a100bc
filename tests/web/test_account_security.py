"""Accounts: throttled login, sign-up and password reset; no enumeration of usernames
or addresses; one account per address; nothing sent to an unconfirmed address."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import TestCase
from django.urls import reverse

from proposals import services
from proposals.models import AccountProfile, OutgoingMail, Proposal
from proposals.views.accounts import (
    PASSWORD_RESET_PER_ADDRESS_RATE,
    PASSWORD_RESET_RATE,
    RESEND_RATE,
    SIGNUP_RATE,
)
from tests.factories import PASSWORD, JobTypeFactory, ProposalFactory, UserFactory

pytestmark = pytest.mark.django_db

LOGIN = reverse("login")
SIGNUP = reverse("signup")
LIST = reverse("proposals:list")


def limit(rate: str) -> int:
    return int(rate.split("/")[0])


def signup(client, username: str, email: str):
    """Sign up, running the e-mails the service schedules with ``on_commit``."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(
            SIGNUP,
            {
                "username": username,
                "email": email,
                "password1": "a-long-unusual-passphrase",
                "password2": "a-long-unusual-passphrase",
            },
        )


def without_csrf(html: str) -> str:
    return re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"', "", html)


# --- Login ------------------------------------------------------------------------------


def test_fifty_wrong_passwords_lock_the_login(client, user):
    for _ in range(50):
        response = client.post(LOGIN, {"username": user.username, "password": "wrong"})
        assert response.status_code in (200, 429)
    response = client.post(LOGIN, {"username": user.username, "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many attempts" in response.text
    assert "Wait 15\xa0minutes and try again" in response.text
    assert client.get(LIST).status_code == 302  # not logged in


def test_the_lock_holds_one_username_from_one_address(client, user):
    for _ in range(5):
        client.post(LOGIN, {"username": user.username, "password": "wrong"})
    elsewhere = client.post(
        LOGIN,
        {"username": user.username, "password": PASSWORD},
        REMOTE_ADDR="192.0.2.7",
    )
    assert elsewhere.status_code == 302


def test_a_lock_reads_the_same_for_unknown_usernames(client, user):
    answers = {}
    for name in (user.username, "nobody-here"):
        for _ in range(5):
            client.post(LOGIN, {"username": name, "password": "wrong"})
        response = client.post(LOGIN, {"username": name, "password": "wrong"})
        answers[name] = (response.status_code, response.text)
    assert answers[user.username] == answers["nobody-here"]


# --- Sign-up ----------------------------------------------------------------------------


def test_signup_with_a_used_address_creates_nothing_and_reveals_nothing(
    client, user, catalogue
):
    fresh = signup(client, "someone-new", "someone-new@example.eu")
    mail.outbox.clear()
    taken = signup(client, "another-name", user.email.upper())
    assert (taken.status_code, taken.headers["Location"]) == (
        fresh.status_code,
        fresh.headers["Location"],
    )
    assert not User.objects.filter(username="another-name").exists()
    assert User.objects.filter(email__iexact=user.email).count() == 1
    # Only the owner of the address learns why.
    (message,) = mail.outbox
    assert message.to == [user.email]
    assert "There is already an account for it" in message.body


def test_signup_with_a_taken_username_reveals_nothing(client, user, catalogue):
    fresh = signup(client, "someone-new", "someone-new@example.eu")
    mail.outbox.clear()
    taken = signup(client, user.username.upper(), "other@example.eu")
    assert taken.headers["Location"] == fresh.headers["Location"]
    assert User.objects.filter(username__iexact=user.username).count() == 1
    (message,) = mail.outbox
    assert message.to == ["other@example.eu"]
    assert "That username is already in use" in message.body
    # Nor does the form say it.
    page = client.get(SIGNUP).text
    assert "already exists" not in page


def test_the_database_keeps_one_account_per_address(client, catalogue, monkeypatch):
    """Two sign-ups racing: both pass the check before either has committed."""
    first = services.account_signup(
        username="first", email="Race@Example.eu", password="a-long-passphrase-1"
    )
    services.account_verify(user=User.objects.get(username="first"))
    monkeypatch.setattr(
        "proposals.services.accounts._address_in_use", lambda address: False
    )
    second = services.account_signup(
        username="second", email="race@example.EU", password="a-long-passphrase-2"
    )
    assert (first, second) == (
        services.SIGNUP_CREATED,
        services.SIGNUP_ADDRESS_IN_USE,
    )
    assert list(User.objects.filter(email__iexact="race@example.eu")) == [
        User.objects.get(username="first")
    ]


def test_a_new_signup_replaces_an_unconfirmed_one(client, catalogue):
    signup(client, "squatter", "victim@example.eu")
    signup(client, "victim", "victim@example.eu")
    assert not User.objects.filter(username="squatter").exists()
    assert AccountProfile.objects.get(email="victim@example.eu").user.username == (
        "victim"
    )


def test_signup_is_throttled(client, catalogue):
    for n in range(limit(SIGNUP_RATE)):
        assert signup(client, f"person{n}", f"person{n}@example.eu").status_code == 302
    response = signup(client, "one-too-many", "one-too-many@example.eu")
    assert response.status_code == 429
    assert not User.objects.filter(username="one-too-many").exists()


# --- Password reset ---------------------------------------------------------------------


def test_password_reset_is_throttled_per_address(client, user):
    url = reverse("password_reset")
    for _ in range(limit(PASSWORD_RESET_PER_ADDRESS_RATE)):
        assert client.post(url, {"email": user.email}).status_code == 302
    assert client.post(url, {"email": user.email}).status_code == 429
    assert len(mail.outbox) == limit(PASSWORD_RESET_PER_ADDRESS_RATE)


def test_password_reset_is_throttled_per_client(client, user):
    url = reverse("password_reset")
    for n in range(limit(PASSWORD_RESET_RATE)):
        assert client.post(url, {"email": f"x{n}@example.eu"}).status_code == 302
    assert client.post(url, {"email": user.email}).status_code == 429
    assert mail.outbox == []


def test_password_reset_reads_the_same_for_unknown_addresses(client, user):
    url = reverse("password_reset")
    known = client.post(url, {"email": user.email}, follow=True)
    unknown = client.post(url, {"email": "nobody@example.eu"}, follow=True)
    assert without_csrf(known.text) == without_csrf(unknown.text)
    assert len(mail.outbox) == 1


# --- Verified addresses -----------------------------------------------------------------


@pytest.fixture
def unverified(catalogue):
    return UserFactory(verified=False)


@pytest.fixture
def send(django_capture_on_commit_callbacks, run_tasks):
    """Run ``action`` and deliver the mails it queued; the addresses they went to."""

    def run(action, **kwargs):
        mail.outbox.clear()
        with django_capture_on_commit_callbacks(execute=True):
            action(**kwargs)
        run_tasks()
        return [m.to for m in mail.outbox]

    return run


def changes_requested(send, staff_user, proposal):
    return send(
        services.review_set_status,
        proposal=proposal,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="Please add a job plan.",
    )


def test_nothing_is_sent_to_an_unconfirmed_address(unverified, staff_user, send):
    proposal = ProposalFactory(owner=unverified)
    submit = send(services.review_submit, proposal=proposal, user=unverified)
    assert submit == [[staff_user.email]]  # staff are confirmed
    assert changes_requested(send, staff_user, proposal) == []
    # Stored for staff to see, as undeliverable, never sent.
    held = OutgoingMail.objects.get(to=unverified.email)
    assert held.status == OutgoingMail.Status.UNDELIVERABLE
    assert "Nobody confirmed the address" in held.last_error
    # Once confirmed, the applicant is told.
    services.account_verify(user=unverified)
    JobTypeFactory(proposal=proposal)  # the job plan asked for
    send(services.review_submit, proposal=proposal, user=unverified)
    assert changes_requested(send, staff_user, proposal) == [[unverified.email]]


def test_a_changed_address_is_unconfirmed_again(user, staff_user, send):
    proposal = ProposalFactory(owner=user)
    send(services.review_submit, proposal=proposal, user=user)
    User.objects.filter(pk=user.pk).update(email="new-address@example.eu")
    assert changes_requested(send, staff_user, proposal) == []


def test_banner_and_throttled_resend(client, unverified):
    client.force_login(unverified)
    page = client.get(LIST).text
    assert 'data-testid="verify-banner"' in page
    resend = reverse("verify_email_resend")
    for _ in range(limit(RESEND_RATE)):
        assert client.post(resend, {"next": LIST}).status_code == 302
    assert client.post(resend, {"next": LIST}).status_code == 429
    assert len(mail.outbox) == limit(RESEND_RATE)
    link = re.search(r"https?://[^/]+(/\S+)", mail.outbox[-1].body).group(1)
    client.post(link)
    assert 'data-testid="verify-banner"' not in client.get(LIST).text


def test_resend_goes_back_only_to_our_own_pages(client, unverified):
    client.force_login(unverified)
    resend = reverse("verify_email_resend")
    response = client.post(resend, {"next": "https://evil.example/"})
    assert response.headers["Location"] == LIST


def test_confirmed_users_see_no_banner(user_client):
    assert 'data-testid="verify-banner"' not in user_client.get(LIST).text


def test_demo_users_are_confirmed(catalogue):
    from django.core.management import call_command

    call_command("load_demo", "--with-public-passwords", verbosity=0)
    for name in ("demo", "staff"):
        user = User.objects.get(username=name)
        assert user.account.verified_at is not None
        assert user.account.email == user.email


def test_client_address_behind_the_proxy(rf, settings):
    from proposals.http import client_ip

    request = rf.get("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    settings.BEHIND_PROXY = False
    assert client_ip(request) == "127.0.0.1"
    settings.BEHIND_PROXY = True
    assert client_ip(request) == "203.0.113.9"  # the proxy's entry, not the client's
