"""Running a template tag's loop where calls stay cheap.

CPython (3.11 and later) keeps its function frames in 16 KB chunks of memory; a call
that does not fit in the current chunk maps a new one, and returning from it unmaps it
again. Template rendering is deeply nested, so a tag can start near the end of a chunk:
then every function its loop calls maps and unmaps a chunk (a system call and fresh
pages each time). On a step page with hundreds of inputs that was a third of the
page's time (measured with getrusage: ~2,800 page faults per request, 10 ms of system
time, against ~800 with this).

:func:`on_fresh_stack` calls ``func`` from a frame larger than a chunk: that frame
always gets a chunk of its own (32 KB), and the calls made under it fit in the
remaining room, whatever the depth of the template around it. The cost is one chunk
per call of the tag, not one per call in its loop.

This works around a known interpreter bug, python/cpython#142183 ("Calls across
stack chunks perform badly"). It was fixed by keeping one spare chunk per thread
(python/cpython#145789, backported to 3.13 as #146123); 3.11, which the project runs,
receives security fixes only. On an interpreter with the fix this wrapper costs one
call and changes nothing else; remove it when the project moves past 3.11.
"""

# A function whose frame is larger than a 16 KB chunk: ~2,200 local variables (never
# assigned: the statement after ``return`` only declares them; 8 bytes each).
_LOCALS = 2200
_SOURCE = (
    "def on_fresh_stack(func, *args):\n"
    "    return func(*args)\n"
    "    " + " = ".join(f"_{i}" for i in range(_LOCALS)) + " = None\n"
)
_namespace: dict = {}
exec(compile(_SOURCE, __file__, "exec"), _namespace)  # noqa: S102 (fixed source)
on_fresh_stack = _namespace["on_fresh_stack"]
on_fresh_stack.__doc__ = "``func(*args)``, called from a frame of a chunk of its own."
