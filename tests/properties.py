"""Long property runs (hypothesis): a test whose examples each cost a dozen requests
is marked ``long_property`` and asks :func:`examples` for its count, which is
bounded by default (``make test``: a developer's run) and the full count under
``pytest --long-properties`` (CI's SQLite pass, ``.ci/run``). ``pytest -m
long_property --long-properties`` runs only them, long."""

import pytest

# Set from the command line by tests/conftest.py (pytest_configure), before any test
# module is imported: the decorators below read it when their module is collected.
LONG = False

long_property = pytest.mark.long_property


def examples(full: int, *, bounded: int) -> int:
    """The ``max_examples`` of a long property run: ``full`` under
    ``--long-properties``, else ``bounded``."""
    return full if LONG else bounded
