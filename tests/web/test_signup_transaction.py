"""Sign-up hashes the password before its transaction (issue 20): the hash costs
about a second of CPU, and no write lock may be held meanwhile (on SQLite the task
worker and every other writer would wait for it, or fail). The end-to-end case, a
development server and a polling worker on one SQLite file, is in
tests/commands/test_sqlite_signup.py."""

import pytest
from django.contrib.auth import hashers
from django.contrib.auth.models import User
from django.db import connection

from proposals import services


@pytest.mark.django_db(transaction=True)
def test_the_password_is_hashed_outside_any_transaction(monkeypatch, catalogue):
    hasher = hashers.get_hasher()
    encode = type(hasher).encode
    seen = []

    def recording_encode(self, password, salt, *args, **kwargs):
        seen.append(connection.in_atomic_block)
        return encode(self, password, salt, *args, **kwargs)

    monkeypatch.setattr(type(hasher), "encode", recording_encode)
    outcome = services.account_signup(
        username="newcomer", email="newcomer@example.eu", password="a passphrase 42"
    )
    assert outcome == services.SIGNUP_CREATED
    assert seen == [False]
    # The stored hash is the password's.
    assert User.objects.get(username="newcomer").check_password("a passphrase 42")
