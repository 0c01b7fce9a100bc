"""How the suite is cut for CI (issue 35, .ci/run): the tests that use the test
database are marked ``database`` (run on SQLite and again on PostgreSQL), the others
run once; the long property runs are bounded unless ``--long-properties`` asks for
their full count."""

from types import SimpleNamespace

import pytest

from tests import conftest, properties


class _Item(SimpleNamespace):
    def get_closest_marker(self, name):
        return next((m for m in self.own_markers if m.name == name), None)

    def add_marker(self, marker):
        self.own_markers.append(marker.mark)


def _item(*fixtures, markers=()):
    return _Item(fixturenames=list(fixtures), own_markers=[m.mark for m in markers])


def test_a_test_that_reaches_the_database_is_marked_database():
    items = {
        "db": _item("user", "catalogue", "db"),
        "transactional": _item("transactional_db"),
        "browser": _item("page", "live_server"),
        "marked": _item(markers=[pytest.mark.django_db]),
        "domain": _item("tmp_path"),
        "settings in a fresh process": _item("monkeypatch", "tmp_path"),
    }
    conftest.pytest_collection_modifyitems(list(items.values()))
    marked = {
        name for name, item in items.items() if item.get_closest_marker("database")
    }
    assert marked == {"db", "transactional", "browser", "marked"}


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
