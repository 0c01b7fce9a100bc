"""HSTS ``preload`` is the site's choice (``DJANGO_HSTS_PRELOAD``), off by default:
preloading puts the whole domain on the browsers' built-in HTTPS list, which a
deployment of this application cannot decide for its host (it was always sent)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HEADER = """
import django
django.setup()
from django.http import HttpResponse
from django.middleware.security import SecurityMiddleware
from django.test import RequestFactory
request = RequestFactory().get("/", secure=True, HTTP_HOST="wizard.example.eu")
print(SecurityMiddleware(lambda r: HttpResponse())(request)["Strict-Transport-Security"])
"""


def _header(**extra) -> str:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="aifactory.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="k" * 50 + "production-like-secret-for-the-test",
        DJANGO_ALLOWED_HOSTS="wizard.example.eu",
        DJANGO_CACHE_BACKEND="db",
        **extra,
    )
    done = subprocess.run(
        [sys.executable, "-c", HEADER],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_preload_is_off_by_default():
    assert _header() == "max-age=31536000; includeSubDomains"


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_preload_when_the_site_asks_for_it(value):
    assert _header(DJANGO_HSTS_PRELOAD=value) == (
        "max-age=31536000; includeSubDomains; preload"
    )


def test_no_preload_when_the_site_says_so():
    assert _header(DJANGO_HSTS_PRELOAD="0") == "max-age=31536000; includeSubDomains"
