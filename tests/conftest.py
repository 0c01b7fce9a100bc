import pytest
from django.apps import apps

from tests.factories import ProposalFactory, StaffUserFactory, UserFactory

# The data migration's own loader, reused for tests whose database was flushed.
_migration = __import__(
    "proposals.migrations.0002_staff_group_and_catalogue", fromlist=["forwards"]
)


@pytest.fixture
def catalogue(db):
    """The cluster catalogue and the staff group, as the data migration creates them."""
    _migration.forwards(apps, None)


@pytest.fixture
def user(db, catalogue):
    return UserFactory()


@pytest.fixture
def other_user(db, catalogue):
    return UserFactory()


@pytest.fixture
def staff_user(db, catalogue):
    return StaffUserFactory()


@pytest.fixture
def proposal(user):
    return ProposalFactory(owner=user)


@pytest.fixture
def user_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _empty_cache():
    """Rate-limit counters (and cached charts) live in the cache: start each test
    with none."""
    from django.core.cache import cache

    cache.clear()
