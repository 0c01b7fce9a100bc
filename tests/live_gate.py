"""Whether this process's live server takes requests, and how many it is answering.

A browser test ends with its page closed, but the page's last requests (a save sent
as the page went, a presence note) can still be on their way. The test database is
emptied right after the test; a request answered meanwhile could deadlock with the
flush on PostgreSQL (seen in CI when the flush was a TRUNCATE: its
AccessExclusiveLock against a request's RowShareLock; it is a DELETE now,
``tests/conftest.py``, whose row locks can still meet a request's) or leave rows for
the next test. So a browser test's teardown :func:`close`\\ s the gate and waits for
the requests already being answered (:func:`wait_answered`); the gate opens again
once that test's teardown, the flush included, is over (``tests/conftest.py``).
"""

import threading
import time

from django.core.signals import request_finished, request_started

_state = {"count": 0, "open": True}
_lock = threading.Lock()


class AfterTheTest(Exception):
    """A request that reached the live server after its test ended."""


def _request_started(**kwargs):
    with _lock:
        if not _state["open"]:
            # Django sends ``request_started`` before any middleware or view: the
            # request ends here (a 500 to a page that is gone) before it reads or
            # writes anything.
            raise AfterTheTest("the test this page belonged to has ended")
        _state["count"] += 1


def _request_finished(**kwargs):
    with _lock:
        _state["count"] -= 1


request_started.connect(_request_started, dispatch_uid="tests-live-gate-started")
request_finished.connect(_request_finished, dispatch_uid="tests-live-gate-finished")


def open_gate() -> None:
    with _lock:
        _state["open"] = True


def close() -> None:
    with _lock:
        _state["open"] = False


def wait_answered(timeout: float) -> None:
    """Until no request is being answered (at most ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while _state["count"] > 0 and time.monotonic() < deadline:
        time.sleep(0.01)
