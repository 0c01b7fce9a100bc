"""``make prodcheck`` (``python -m scripts.prod_stack``): the README's production
path, brought up on this machine and walked as a person would, then stopped.

It starts, on the loopback interface only, in a scratch directory it removes:

* a scratch PostgreSQL database (on ``PRODCHECK_PG``, else ``DATABASE_URL``, else
  the machine's PostgreSQL 15 through ``scripts/local_postgres.sh``), dropped at the
  end;
* a virtual environment installed from ``requirements/production.txt`` alone, with
  ``pip --require-hashes`` (no test tool in it), which runs everything below;
* ``check --deploy``, ``migrate`` (no ``createcachetable``: migrate makes the cache
  table) and ``collectstatic``, with debug off and the settings from the environment;
* two gunicorn instances (``gunicorn.conf.py``, each its own control socket), the
  task worker under a supervisor loop that restarts it as systemd's
  ``Restart=always`` does (``--max-tasks 1``, so every PDF recycles it), an SMTP
  relay that demands STARTTLS (a throwaway self-signed certificate) and a login
  (``tests/smtp_sink.py``), and nginx from Debian with ``deploy/nginx/aifactory.conf``
  (ports, paths and certificate put in), over TLS;
* the OpenID Connect provider the web tests use (django-oauth-toolkit as its own
  Django project, ``tests/oidc_server.py``), the instances configured for it with
  ``DJANGO_OIDC_*`` only;

and then walks: the health endpoints, a static file served by nginx from the
collected directory, sign-up with the confirmation mail through the relay, a
sign-in through the provider (``oidc_sign_in``: the login page's link, the
authorization code flow with PKCE, every redirect followed through nginx by one
cookie-keeping client, then that session signed in on each instance), a
proposal, an autosave on one instance and the next on the other, a PDF through the
worker, ``sendtestemail``; nginx's edge (``edge``: HEAD, body limits); six hostile
50 MB training logs at once (``hostile_logs``: read by the worker, ``/healthz`` as
fast); a deadline's backlog of 120 PDF tasks with the worker stopped (``deadline``:
both instances stay ready, each one's ``/metrics`` reports the queue's depth and age,
then one worker drains it); kills one instance (SIGKILL) and sees the other serve,
autosave and render the next PDF through the restarted worker; checks the request id
in the answer, the application's JSON log and nginx's log; installs a fresh copy of
the tree with ``make install-prod`` and reads German in it as the service user; dumps
the database with ``deploy/backup/aifactory-backup`` and restores the dump into a
second database; then starts Debian's ``redis-server`` on loopback and restarts both
instances with ``DJANGO_CACHE_URL`` (``redis_cache``: still signed in, the reset limit
counted over both instances, a Redis restart signing nobody out); stops all it
started.

Exit status 0 when every step passed, 1 when one failed (its logs are printed),
2 when it cannot run (no PostgreSQL, no nginx).

One module per part: ``common`` (what every part shares), ``pages`` (forms and a
browser), ``stack`` (what is started and stopped), ``walk`` (the steps),
``oidc_sign_in`` (the provider), ``recipe`` (the install and the backup),
``redis_cache`` (the instances on Redis) and ``run``.
"""

from .run import main

__all__ = ["main"]
