"""What the configured log handler writes (issue 30): a value in a record cannot start
a line of its own or steer a terminal, and a client error is one line.

The output read here is the real one: the stream of the ``console`` handler that
``LOGGING`` configures, with its filters and formatter, not the records alone."""

import io
import json
import logging
import re
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from aifactory.requestlog import REQUEST_ID_HEADER, JsonFormatter

pytestmark = pytest.mark.django_db

# A record's first line starts with its time; nothing else may start a line.
RECORD_START = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ ")
FORGED = "2026-12-04 23:59:59,000 ERROR django.request INJECTED"
# CR LF and a forged record, an ANSI colour, U+2028, NEL (C1), DEL and a bidi override.
HOSTILE_PATH = (
    "/nope%0d%0a2026-12-04%2023:59:59,000%20ERROR%20django.request%20INJECTED"
    "%1b[31mred%e2%80%a8next%c2%85nel%7fdel%e2%80%aeflip"
)
ESCAPED_PATH = (
    r"/nope\r\n2026-12-04 23:59:59,000 ERROR django.request INJECTED"
    r"\x1b[31mred\u2028next\x85nel\x7fdel\u202eflip"
)


@pytest.fixture
def log_output():
    """Everything the configured console handler writes while the test runs."""
    handler = next(h for h in logging.getLogger().handlers if h.name == "console")
    stream = io.StringIO()
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


@pytest.fixture
def json_output(log_output):
    handler = next(h for h in logging.getLogger().handlers if h.name == "console")
    previous = handler.formatter
    handler.setFormatter(JsonFormatter())
    yield log_output
    handler.setFormatter(previous)


def lines_of(output: io.StringIO) -> list[str]:
    """The lines a viewer shows: ``splitlines`` breaks at every line separator
    (CR, LF, VT, FF, FS, GS, RS, NEL, U+2028, U+2029)."""
    return output.getvalue().splitlines()


def test_a_hostile_path_is_written_escaped_on_one_line(client, log_output):
    response = client.get(HOSTILE_PATH)
    assert response.status_code == 404
    lines = lines_of(log_output)
    assert all(RECORD_START.match(line) for line in lines), lines
    assert not any(line.startswith(FORGED) for line in lines)
    written = log_output.getvalue()
    for raw in ("\r", "\x1b", "\u2028", "\x85", "\x7f", "\u202e"):
        assert raw not in written
    request_id = response.headers[REQUEST_ID_HEADER]
    access = [line for line in lines if " aifactory.request " in line]
    assert access == [
        access[0].split(" INFO ")[0]
        + f" INFO aifactory.request [{request_id}] GET {ESCAPED_PATH} 404 "
        + access[0].rsplit(" ", 1)[1]
    ]


def test_a_value_s_own_backslash_is_escaped_so_the_line_reads_one_way(
    client, log_output
):
    client.get("/nope%5cr%5cn")  # a backslash, "r", a backslash, "n": no CR LF
    access = next(line for line in lines_of(log_output) if "aifactory.request" in line)
    assert r"GET /nope\\r\\n 404 " in access


def test_json_lines_are_one_valid_object_holding_the_exact_path(client, json_output):
    client.get(HOSTILE_PATH)
    written = json_output.getvalue()
    assert written.isascii()
    entries = [json.loads(line) for line in lines_of(json_output)]
    access = [e for e in entries if e["logger"] == "aifactory.request"]
    assert len(access) == 1
    assert access[0]["route"] == (
        "/nope\r\n" + FORGED + "\x1b[31mred\u2028next\x85nel\x7fdel\u202eflip"
    )


def test_fields_given_with_extra_cannot_replace_the_record_s_own(json_output):
    logging.getLogger("aifactory.test").warning(
        "real", extra={"level": "DEBUG", "logger": "x", "time": "then", "n": 1e999}
    )
    entry = json.loads(lines_of(json_output)[-1])  # Infinity is no JSON: a string
    assert (entry["level"], entry["logger"]) == ("WARNING", "aifactory.test")
    assert entry["time"] != "then" and entry["n"] == "inf"


