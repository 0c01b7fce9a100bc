"""Production plumbing: the health endpoints, the request id in logs, headers and the
500 page, the database cache table created by migrate, and the error mails."""

import json
import logging
import re
from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.core.management.sql import emit_post_migrate_signal
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from aifactory import health
from aifactory.requestlog import REQUEST_ID_HEADER, JsonFormatter, RequestIdFilter

pytestmark = pytest.mark.django_db

LIST = reverse("proposals:list")
OUTAGE = "proposals.selectors.proposal_list_for_member"
DB_CACHE = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "aifactory_cache_probe",
    }
}


@pytest.fixture
def production_like(settings):
    """Debug off, HTTPS redirect on, and a host list the probe's Host is not in."""
    settings.DEBUG = False
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["wizard.example.eu"]


def _ready_task(**fields):
    from django_tasks_db.models import DBTaskResult, get_date_max

    task = DBTaskResult.objects.create(
        task_path="proposals.services.mail.deliver_mail",
        args_kwargs={"args": [1], "kwargs": {}},
        backend_name="default",
        queue_name="default",
        run_after=fields.pop("run_after", get_date_max()),
    )
    if fields:
        DBTaskResult.objects.filter(pk=task.pk).update(**fields)
    return task


# Health ----------------------------------------------------------------------------


def test_healthz_answers_without_database_login_host_or_https(
    client, production_like, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = client.get("/healthz", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"process": True}}
    assert response.headers["Cache-Control"] == "no-store"


def test_readyz_reports_each_check_and_nothing_else(client, production_like):
    response = client.get("/readyz", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": True, "cache": True},
    }


def test_readyz_is_503_when_the_database_does_not_answer(client, production_like):
    with (
        mock.patch.object(
            health, "check_database", side_effect=OperationalError("refused")
        ),
        mock.patch.dict(health.READINESS_CHECKS, {"database": health.check_database}),
    ):
        response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body == {
        "status": "fail",
        "checks": {"database": False, "cache": False},
    }
    assert "refused" not in response.text


def test_a_failing_probe_mails_no_admin(client, production_like, settings):
    """A monitor probes every few seconds for the whole outage: its 503 is a logged
    warning, not a server-error report mailed to ADMINS each time."""
    settings.ADMINS = [("Ops", "ops@example.eu")]
    with (
        mock.patch.object(
            health, "check_database", side_effect=OperationalError("refused")
        ),
        mock.patch.dict(health.READINESS_CHECKS, {"database": health.check_database}),
    ):
        for _ in range(3):
            assert client.get("/readyz").status_code == 503
    assert [m.subject for m in mail.outbox] == []


def test_readyz_is_503_without_the_cache_table(client, settings):
    settings.CACHES = DB_CACHE
    assert "aifactory_cache_probe" not in connection.introspection.table_names()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["cache"] is False


def test_migrate_creates_the_database_cache_table(client, settings):
    """Forgetting `createcachetable` cannot happen: migrate's end creates it."""
    settings.CACHES = DB_CACHE
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert "aifactory_cache_probe" in connection.introspection.table_names()
    assert client.get("/readyz").json()["checks"]["cache"] is True


def test_a_task_backlog_keeps_every_instance_ready(client, production_like):
    """Deadline day: PDFs queue up for an hour. Readiness is about this instance
    (its database, its cache); a shared queue's backlog must not take every
    instance out of the load balancer at once (issue 33). /metrics reports it."""
    for _ in range(120):
        _ready_task(enqueued_at=timezone.now() - timedelta(hours=1))
    response = client.get("/readyz", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": True, "cache": True},
    }


def test_health_endpoints_take_no_writes(client):
    assert client.post("/healthz").status_code == 405
    assert client.post("/readyz").status_code == 405


# Request id and the log line -------------------------------------------------------


def test_every_answer_carries_a_request_id(client):
    first = client.get("/")
    second = client.get("/")
    assert re.fullmatch(r"[0-9a-f]{32}", first.headers[REQUEST_ID_HEADER])
    assert first.headers[REQUEST_ID_HEADER] != second.headers[REQUEST_ID_HEADER]


def test_the_proxy_s_request_id_is_kept(client):
    given = "7d1c8e0f4b2a4c6e9f0a1b2c3d4e5f60"
    response = client.get("/", HTTP_X_REQUEST_ID=given)
    assert response.headers[REQUEST_ID_HEADER] == given


@pytest.mark.parametrize("offered", ["short", "has space in it", "x" * 65, "é" * 10])
def test_an_implausible_request_id_is_replaced(client, offered):
    response = client.get("/", HTTP_X_REQUEST_ID=offered)
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers[REQUEST_ID_HEADER])


