"""Accounts at their limits (issue 20): a sign-up does the same work whether or not
the name or address is taken, so its time tells nothing about other accounts; the
password-reset limit per address counts every spelling of one address."""

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.urls import reverse

from proposals.views.accounts import PASSWORD_RESET_PER_ADDRESS_RATE
from tests.web.test_account_security import limit, signup

pytestmark = pytest.mark.django_db


@pytest.fixture
def hashes(monkeypatch):
    """How many passwords were hashed (the test settings' hasher)."""
    calls = []
    encode = MD5PasswordHasher.encode

    def counted(self, password, salt):
        calls.append(password)
        return encode(self, password, salt)

    monkeypatch.setattr(MD5PasswordHasher, "encode", counted)
    return calls


@pytest.mark.parametrize(
    ("username", "email"),
    [
        ("someone-new", "someone-new@example.eu"),
        ("TAKEN", "other@example.eu"),
        ("another-name", "TAKEN@EXAMPLE.EU"),
    ],
    ids=["new account", "username taken", "address taken"],
)
def test_a_signup_hashes_the_password_once_whatever_the_outcome(
    client, catalogue, hashes, username, email
):
    from tests.factories import UserFactory

    UserFactory(username="taken", email="taken@example.eu")
    hashes.clear()
    response = signup(client, username, email)
    assert response.status_code == 302
    assert hashes == ["a-long-unusual-passphrase"]


def test_the_reset_limit_per_address_ignores_case(client, user):
    url = reverse("password_reset")
    spellings = [
        user.email,
        user.email.upper(),
        user.email.title(),
        f" {user.email} ",
        user.email.swapcase(),
        user.email.capitalize(),
        user.email.upper(),
    ]
    answers = [
        # From as many clients, so that only the limit per address applies.
        client.post(url, {"email": typed}, REMOTE_ADDR=f"192.0.2.{n}").status_code
        for n, typed in enumerate(spellings, start=1)
    ]
    allowed = limit(PASSWORD_RESET_PER_ADDRESS_RATE)
    assert answers == [302] * allowed + [429] * (len(spellings) - allowed)
    assert len(mail.outbox) == allowed


# Spellings of sec_bob@sec.example that Django's reset sends to the same account
# (it compares NFKC-normalised, case-folded addresses): with a long s (U+017F) in
# the name or the domain, in capitals, with spaces around.
SAME_PERSON = [
    "\u017fec_bob@sec.example",
    "sec_bob@sec.example",
    "SEC_BOB@SEC.EXAMPLE",
    "SEC_BOB@\u017fEC.EXAMPLE",
    " sec_bob@sec.example ",
]


def test_the_reset_limit_per_address_counts_unicode_spellings_as_one(client, catalogue):
    from django.contrib.auth.forms import _unicode_ci_compare

    from tests.factories import UserFactory

    person = UserFactory(username="sec_bob", email="sec_bob@sec.example")
    # The reset mails the account for each of these spellings.
    assert all(
        _unicode_ci_compare(typed.strip(), person.email) for typed in SAME_PERSON
    )
    url = reverse("password_reset")
    answers = [
        client.post(url, {"email": typed}, REMOTE_ADDR=f"192.0.2.{n}").status_code
        for n, typed in enumerate(SAME_PERSON, start=1)
    ]
    allowed = limit(PASSWORD_RESET_PER_ADDRESS_RATE)
    assert answers == [302] * allowed + [429] * (len(SAME_PERSON) - allowed)
    assert len(mail.outbox) <= allowed
