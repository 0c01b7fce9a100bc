"""``manage.py runserver 8101`` (the second way to serve, beside ``make run PORT=``)
once mailed confirmation links to port 8000: with no DJANGO_SITE_URL, the
development server's own address is the site's address (issue 36)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aifactory.env import dev_server_url

ROOT = Path(__file__).resolve().parents[2]


def _site_url(*argv: str, **env: str) -> str:
    """settings.SITE_URL as a process started as ``manage.py *argv`` reads it."""
    environ = {k: v for k, v in os.environ.items() if k != "DJANGO_SITE_URL"}
    environ.update(DJANGO_DEBUG="1", DJANGO_SETTINGS_MODULE="aifactory.settings", **env)
    code = (
        "import sys; sys.argv = ['manage.py', *sys.argv[1:]]; "
        "from django.conf import settings; print(settings.SITE_URL)"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_runserver_on_another_port_mails_links_to_that_port():
    assert _site_url("runserver", "8101") == "http://127.0.0.1:8101"
    assert _site_url("runserver", "localhost:8102") == "http://localhost:8102"


def test_an_explicit_site_url_still_wins_and_other_commands_keep_the_default():
    configured = _site_url("runserver", "8101", DJANGO_SITE_URL="https://w.example.eu")
    assert configured == "https://w.example.eu"
    assert _site_url("db_worker") == "http://127.0.0.1:8000"


@pytest.mark.parametrize(
    ("argv", "url"),
    [
        (["manage.py", "runserver"], "http://127.0.0.1:8000"),
        (["manage.py", "runserver", "--noreload", "8101"], "http://127.0.0.1:8101"),
        (["manage.py", "runserver", "0.0.0.0:8103"], "http://127.0.0.1:8103"),
        (["manage.py", "runserver", "[::1]:8104"], "http://[::1]:8104"),
        (["manage.py", "migrate"], ""),
        (["gunicorn"], ""),
    ],
)
def test_dev_server_url_reads_the_address_runserver_is_given(argv, url):
    assert dev_server_url(argv) == url
