"""``make loadtest`` (``python -m scripts.loadtest``): N simulated typists against
gunicorn + PostgreSQL (issue 16).

What it does, bounded in time and on the loopback interface only:

1. creates a scratch database on the PostgreSQL server named by ``LOADTEST_PG`` (an
   admin URL on 127.0.0.1 / localhost / ::1, a user allowed to create databases),
   migrates it, collects the static files into a temporary directory, and creates
   one user and one proposal (the LUMI Fast Lane example) per typist;
2. starts gunicorn (``gunicorn.conf.py``, debug off) and a task worker on a free
   loopback port (``LOADTEST_INSTANCES``, default 1: more gunicorn instances, each
   round's typists dealt to them in turn);
3. for each N (``LOADTEST_TYPISTS``, default 10,20,30): N typists, each its own
   user, session and proposal, each sending one autosave per second for
   ``LOADTEST_SECONDS`` (default 20) with the wizard's real protocol: the step's
   whole form as the page holds it, the CSRF token, ``autosave=1`` with the htmx
   header, and ``bases`` (per-field revisions) taken from each answer's
   out-of-band ``bases`` input, as the page's htmx does. Every typist appends a
   word to its optimisation narrative, so each acknowledged save contains all the
   earlier ones;
4. prints throughput, p50 / p95 / p99 latency and errors per N, then checks that
   every acknowledged value is in the database (each proposal's narrative is its
   typist's last acknowledged text);
5. soaks the task worker: ``LOADTEST_SOAK_PDFS`` (default 100) PDFs of new content
   one after another, rendered by ``db_worker --max-tasks LOADTEST_SOAK_MAX_TASKS``
   (default 40) under a loop that restarts it as systemd does, printing the worker's
   resident memory as it goes (0 skips it); then stops the servers and drops the
   database.

Exit status: 0 when every target was met (no error, no lost write, each round's p95,
the one-typist ratio, what PDFs add), 1 when one was missed (printed "MISSED" or
"ABOVE target"), 2 when it cannot run (no PostgreSQL). The load generator shares the
machine with the server: a missed latency target on a busy machine is worth a rerun.

One module per part: ``config`` (targets and sizes), ``page`` (the wizard's form as a
browser submits it), ``typist``, ``servers`` (database, users, gunicorn, worker),
``rounds``, ``soak`` and ``run`` (the whole run).
"""

from .config import TARGET_P95_MS, TARGET_RATIO
from .rounds import at_most, round_verdict
from .run import main

__all__ = ["TARGET_P95_MS", "TARGET_RATIO", "at_most", "main", "round_verdict"]
