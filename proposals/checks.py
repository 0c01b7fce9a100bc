"""The project's system checks: the data the code relies on (``manage.py check
--database default``; ``migrate`` runs them too, and they wait while migrations are
pending), the interface's compiled catalogues (every command that checks, and
``check --deploy``), and what ``check --deploy`` must refuse in a production
environment (the site's address in mails, a cache each process keeps for itself)."""

from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.core import checks
from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor
from django.http.request import validate_host
from django.utils.translation import to_locale

from proposals.domain.response_times import calendar_problem
from proposals.domain.terms import family_mismatch
from proposals.domain.types import CALL_FAMILY_LABELS


@checks.register(checks.Tags.database)
def call_families_match_their_terms(app_configs=None, databases=None, **kwargs):
    """The call families are defined in code (``types.CALL_FAMILY_LABELS``: the
    proposal's choices, the JSON format); their terms are admin rows. Each family
    needs its row with modes, and no row may name another family: an assessment of
    a family without terms fails (``terms.UnknownCallFamily``) rather than reading
    another family's terms."""
    if not databases or "default" not in databases:
        return []
    from proposals.assess import terms_from_db

    if _migrations_pending():
        return []  # ``migrate`` checks first: it must be able to load the terms
    try:
        terms = terms_from_db()
    except DatabaseError:  # no tables yet
        return []
    return [
        checks.Error(
            problem,
            hint="Give each family its terms and modes in the admin (Call "
            "families; the shipped ones are in fixtures/call_terms.json). A family "
            "is added or removed in proposals/domain/types.py, with a data "
            "migration for its terms.",
            id="proposals.E001",
        )
        for problem in family_mismatch(terms, CALL_FAMILY_LABELS)
    ]


def _migrations_pending() -> bool:
    """Whether the default database lacks migrations (a data migration may add the
    terms of a family the code has just gained)."""
    executor = MigrationExecutor(connections["default"])
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))


# --------------------------------------------------------------------------------------
# The interface's languages: each one's catalogues compiled, and not older than their
# sources. Without a .mo file Django falls back to English without a word, so a German
# or French site would speak English while every health check stays green.
# --------------------------------------------------------------------------------------

SOURCE_LANGUAGE = "en"  # the language of the msgids: it needs no catalogue
COMPILE_HINT = (
    "Compile the catalogues as the owner of the application's directory: "
    "`make install-prod VENV=/srv/aifactory/venv` does it (README, Production), "
    "or `manage.py compilemessages --ignore .venv --ignore node_modules` "
    "(gettext's msgfmt). The service user cannot write there."
)


@checks.register(checks.Tags.translation)
def interface_languages_are_compiled(app_configs=None, **kwargs):
    """Every language of ``LANGUAGES`` but English has its catalogues (``.po``) in
    ``LOCALE_PATHS``, each compiled (``.mo``), readable and not older than its
    source: an Error for each that is not."""
    errors = []
    for code, name in settings.LANGUAGES:
        if code.split("-")[0] == SOURCE_LANGUAGE:
            continue
        sources = sorted(
            po
            for path in settings.LOCALE_PATHS
            for po in (Path(path) / to_locale(code) / "LC_MESSAGES").glob("*.po")
        )
        if not sources:
            errors.append(
                checks.Error(
                    f"{name} ({code}) is in LANGUAGES but has no catalogue in "
                    "LOCALE_PATHS: its pages would be in English.",
                    hint="Add it with `make messages`, or remove it from LANGUAGES.",
                    id="proposals.E002",
                )
            )
        for po in sources:
            problem = _compiled_problem(po, po.with_suffix(".mo"))
            if problem:
                errors.append(
                    checks.Error(
                        f"{name} ({code}): {problem}: its pages would show the "
                        "English text (or the last compiled one) instead.",
                        hint=COMPILE_HINT,
                        id="proposals.E002",
                    )
                )
    return errors


def _compiled_problem(po: Path, mo: Path) -> str:
    """What is wrong with ``mo`` as the compiled ``po``, or an empty string."""
    try:
        with mo.open("rb") as compiled:
            compiled.read(1)
        compiled_at = mo.stat().st_mtime
    except FileNotFoundError:
        return f"{po} is not compiled (no {mo.name})"
    except OSError as exc:
        return f"{mo} cannot be read ({exc.strerror})"
    # compilemessages recompiles a catalogue whose .mo is older than its .po.
    if compiled_at < po.stat().st_mtime:
        return f"{mo} is older than {po.name} (changed since it was compiled)"
    return ""


