"""How the suite is cut for CI (issue 35, .ci/run): the database-specific tests
are marked ``database`` (run on SQLite and again on PostgreSQL), the others run once;
the long property runs are bounded unless ``--long-properties`` asks for their full
count."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest, properties


class _Item(SimpleNamespace):
    def get_closest_marker(self, name):
        return next((m for m in self.own_markers if m.name == name), None)

    def add_marker(self, marker):
        self.own_markers.append(marker.mark)


def _item(module, *fixtures, markers=()):
    path = Path(conftest.__file__).parent / f"{module}.py"
    own = [m.mark for m in markers]
    return _Item(fspath=path, fixturenames=list(fixtures), own_markers=own)


def test_the_database_specific_tests_are_marked_database():
    items = {
        "a race of writers": _item("web/test_row_races", "user", "db"),
        "a transactional test": _item("web/test_wizard", "transactional_db"),
        "a browser test": _item(
            "e2e/test_two_tabs", "page", "live_server", "transactional_db"
        ),
        "a test marked to commit": _item(
            "web/test_wizard", markers=[pytest.mark.django_db(transaction=True)]
        ),
        "a page read through the ORM": _item("web/test_wizard", "user", "db"),
        "the domain": _item("domain/test_rules", "tmp_path"),
    }
    conftest.pytest_collection_modifyitems(list(items.values()))
    marked = {
        name for name, item in items.items() if item.get_closest_marker("database")
    }
    assert marked == {
        "a race of writers",
        "a transactional test",
        "a test marked to commit",
        "a browser test",
    }


def test_every_database_specific_module_exists():
    """A module renamed or removed would silently leave PostgreSQL's pass."""
    here = Path(conftest.__file__).parent
    named = [m for modules in conftest.DATABASE_SPECIFIC.values() for m in modules]
    assert len(named) == len(set(named))
    assert [m for m in named if not (here / f"{m}.py").is_file()] == []


def test_long_property_runs_are_bounded_unless_asked_for_in_full(monkeypatch):
    monkeypatch.setattr(properties, "LONG", False)
    assert properties.examples(12, bounded=4) == 4
    monkeypatch.setattr(properties, "LONG", True)
    assert properties.examples(12, bounded=4) == 12


def test_the_option_sets_the_long_runs(monkeypatch):
    monkeypatch.setattr(properties, "LONG", False)
    config = SimpleNamespace(getoption=lambda name: name == "--long-properties")
    conftest.pytest_configure(config)
    assert properties.LONG is True


@pytest.mark.django_db
def test_the_catalogue_is_loaded_again_only_after_the_database_was_emptied(request):
    from django.apps import apps

    cluster = apps.get_model("proposals", "Cluster")
    group = apps.get_model("auth", "Group")
    assert conftest.catalogue_is_loaded()  # as migrated
    clusters = cluster.objects.count()
    # As a transactional test's flush leaves it (rolled back after this test).
    cluster.objects.all().delete()
    group.objects.all().delete()
    assert not conftest.catalogue_is_loaded()
    request.getfixturevalue("catalogue")
    assert conftest.catalogue_is_loaded()
    assert cluster.objects.count() == clusters
