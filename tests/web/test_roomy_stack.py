"""Every request runs on a frame-stack chunk with room (``aifactory/stack.py``):
CPython 3.11 maps and unmaps a chunk on every call made right at a chunk's end, so
a page's time depended on the depth the server called it from (27 to 80 ms for one
step page)."""

import resource
import sys

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import RequestFactory

from aifactory.stack import RoomyStackMiddleware, on_roomy_stack

CALLS = 200  # calls made at each depth
DEPTHS = 256  # frames of ``down``: more than a 16 KB chunk holds


def leaf(a=0, b=0, c=0, d=0):
    # More local variables than ``down`` has: a frame larger than ``down``'s, so
    # some depth leaves room for ``down`` and not for it (its calls cross the end).
    e = f = g = h = i = j = k = m = n = p = q = r = None
    return (e, f, g, h, i, j, k, m, n, p, q, r)


def down(depth: int) -> None:
    if depth:
        return down(depth - 1)
    for _ in range(CALLS):
        leaf()


def faults_per_depth() -> list[int]:
    """The page faults of this thread while ``CALLS`` calls are made ``depth``
    frames deeper, for each depth up to ``DEPTHS``."""
    faults = []
    for depth in range(DEPTHS):
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        down(depth)
        faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
    return faults


@pytest.mark.skipif(
    sys.version_info >= (3, 13), reason="the Pythons that keep a spare chunk"
)
def test_calls_at_a_chunks_end_map_a_chunk_each_on_this_python():
    """What the middleware is for: without it, some depth maps a chunk per call."""
    assert max(faults_per_depth()) >= CALLS


def test_calls_under_the_roomy_frame_map_nothing_at_any_depth():
    faults = on_roomy_stack(faults_per_depth)
    assert max(faults) < CALLS // 10, faults


def test_every_request_runs_under_the_roomy_frame():
    assert settings.MIDDLEWARE[0] == "aifactory.stack.RoomyStackMiddleware"
    seen = []

    def view(request):
        seen.append(sys._getframe(1).f_code.co_name)
        return HttpResponse("answered")

    response = RoomyStackMiddleware(view)(RequestFactory().get("/"))
    assert response.content == b"answered"
    assert seen == ["on_roomy_stack"]