# --------------------------------------------------------------------------------------
# check --deploy: what a production environment must not keep from development.
# --------------------------------------------------------------------------------------


@checks.register(checks.Tags.security, deploy=True)
def site_url_is_the_public_address(app_configs=None, **kwargs):
    """``DJANGO_SITE_URL`` starts every link in a mail (confirmation, password
    reset, review): it must be an address the site answers to (a host in
    ``ALLOWED_HOSTS``), over HTTPS when the site redirects to HTTPS. Left at the
    development default, every mailed link points at the recipient's own machine."""
    url = urlsplit(settings.SITE_URL)
    host = url.hostname or ""
    problems = []
    if settings.SECURE_SSL_REDIRECT and url.scheme != "https":
        problems.append("it is not an https:// address")
    if not host or not validate_host(
        f"[{host}]" if ":" in host else host, settings.ALLOWED_HOSTS
    ):
        problems.append(f"its host {host!r} is not in DJANGO_ALLOWED_HOSTS")
    if not problems:
        return []
    return [
        checks.Error(
            f"DJANGO_SITE_URL is {settings.SITE_URL!r}: {' and '.join(problems)}. "
            "Every link in a mail (confirmation, password reset, review) starts "
            "with it.",
            hint="Set DJANGO_SITE_URL to the address people reach the site at, "
            "e.g. https://wizard.example.eu (README, Environment reference).",
            id="proposals.E003",
        )
    ]


# Backends whose entries live in one process only: each gunicorn worker, each
# instance and each task worker would keep its own.
PER_PROCESS_CACHES = {
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
}


@checks.register(checks.Tags.caches, deploy=True)
def cache_is_shared_between_processes(app_configs=None, **kwargs):
    """The cache that holds the rate-limit counters, the sessions (when they are
    cached) and the catalogue's freshness must be one all processes share (the
    database cache or Redis), unless the site says it runs one instance."""
    if settings.SINGLE_INSTANCE:
        return []
    aliases = {"default", getattr(settings, "RATELIMIT_USE_CACHE", "default")}
    if "cache" in settings.SESSION_ENGINE:
        aliases.add(settings.SESSION_CACHE_ALIAS)
    return [
        checks.Warning(
            f"The cache {alias!r} ({settings.CACHES[alias]['BACKEND']}) is kept in "
            "each process: with several instances (or gunicorn workers) each counts "
            "the sign-up and login limits apart, and an edit of the catalogue in "
            "the admin reaches the others only within a minute.",
            hint="Share it: DJANGO_CACHE_BACKEND=db (its table comes with migrate) "
            "or DJANGO_CACHE_URL=redis://... . A site that runs one instance and "
            "accepts per-worker counters says so with DJANGO_SINGLE_INSTANCE=1 "
            "(or lists proposals.W001 in SILENCED_SYSTEM_CHECKS).",
            id="proposals.W001",
        )
        for alias in sorted(aliases)
        if alias in settings.CACHES
        and settings.CACHES[alias]["BACKEND"] in PER_PROCESS_CACHES
    ]


# --------------------------------------------------------------------------------------
# The desk's working days: a holiday calendar the ``holidays`` library has. An unknown
# code once passed ``check`` and turned the staff queue into a 500 for everyone.


@checks.register()
def holiday_calendar_exists(app_configs=None, **kwargs):
    """``DJANGO_HOLIDAY_COUNTRY`` names a calendar: a country (``FI``) or a country
    and subdivision (``ES-CT``); blank counts weekends only."""
    problem = calendar_problem(settings.HOLIDAY_COUNTRY or "")
    if problem is None:
        return []
    return [
        checks.Error(
            f"DJANGO_HOLIDAY_COUNTRY {problem}.",
            hint="Use an ISO 3166 country code, optionally with its ISO 3166-2 "
            "subdivision (FI, BE, ES-CT for Catalonia, DE-BY for Bavaria), or leave "
            "it blank to count weekends only.",
            id="proposals.E004",
        )
    ]
