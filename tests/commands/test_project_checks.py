"""The project's system checks an operator meets: the interface's catalogues must be
compiled (every command that checks, ``check --deploy`` included), and ``check
--deploy`` refuses a site address left at the development default and warns about a
cache kept in each process."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from proposals import checks as project_checks

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = [("en-gb", "English"), ("de", "Deutsch"), ("fr", "Français")]
PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Save"
msgstr "{word}"
"""


def _catalogue(root: Path, language: str, word: str, *, compiled: bool) -> Path:
    po = root / language / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    po.write_text(PO.format(word=word), encoding="utf-8")
    if compiled:
        subprocess.run(["msgfmt", "-o", po.with_suffix(".mo"), po], check=True)
    return po


def _ids(messages) -> list[str]:
    return [message.id for message in messages]


@pytest.fixture
def locale(tmp_path, settings):
    settings.LANGUAGES = LANGUAGES
    settings.LOCALE_PATHS = [tmp_path]
    return tmp_path


needs_msgfmt = pytest.mark.skipif(
    not shutil.which("msgfmt"), reason="gettext's msgfmt (Debian: gettext)"
)


@needs_msgfmt
def test_compiled_catalogues_pass(locale):
    _catalogue(locale, "de", "Speichern", compiled=True)
    _catalogue(locale, "fr", "Enregistrer", compiled=True)
    assert project_checks.interface_languages_are_compiled() == []


@needs_msgfmt
def test_a_catalogue_never_compiled_is_an_error(locale):
    _catalogue(locale, "de", "Speichern", compiled=True)
    _catalogue(locale, "fr", "Enregistrer", compiled=False)
    (error,) = project_checks.interface_languages_are_compiled()
    assert error.id == "proposals.E002" and error.is_serious()
    assert "Français (fr)" in error.msg and "no django.mo" in error.msg
    assert "make install-prod" in error.hint


@needs_msgfmt
def test_a_catalogue_changed_since_it_was_compiled_is_an_error(locale):
    _catalogue(locale, "de", "Speichern", compiled=True)
    po = _catalogue(locale, "fr", "Enregistrer", compiled=True)
    compiled = po.with_suffix(".mo").stat().st_mtime
    os.utime(po, (compiled + 60, compiled + 60))  # a `git pull` changed it
    (error,) = project_checks.interface_languages_are_compiled()
    assert error.id == "proposals.E002"
    assert "older than django.po" in error.msg


def test_a_language_without_any_catalogue_is_an_error(locale):
    (locale / "de").mkdir()
    assert _ids(project_checks.interface_languages_are_compiled()) == [
        "proposals.E002",
        "proposals.E002",
    ]


@needs_msgfmt
def test_an_uncompiled_catalogue_fails_check_and_check_deploy(locale):
    """An Error: ``check --deploy`` (and every command that runs the checks, such as
    ``migrate`` and the task worker) stops instead of serving English."""
    _catalogue(locale, "de", "Speichern", compiled=False)
    _catalogue(locale, "fr", "Enregistrer", compiled=True)
    for deploy in (False, True):
        with pytest.raises(SystemCheckError, match="proposals.E002"):
            call_command("check", deploy=deploy, tags=["translation"])


# -- check --deploy: the site's address in mails ------------------------------------


@pytest.fixture
def production(settings):
    settings.ALLOWED_HOSTS = ["wizard.example.eu"]
    settings.SECURE_SSL_REDIRECT = True
    settings.SINGLE_INSTANCE = False
    return settings


@pytest.mark.parametrize(
    "site_url, problem",
    [
        ("http://127.0.0.1:8000", "not an https:// address and its host '127.0.0.1'"),
        ("https://localhost:8000", "its host 'localhost' is not in"),
        ("http://wizard.example.eu", "not an https:// address."),
        ("wizard.example.eu", "its host '' is not in"),
    ],
)
def test_a_site_url_people_cannot_reach_is_an_error(production, site_url, problem):
    production.SITE_URL = site_url
    (error,) = project_checks.site_url_is_the_public_address()
    assert (error.id, error.is_serious()) == ("proposals.E003", True)
    assert problem in error.msg


def test_the_public_https_address_passes(production):
    production.SITE_URL = "https://wizard.example.eu"
    assert project_checks.site_url_is_the_public_address() == []
    production.ALLOWED_HOSTS = [".example.eu"]
    assert project_checks.site_url_is_the_public_address() == []
    production.SECURE_SSL_REDIRECT = False  # a site without TLS may mail http links
    production.SITE_URL = "http://wizard.example.eu:8080"
    assert project_checks.site_url_is_the_public_address() == []


# -- check --deploy: a cache kept in each process ------------------------------------

LOCMEM = "django.core.cache.backends.locmem.LocMemCache"


@pytest.mark.parametrize(
    "backend, location, warned",
    [
        (LOCMEM, "aifactory_cache", True),
        ("django.core.cache.backends.dummy.DummyCache", "", True),
        ("django.core.cache.backends.db.DatabaseCache", "aifactory_cache", False),
        (
            "django.core.cache.backends.redis.RedisCache",
            "redis://127.0.0.1:6379",
            False,
        ),
    ],
)
def test_a_cache_each_process_keeps_for_itself_is_warned_about(
    production, backend, location, warned
):
    production.CACHES = {"default": {"BACKEND": backend, "LOCATION": location}}
    found = project_checks.cache_is_shared_between_processes()
    assert _ids(found) == (["proposals.W001"] if warned else [])
    if warned:
        assert "DJANGO_SINGLE_INSTANCE=1" in found[0].hint
        assert "DJANGO_CACHE_URL=redis://" in found[0].hint


def test_a_cached_session_store_must_be_shared_too(production):
    production.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache"},
        "sessions": {"BACKEND": LOCMEM},
    }
    production.SESSION_ENGINE = "django.contrib.sessions.backends.cache"
    production.SESSION_CACHE_ALIAS = "sessions"
    (warning,) = project_checks.cache_is_shared_between_processes()
    assert "'sessions'" in warning.msg


def test_one_instance_says_so_and_is_not_warned(production):
    production.CACHES = {"default": {"BACKEND": LOCMEM}}
    production.SINGLE_INSTANCE = True
    assert project_checks.cache_is_shared_between_processes() == []


# -- the operator's command, in a fresh process from the environment alone ---------

PRODUCTION_ENV = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "k" * 50 + "production-like-secret-for-the-test",
    "DJANGO_ALLOWED_HOSTS": "wizard.example.eu",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://wizard.example.eu",
}


def _check_deploy(**extra) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(PRODUCTION_ENV, DJANGO_SETTINGS_MODULE="aifactory.settings", **extra)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_refuses_the_development_site_url_and_a_per_process_cache():
    done = _check_deploy()
    assert done.returncode == 1
    assert "proposals.E003" in done.stderr and "proposals.W001" in done.stderr
    fixed = _check_deploy(
        DJANGO_SITE_URL="https://wizard.example.eu", DJANGO_CACHE_BACKEND="db"
    )
    assert fixed.returncode == 0, fixed.stderr
    one = _check_deploy(
        DJANGO_SITE_URL="https://wizard.example.eu", DJANGO_SINGLE_INSTANCE="1"
    )
    assert one.returncode == 0, one.stderr
