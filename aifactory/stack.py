"""Every request runs on a stretch of CPython's frame stack with room to spare.

CPython 3.11 keeps the frames of Python calls in chunks of memory (16 KB, or the
next power of two a frame needs). A call that does not fit in the current chunk maps
a new one, and returning from the first frame of a chunk unmaps it again; nothing is
kept for the next call (python/cpython#142183; 3.13 and 3.14 keep one since March
2026). So a loop that runs right at the end of a chunk maps and unmaps one, with
fresh pages, on every call it makes. Where the ends fall depends on how deep the
server calls the view, not on the page: one step page measured 35 ms at one depth,
80 ms (10,600 page faults) four frames deeper and 27 ms at the best of 24 depths
(``tests/bench/test_bench_step_page.py``).

:func:`on_roomy_stack` calls ``func`` from a frame so large that it gets a chunk of
its own of 128 KB, about 70 KB of which are left for the calls under it. A request,
its middleware, view and templates included, stays within that chunk (the deepest
step page of the 10x proposal used about 13 KB of it, counted frame by frame), so
none of its calls maps a chunk, whatever the depth it started at. The cost is one
chunk per request. :class:`RoomyStackMiddleware` runs each request so; it comes
first in ``MIDDLEWARE``.
"""

from __future__ import annotations

# The frame's size in pointers: its local variables (never assigned: the statement
# after ``return`` only declares them). CPython gives a frame of n pointers a chunk
# of the smallest power of two times 16 KB that holds n + 1,000 pointers: 7,200 needs
# more than 64 KB, so the chunk is 128 KB and ~70 KB of it stay free above the frame.
LOCALS = 7200
_SOURCE = (
    "def on_roomy_stack(func, *args):\n"
    "    return func(*args)\n"
    "    " + " = ".join(f"_{i}" for i in range(LOCALS)) + " = None\n"
)
_namespace: dict = {}
# Named as no file is: a traceback through it shows no unrelated line of this one.
exec(compile(_SOURCE, "<aifactory.stack>", "exec"), _namespace)  # noqa: S102
on_roomy_stack = _namespace["on_roomy_stack"]
on_roomy_stack.__doc__ = "``func(*args)``, called from a frame with a chunk of its own."


class RoomyStackMiddleware:
    """Runs the rest of the request (middleware, view, templates) through
    :func:`on_roomy_stack`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return on_roomy_stack(self.get_response, request)
