"""The whole check: bring the stack up, walk it, stop it."""

from __future__ import annotations

import shutil
import signal
import sys
import time
from pathlib import Path

from .common import wait_for
from .deadline import deadline_backlog
from .edge import edge_limits
from .hostile_logs import hostile_log_uploads
from .oidc_sign_in import oidc_sign_in, start_provider
from .pages import Browser
from .recipe import operator_recipe
from .redis_cache import instances_on_redis
from .stack import Stack
from .walk import (
    autosaves_on_both,
    create_proposal,
    health,
    health_after,
    one_instance_down,
    pdf_through_the_worker,
    request_ids,
    sign_up,
    static_files,
    test_mail,
)


def main() -> int:
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        print("prodcheck: needs nginx (apt-get install nginx)", file=sys.stderr)
        return 2
    # Stopped from outside (a CI time limit): still stop what was started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    stack = Stack()
    started = time.monotonic()
    failed = False
    try:
        stack.step("Scratch PostgreSQL database", stack.create_database)
        stack.step("Install from requirements/production.txt", stack.install)
        stack.step("SMTP relay (STARTTLS, login)", stack.start_relay)
        provider = stack.step(
            "OpenID Connect provider on loopback (django-oauth-toolkit)",
            start_provider, stack,
        )  # fmt: skip
        stack.step(
            "check --deploy", stack.manage, "check", "--deploy", "--fail-level",
            "WARNING",
        )  # fmt: skip
        stack.step("migrate", stack.manage, "migrate", "--noinput")
        stack.step("collectstatic", stack.manage, "collectstatic", "--noinput")

        def servers():
            stack.start_web("web-a")
            stack.start_web("web-b")
            stack.start_worker()
            stack.start_nginx()
            for port in stack.web_ports.values():
                wait_for(f"gunicorn on {port}", lambda p=port: stack._listening(p))

        stack.step("Two gunicorn instances, the worker, nginx", servers)
        browser = Browser(stack)
        stack.step("Health endpoints", health, stack, browser)
        stack.step(
            "Static files from the collected directory", static_files, stack, browser
        )
        stack.step(
            "Sign-up, confirmation mail through the relay", sign_up, stack, browser
        )
        stack.step(
            "Sign-in with OpenID Connect through nginx (code flow, PKCE), "
            "signed in on both instances",
            oidc_sign_in, stack, provider,
        )  # fmt: skip
        proposal = stack.step("A proposal", create_proposal, stack, browser)
        typist = stack.step(
            "Autosave on one instance, the next on the other",
            autosaves_on_both, stack, browser, proposal,
        )  # fmt: skip
        stack.step(
            "A PDF through the worker", pdf_through_the_worker, stack, browser, proposal
        )
        stack.step("sendtestemail through the relay", test_mail, stack, browser)
        stack.step(
            "nginx: HEAD as GET, 413 for 5 MB, 60 MB logs", edge_limits, stack, browser
        )
        stack.step(
            "Six hostile 50 MB logs at once: read by the worker, /healthz as fast",
            hostile_log_uploads, stack, browser,
        )  # fmt: skip
        stack.step(
            "Deadline: 120 PDFs queued, no worker; both ready, /metrics reports it",
            deadline_backlog, stack, browser, typist, proposal,
        )  # fmt: skip
        stack.step(
            "One instance killed: the other serves, saves, the worker recycles",
            one_instance_down, stack, browser, typist, proposal,
        )  # fmt: skip
        stack.step(
            "Request id in the answer and both logs", request_ids, stack, browser
        )
        operator_recipe(stack, proposal)  # install-prod's catalogues, the backup
        stack.step(
            "Both instances on Redis: sessions, limits, a Redis restart",
            instances_on_redis, stack, browser, typist,
        )  # fmt: skip
        stack.step("Health endpoints after all that", health_after, stack, browser)
    except Exception as exc:  # a failed check, or anything the walk did not expect
        failed = True
        print(f"prodcheck FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        stack.print_logs()
    finally:
        stack.step("Stop everything", stack.stop)
        stack.drop_database()
        shutil.rmtree(stack.dir, ignore_errors=True)
    total = time.monotonic() - started
    print(f"prodcheck {'FAILED' if failed else 'passed'} in {total:.0f} s")
    return 1 if failed else 0
