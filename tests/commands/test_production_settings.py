"""The production settings as an operator sets them, read in a fresh process from the
environment alone: the mail relay (port, STARTTLS or TLS, login, timeout), the error
reports' addresses, the proxy headers, connection reuse; `manage.py sendtestemail`
through a relay that demands STARTTLS and a login; `check --deploy` clean."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.smtp_sink import SmtpSink

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "k" * 50 + "production-like-secret-for-the-test",
    "DJANGO_ALLOWED_HOSTS": "wizard.example.eu",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://wizard.example.eu",
    "DJANGO_SITE_URL": "https://wizard.example.eu",
    "DJANGO_BEHIND_PROXY": "1",
    "DJANGO_CACHE_BACKEND": "db",
}

PRINT_SETTINGS = """
import json, django
django.setup()
from django.conf import settings as s
names = ["EMAIL_HOST", "EMAIL_PORT", "EMAIL_USE_TLS", "EMAIL_USE_SSL",
         "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_TIMEOUT", "ADMINS",
         "SERVER_EMAIL", "CSRF_TRUSTED_ORIGINS", "USE_X_FORWARDED_HOST"]
out = {name: getattr(s, name) for name in names}
out["SECURE_PROXY_SSL_HEADER"] = getattr(s, "SECURE_PROXY_SSL_HEADER", None)
out["CONN_MAX_AGE"] = s.DATABASES["default"]["CONN_MAX_AGE"]
out["CONN_HEALTH_CHECKS"] = s.DATABASES["default"]["CONN_HEALTH_CHECKS"]
print(json.dumps(out))
"""


def _environment(**extra) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(PRODUCTION_ENV, DJANGO_SETTINGS_MODULE="aifactory.settings", **extra)
    return env


def _run(args, **extra):
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=_environment(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _settings(**extra) -> dict:
    done = _run(["-c", PRINT_SETTINGS], **extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_relay_and_the_proxy_come_from_the_environment():
    values = _settings(
        DJANGO_EMAIL_HOST="smtp.example.eu",
        DJANGO_EMAIL_PORT="587",
        DJANGO_EMAIL_USE_TLS="1",
        DJANGO_EMAIL_HOST_USER="wizard",
        DJANGO_EMAIL_HOST_PASSWORD="relay-secret",
        DJANGO_EMAIL_TIMEOUT="7",
        DJANGO_ADMINS="Ops Team <ops@example.eu>, oncall@example.eu",
        DJANGO_SERVER_EMAIL="wizard-errors@example.eu",
        DJANGO_USE_X_FORWARDED_HOST="1",
        DJANGO_CONN_MAX_AGE="300",
        DJANGO_CONN_HEALTH_CHECKS="0",
    )
    assert values == {
        "EMAIL_HOST": "smtp.example.eu",
        "EMAIL_PORT": 587,
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_HOST_USER": "wizard",
        "EMAIL_HOST_PASSWORD": "relay-secret",
        "EMAIL_TIMEOUT": 7,
        "ADMINS": [["Ops Team", "ops@example.eu"], ["oncall@example.eu"] * 2],
        "SERVER_EMAIL": "wizard-errors@example.eu",
        "CSRF_TRUSTED_ORIGINS": ["https://wizard.example.eu"],
        "USE_X_FORWARDED_HOST": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "CONN_MAX_AGE": 300,
        "CONN_HEALTH_CHECKS": False,
    }


def test_the_defaults_are_a_local_relay_with_a_timeout():
    values = _settings(DJANGO_BEHIND_PROXY="0")
    assert (values["EMAIL_PORT"], values["EMAIL_TIMEOUT"]) == (25, 10)
    assert values["EMAIL_USE_TLS"] is values["EMAIL_USE_SSL"] is False
    assert values["ADMINS"] == []
    assert values["SERVER_EMAIL"] == "AI Factory wizard <noreply@localhost>"
    assert values["SECURE_PROXY_SSL_HEADER"] is None
    assert values["USE_X_FORWARDED_HOST"] is False
    assert (values["CONN_MAX_AGE"], values["CONN_HEALTH_CHECKS"]) == (60, True)


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            {"DJANGO_EMAIL_USE_TLS": "1", "DJANGO_EMAIL_USE_SSL": "1"},
            "not both",
        ),
        ({"DJANGO_EMAIL_PORT": "smtp"}, "DJANGO_EMAIL_PORT must be a whole number"),
        ({"DJANGO_ADMINS": "ops"}, "DJANGO_ADMINS must list mail addresses"),
        ({"DJANGO_LOG_FORMAT": "xml"}, "DJANGO_LOG_FORMAT must be text or json"),
        (
            {"DJANGO_CONN_MAX_AGE": "5m"},
            "DJANGO_CONN_MAX_AGE must be a whole number",
        ),
        (
            {"DJANGO_HSTS_SECONDS": "1 year"},
            "DJANGO_HSTS_SECONDS must be a whole number",
        ),
    ],
)
def test_a_wrong_setting_stops_the_start_with_its_name(extra, message):
    done = _run(["-c", PRINT_SETTINGS], **extra)
    assert done.returncode != 0
    assert message in done.stderr


def test_check_deploy_is_clean_in_a_production_environment():
    done = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        DJANGO_EMAIL_HOST="smtp.example.eu",
        DJANGO_EMAIL_PORT="587",
        DJANGO_EMAIL_USE_TLS="1",
        DJANGO_ADMINS="ops@example.eu",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


@pytest.fixture
def relay(tmp_path):
    sink = SmtpSink(user="wizard", password="relay-secret", certdir=tmp_path).start()
    yield sink
    sink.stop()


def _relay_env(relay, password="relay-secret"):
    return {
        "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "DJANGO_EMAIL_HOST": "localhost",
        "DJANGO_EMAIL_PORT": str(relay.port),
        "DJANGO_EMAIL_USE_TLS": "1",
        "DJANGO_EMAIL_HOST_USER": "wizard",
        "DJANGO_EMAIL_HOST_PASSWORD": password,
        "DJANGO_EMAIL_TIMEOUT": "5",
        "DJANGO_DEFAULT_FROM_EMAIL": "wizard@example.eu",
        "DJANGO_ADMINS": "Ops <ops@example.eu>",
        # The relay's throwaway certificate is the only one this process trusts.
        "SSL_CERT_FILE": str(relay.cert),
    }


def test_sendtestemail_goes_through_the_relay_with_starttls_and_login(relay):
    done = _run(
        ["manage.py", "sendtestemail", "someone@example.eu", "--admins"],
        **_relay_env(relay),
    )
    assert done.returncode == 0, done.stderr
    recipients = sorted(to for message in relay.messages for to in message["to"])
    assert recipients == ["ops@example.eu", "someone@example.eu"]
    assert all(m["tls"] and m["login"] == "wizard" for m in relay.messages)
    assert all(m["from"] == "wizard@example.eu" for m in relay.messages)


def test_a_wrong_relay_password_fails_loudly(relay):
    done = _run(
        ["manage.py", "sendtestemail", "someone@example.eu"],
        **_relay_env(relay, password="wrong"),
    )
    assert done.returncode != 0
    assert "SMTPAuthenticationError" in done.stderr
    assert relay.messages == []


def test_a_silent_database_host_costs_seconds_not_minutes():
    """A PostgreSQL host that stops answering fails the connection after 5 s (then
    /readyz says 503 and pages show the outage page, within gunicorn's timeout),
    unless DATABASE_URL chooses its own connect_timeout."""
    url = "postgres://wizard:pw@db.example.eu:5432/wizard"
    show = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.DATABASES['default']['OPTIONS']['connect_timeout'])"
    )
    done = _run(["-c", show], DATABASE_URL=url)
    assert (done.returncode, done.stdout.strip()) == (0, "5"), done.stderr
    done = _run(["-c", show], DATABASE_URL=url + "?connect_timeout=2")
    assert (done.returncode, done.stdout.strip()) == (0, "2"), done.stderr
