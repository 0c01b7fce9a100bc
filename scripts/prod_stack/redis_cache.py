"""The two instances moved to a Redis cache (README, Production: several instances):
Debian's ``redis-server`` on loopback, ``check --deploy`` clean with
``DJANGO_CACHE_URL`` in place of ``DJANGO_CACHE_BACKEND=db``, both instances
restarted with it. Then: whoever was signed in stays signed in (sessions become
``cached_db``), the session is kept in Redis, the password-reset limit counts on
both instances together, and a Redis restart (this one keeps nothing on disk)
signs nobody out and costs no request an error. Last, Redis stopped: ``/readyz``
answers 503 naming the cache on both instances, the signed-in applicant's pages
and autosaves go on (sessions from the database), the password-reset form answers
the 503 page that names the cache, and all is ready again once Redis is back."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess

from tests.redis_server import RedisServer

from .common import check, wait_for
from .pages import Browser, form_with
from .stack import Stack
from .walk import Typist

ALLOWED_RESETS = 5  # proposals.views.accounts.PASSWORD_RESET_RATE, per hour


def _restart_instances(stack: Stack, env: dict[str, str]) -> None:
    for name in stack.web_ports:
        process = stack.processes.get(name)
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    for name, port in stack.web_ports.items():
        run = stack.dir / f"run-{name}"
        run.mkdir(exist_ok=True)
        stack.start(
            name,
            [str(stack.venv / "bin" / "gunicorn")],
            env=dict(
                env, GUNICORN_BIND=f"127.0.0.1:{port}", RUNTIME_DIRECTORY=str(run)
            ),
        )
    for port in stack.web_ports.values():
        wait_for(f"gunicorn on {port} with Redis", lambda p=port: stack._listening(p))


def _readiness(stack: Stack, name: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", stack.web_ports[name], timeout=10)
    conn.request("GET", "/readyz")
    response = conn.getresponse()
    checks = json.loads(response.read())["checks"]
    conn.close()
    return response.status, checks


def redis_stopped(stack, server, browser, typist) -> None:
    """Redis stopped: each piece fails in its defined way, nothing answers 500."""
    server.stop()
    for name in stack.web_ports:
        status, checks = _readiness(stack, name)
        check(
            (status, checks) == (503, {"database": True, "cache": False}),
            f"{name}: /readyz with Redis stopped answered {status} {checks}",
        )
    for via in stack.web_ports:
        browser.page("/proposals/", via=via)  # signed in: the session from the database
    typist.save("Saved while Redis was stopped.", via="nginx")
    stranger = Browser(stack)
    via = next(iter(stack.web_ports))
    action, fields = form_with(
        stranger.page("/accounts/password_reset/", via=via), "email"
    )
    fields["email"] = "nobody-during-the-outage@example.org"
    response, data = stranger.post(
        action or "/accounts/password_reset/", fields, via=via
    )
    check(
        response.status == 503 and b"cache" in data,
        f"a password reset with Redis stopped answered {response.status}",
    )
    server.start()
    stack.processes["redis"] = server.process
    for name in stack.web_ports:
        wait_for(
            f"{name} ready again with Redis back",
            lambda n=name: _readiness(stack, n)[0] == 200,
        )
    typist.save("Saved with Redis back.", via="nginx")


def _session_keys(server: RedisServer) -> int:
    answer = server.command(b"KEYS", b"*django.contrib.sessions.cached_db*") or b""
    return answer.count(b"django.contrib.sessions.cached_db")


def instances_on_redis(stack: Stack, browser: Browser, typist: Typist) -> dict:
    server = RedisServer(directory=stack.dir / "redis")
    server.dir.mkdir()
    server.start()
    stack.processes["redis"] = server.process  # stopped with the rest
    env = {k: v for k, v in stack.env.items() if k != "DJANGO_CACHE_BACKEND"}
    env.update(DJANGO_CACHE_URL=server.url(0), DJANGO_CACHE_KEY_PREFIX="prodcheck")
    stack.run(
        [
            str(stack.python),
            "manage.py",
            "check",
            "--deploy",
            "--fail-level",
            "WARNING",
        ],
        "check-deploy-redis",
        env=env,
    )
    _restart_instances(stack, env)

    # Signed in before the move (a database session): still signed in, on both.
    for via in stack.web_ports:
        browser.page("/proposals/", via=via)
    check(_session_keys(server) >= 1, "no session kept in Redis (cached_db)")
    typist.save("Saved with the cache in Redis.", via="nginx")

    # The reset limit per client address, spread over both instances.
    stranger = Browser(stack)
    answers = []
    for n in range(ALLOWED_RESETS + 1):
        via = list(stack.web_ports)[n % 2]
        action, fields = form_with(
            stranger.page("/accounts/password_reset/", via=via), "email"
        )
        fields["email"] = f"nobody{n}@example.org"
        response, _ = stranger.post(
            action or "/accounts/password_reset/", fields, via=via
        )
        answers.append(response.status)
    check(
        answers == [302] * ALLOWED_RESETS + [429],
        f"password resets over both instances answered {answers}",
    )

    # Redis restarted empty: nobody signed out, no request failed.
    server.restart()
    stack.processes["redis"] = server.process
    check(server.keys() == 0, "the restarted Redis is not empty")
    for _ in range(3):
        for via in stack.web_ports:
            browser.page("/proposals/", via=via)
    typist.save("Saved after Redis restarted.", via="nginx")
    check(
        "Saved after Redis restarted." in browser.page(typist.url),
        "the save after the Redis restart is not on the page",
    )
    check(_session_keys(server) >= 1, "the session was not kept in Redis again")
    redis_stopped(stack, server, browser, typist)
    figures = {"password resets over both instances": " ".join(map(str, answers))}
    for label, value in figures.items():
        print(f"    {label}: {value}", flush=True)
    return figures