def test_every_logger_s_message_is_escaped_not_only_the_request_line(log_output):
    logging.getLogger("aifactory.test").warning(
        "line one\nFAKE %s", "two\r\nthree\x1b[2J"
    )
    (line,) = lines_of(log_output)
    assert line.endswith(r"line one\nFAKE two\r\nthree\x1b[2J")


def test_a_server_error_keeps_its_traceback_indented_below_its_line(
    user, settings, log_output
):
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.force_login(user)
    boom = RuntimeError("boom\n" + FORGED + "\x1b[31m")
    with mock.patch("proposals.selectors.proposal_list_for_member", side_effect=boom):
        response = client.get(reverse("proposals:list"))
    assert response.status_code == 500
    lines = lines_of(log_output)
    error = next(i for i, line in enumerate(lines) if "ERROR django.request" in line)
    trace = lines[error + 1 :]
    assert trace[0] == "  Traceback (most recent call last):"
    assert "  RuntimeError: boom" in trace
    assert "  " + FORGED + r"\x1b[31m" in trace  # the exception's text: indented
    assert "\x1b" not in log_output.getvalue()
    # Every line is a record's first line or indented under one.
    assert all(RECORD_START.match(line) or line.startswith("  ") for line in lines)


def test_a_malformed_autosave_is_one_line_with_the_request_id(
    user_client, proposal, log_output
):
    url = reverse("proposals:step", args=[proposal.pk, "organisation"])
    response = user_client.post(url, {"bases": "{", "save": "1"})
    assert response.status_code == 400
    request_id = response.headers[REQUEST_ID_HEADER]
    written = log_output.getvalue()
    assert "Traceback" not in written
    lines = lines_of(log_output)
    assert all(RECORD_START.match(line) for line in lines), lines
    (reason,) = [line for line in lines if "bases must be a JSON object." in line]
    assert f" WARNING django.request [{request_id}] " in reason
    assert reason.endswith(f"bases must be a JSON object.: {url}")
    # Besides the reason, only the request's own line.
    assert [line for line in lines if request_id in line and line != reason] == [
        line for line in lines if f"POST {url} 400 " in line
    ]


def test_a_suspicious_request_is_one_line_too(client, log_output):
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert "Traceback" not in log_output.getvalue()
    lines = lines_of(log_output)
    (reason,) = [line for line in lines if "django.security.DisallowedHost" in line]
    assert f"[{response.headers[REQUEST_ID_HEADER]}]" in reason
    assert "Invalid HTTP_HOST header: 'evil.example'" in reason


def test_a_client_error_has_no_traceback_in_json_either(
    user_client, proposal, json_output
):
    url = reverse("proposals:step", args=[proposal.pk, "organisation"])
    user_client.post(url, {"bases": "[]", "save": "1"})
    entries = [json.loads(line) for line in lines_of(json_output)]
    (reason,) = [e for e in entries if e["logger"] == "django.request"]
    assert reason["message"].startswith("bases must map input names to text.")
    assert reason["status_code"] == 400
    assert "exception" not in reason


def test_django_s_own_console_writes_nothing_unescaped_in_debug(
    settings, log_output, capfd
):
    """Django's default console handler (debug only) writes ``%(message)s`` and the
    traceback as they are; the configuration replaces it with the escaping one."""
    settings.DEBUG = True
    logging.getLogger("django.request").warning("Not Found: %s", "/x\nFORGED")
    assert capfd.readouterr().err == ""
    (line,) = lines_of(log_output)
    assert line.endswith(r"Not Found: /x\nFORGED")


def test_runserver_s_request_lines_are_escaped(log_output):
    logging.getLogger("django.server").warning(
        '"%s" %s %s', "GET /\x1b[2J\x9b HTTP/1.1", "404", "0"
    )
    (line,) = lines_of(log_output)
    assert line.endswith(r'"GET /\x1b[2J\x9b HTTP/1.1" 404 0')