def test_one_line_per_request_with_id_route_status_and_duration(
    client, caplog, proposal
):
    client.force_login(proposal.owner)
    url = reverse("proposals:step", args=[proposal.pk, "organisation"])
    with caplog.at_level(logging.INFO, logger="aifactory.request"):
        response = client.get(url)
    lines = [r for r in caplog.records if r.name == "aifactory.request"]
    assert len(lines) == 1
    line = lines[0]
    assert line.request_id == response.headers[REQUEST_ID_HEADER]
    assert line.status == 200
    assert line.method == "GET"
    assert line.duration_ms >= 0
    assert line.route == url
    assert line.getMessage().startswith(f"GET {url} 200 ")


@pytest.mark.parametrize(
    "name, logged",
    [
        ("verify_email", "/accounts/verify/<uidb64>/<token>/"),
        ("password_reset_confirm", "/accounts/reset/<uidb64>/<token>/"),
    ],
)
def test_the_log_line_never_holds_a_login_link(client, caplog, name, logged):
    url = reverse(name, args=["MTIzNDU", "secret-token-123"])
    with caplog.at_level(logging.INFO, logger="aifactory.request"):
        client.get(url + "?next=/x")
    assert "secret-token-123" not in caplog.text
    assert "MTIzNDU" not in caplog.text
    assert f"GET {logged} " in caplog.text
    assert "next=" not in caplog.text


def test_successful_probes_are_not_logged(client, caplog):
    with caplog.at_level(logging.INFO, logger="aifactory.request"):
        for path in ("/healthz", "/readyz", "/healthz/", "/readyz/"):
            assert client.get(path).status_code == 200
    assert not [r for r in caplog.records if r.name == "aifactory.request"]


def test_the_500_page_shows_the_request_id_the_log_carries(user, settings, caplog):
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.force_login(user)
    with (
        mock.patch(OUTAGE, side_effect=RuntimeError("boom")),
        caplog.at_level(logging.INFO),
    ):
        response = client.get(LIST)
    request_id = response.headers[REQUEST_ID_HEADER]
    assert response.status_code == 500
    assert request_id in response.text
    error = next(r for r in caplog.records if r.name == "django.request")
    assert error.request_id == request_id
    assert "boom" in error.exc_text or "boom" in str(error.exc_info[1])
    line = next(r for r in caplog.records if r.name == "aifactory.request")
    assert (line.request_id, line.status, line.levelname) == (request_id, 500, "ERROR")


def test_admins_receive_the_error_report(user, settings):
    settings.DEBUG = False
    settings.ADMINS = [("Ops", "ops@example.eu")]
    settings.SERVER_EMAIL = "wizard@example.eu"
    client = Client(raise_request_exception=False)
    client.force_login(user)
    with mock.patch(OUTAGE, side_effect=RuntimeError("boom")):
        client.get(LIST)
    reports = [m for m in mail.outbox if m.to == ["ops@example.eu"]]
    assert len(reports) == 1
    assert reports[0].from_email == "wizard@example.eu"
    assert "RuntimeError" in reports[0].body


def test_json_log_format_is_one_object_per_line():
    record = logging.makeLogRecord(
        {
            "name": "aifactory.request",
            "levelname": "INFO",
            "levelno": logging.INFO,
            "msg": "GET %s %s",
            "args": ("/", 200),
            "status": 200,
            "route": "/",
            "duration_ms": 3.2,
        }
    )
    RequestIdFilter().filter(record)
    entry = json.loads(JsonFormatter().format(record))
    assert entry["message"] == "GET / 200"
    assert entry["status"] == 200
    assert entry["duration_ms"] == 3.2
    assert entry["request_id"] == "-"
    assert entry["level"] == "INFO"
    assert "\n" not in JsonFormatter().format(record)


def test_json_lines_hold_no_login_link(client, caplog):
    """Django's own line about a bad link carries the request: the JSON line must
    not write it out (its repr holds the path)."""
    url = reverse("verify_email", args=["MTIzNDU", "secret-token-123"])
    with caplog.at_level(logging.INFO):
        client.get(url)
    written = [JsonFormatter().format(r) for r in caplog.records]
    assert any("Bad Request: /accounts/verify/<uidb64>/<token>/" in w for w in written)
    assert not [w for w in written if "secret-token-123" in w]


def test_the_development_servers_lines_pass_the_filter():
    """``make run``'s server logs each request with its socket as the record's
    ``request``: the filter leaves such a line as it is (it used to raise on every
    request, a traceback after each line of the development server)."""
    import socket

    with socket.socket() as sock:
        record = logging.LogRecord(
            "django.server",
            logging.INFO,
            __file__,
            1,
            '"%s" %s %s',
            ("GET / HTTP/1.1", "200", "5"),
            None,
        )
        record.request = sock
        assert RequestIdFilter().filter(record)
    assert record.getMessage() == '"GET / HTTP/1.1" 200 5'


def test_the_id_is_forgotten_when_the_request_is_finished(client):
    from aifactory.requestlog import current_request_id

    response = client.get("/glossary/")
    assert response.headers[REQUEST_ID_HEADER]
    assert current_request_id() == "-"
