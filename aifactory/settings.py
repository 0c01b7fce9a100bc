"""Django settings for the AI Factory proposal wizard.

Every deployment-specific value is read from the environment (12-factor). The defaults
are for local development; with ``DJANGO_DEBUG`` off the defaults become production-safe
and a real ``DJANGO_SECRET_KEY`` is required.
"""

import json
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote_plus

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from aifactory import caching
from aifactory.env import (
    dev_server_url,
    env_addresses,
    env_bool,
    env_int,
    env_list,
    env_str,
    oidc_settings_problem,
)
from proposals.domain.fields import most_step_characters, most_step_inputs

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

DEBUG = env_bool("DJANGO_DEBUG", default=False)

_DEV_SECRET = "dev-insecure-secret-key-only-for-local-development-0123456789"
SECRET_KEY = env_str("DJANGO_SECRET_KEY", default=_DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off."
    )

ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS",
    default=["127.0.0.1", "localhost", "[::1]"] if DEBUG else [],
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# Behind a reverse proxy the client's address is the last X-Forwarded-For entry.
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY", default=False)
# The header in which the proxy says the client used HTTPS (only read behind a proxy,
# which must set or strip it on every request), and whether the Host the client asked
# for comes from X-Forwarded-Host (when the proxy rewrites Host).
_PROXY_SSL_HEADER = env_str("DJANGO_SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto")
if BEHIND_PROXY and _PROXY_SSL_HEADER:
    SECURE_PROXY_SSL_HEADER = (
        "HTTP_" + _PROXY_SSL_HEADER.strip().upper().replace("-", "_"),
        "https",
    )
USE_X_FORWARDED_HOST = env_bool("DJANGO_USE_X_FORWARDED_HOST", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "template_partials",
    "crispy_forms",
    "crispy_bootstrap5",
    "django_htmx",
    "axes",
    # Second factor for staff (TOTP, and recovery codes as static tokens).
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    # Before django_tasks_db: its ``db_worker`` command (aifactory/management/) wraps
    # upstream's with a worker that rides out database outages.
    "aifactory",
    "django_tasks",
    "django_tasks_db",
    "proposals",
]

MIDDLEWARE = [
    # Before anything else: the request's calls on a frame-stack chunk with room
    # (aifactory/stack.py: CPython 3.11 maps and unmaps a chunk per call at a
    # chunk's end).
    "aifactory.stack.RoomyStackMiddleware",
    # Then: the request id and the one log line per request (aifactory/requestlog.py).
    "aifactory.requestlog.RequestLogMiddleware",
    # /healthz and /readyz, answered before the host check and the HTTPS redirect.
    "aifactory.health.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "aifactory.middleware.ContentSecurityPolicyMiddleware",
    # The browser's language (Accept-Language, or the switch's cookie), before the error
    # pages can answer; a signed-in person's choice wins (PersonLocaleMiddleware).
    "django.middleware.locale.LocaleMiddleware",
    "aifactory.errors.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): whether this session passed a second factor; then
    # staff who must pass one see nothing else until they do (proposals/two_factor.py).
    "django_otp.middleware.OTPMiddleware",
    "proposals.two_factor.SecondFactorMiddleware",
    # Language, numbers and times in the person's conventions (proposals/localization.py).
    "proposals.middleware.PersonLocaleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Turns django-ratelimit's refusal into our 429 page.
    "django_ratelimit.middleware.RatelimitMiddleware",
    # Last, as django-axes asks: it answers a locked-out login with a 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "aifactory.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "proposals.context_processors.roles",
                "proposals.context_processors.script_messages",
            ],
        },
    },
    {
        # The wizard's Jinja2 macros (a table's rows, the code cards, feedback, the
        # regions written by a macro), in proposals/jinja2/, apart from the Django
        # templates: neither engine loads the other's files (proposals/templatetags/
        # fragments.py; tests/bench/test_bench_row_engines.py says why Jinja2).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "proposals" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "proposals.templatetags.jinja_env.environment",
            "trim_blocks": True,
            "lstrip_blocks": True,
        },
    },
]

WSGI_APPLICATION = "aifactory.wsgi.application"
ASGI_APPLICATION = "aifactory.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DJANGO_CONN_MAX_AGE", default=60),
        conn_health_checks=env_bool("DJANGO_CONN_HEALTH_CHECKS", default=True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves a web server and the task worker from one file
    # (``make run``). WAL lets reads go on beside a write; IMMEDIATE takes the write
    # lock when a transaction begins, so a transaction that read never fails at once
    # with "database is locked" when it comes to write (SQLite cannot wait there);
    # instead a writer waits up to ``timeout`` seconds for the other's commit.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database host that stops answering (down behind a firewall, a hung server)
    # would otherwise hold each connection attempt until TCP gives up, minutes:
    # every request past gunicorn's timeout, /readyz with no answer instead of its
    # 503. ``?connect_timeout=`` in DATABASE_URL overrides the 5 s.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
# django-axes first: it refuses a locked-out login before the password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Sign-in with an OpenID Connect provider; answers nothing unless it is configured
    # (DJANGO_OIDC_ISSUER, below) and the request is the provider's callback.
    "proposals.oidc.ProviderBackend",
]
LOGIN_URL = "login"

# Sign-in with an OpenID Connect provider (MyAccessID, a site's Keycloak), through
# mozilla-django-oidc (proposals/oidc.py): on when DJANGO_OIDC_ISSUER is set. The
# endpoints come from the issuer's discovery document; the login page then offers
# "Sign in with <DJANGO_OIDC_LABEL>" beside the password form.
OIDC_ISSUER = env_str("DJANGO_OIDC_ISSUER").strip()
OIDC_RP_CLIENT_ID = env_str("DJANGO_OIDC_CLIENT_ID").strip()
OIDC_RP_CLIENT_SECRET = env_str("DJANGO_OIDC_CLIENT_SECRET")
OIDC_LABEL = env_str("DJANGO_OIDC_LABEL").strip()
OIDC_RP_SCOPES = env_str("DJANGO_OIDC_SCOPES", "openid email profile").strip()
OIDC_RP_SIGN_ALGO = env_str("DJANGO_OIDC_SIGN_ALGO", "RS256").strip()
if OIDC_ISSUER:
    _oidc_problem = oidc_settings_problem(
        issuer=OIDC_ISSUER,
        client_id=OIDC_RP_CLIENT_ID,
        client_secret=OIDC_RP_CLIENT_SECRET,
        scopes=OIDC_RP_SCOPES,
        debug=DEBUG,
    )
    if _oidc_problem:
        raise ImproperlyConfigured(_oidc_problem)
# PKCE (S256) on every sign-in; a provider that does not know it ignores it.
OIDC_USE_PKCE = True
# Seconds before a silent provider counts as failed (the person is told so).
OIDC_TIMEOUT = 10
OIDC_AUTHENTICATION_CALLBACK_URL = "oidc_callback"
LOGIN_REDIRECT_URL_FAILURE = "login"

# A second factor (TOTP app, recovery codes) for the staff: "optional" (default): a
# staff member may set one up on Settings and is then asked for it at every sign-in;
# "required": every staff member (support staff, admin) sets one up and passes it
# before any page opens (proposals/two_factor.py).
STAFF_2FA = env_str("DJANGO_STAFF_2FA", default="optional").strip().lower()
if STAFF_2FA not in ("optional", "required"):
    raise ImproperlyConfigured("DJANGO_STAFF_2FA must be optional or required.")
# The name the authenticator app shows beside the codes.
OTP_TOTP_ISSUER = "AI Factory wizard"

# Login throttling (django-axes): after 5 failed logins for one username from one
# address, that pair is refused for 15 minutes (every failure during the lock restarts
# it); a success clears the count. Failures are counted for any username, existing or
# not, so the lock reveals nothing about accounts.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "proposals.views.accounts.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "proposals.http.client_ip"
# Sign-up, password reset and "send the link again" are rate-limited with
# django-ratelimit (rates beside the views in proposals/views/accounts.py), counted in
# the default cache: per process with locmem, shared with DJANGO_CACHE_BACKEND=db or
# DJANGO_CACHE_URL (Redis).
RATELIMIT_USE_CACHE = "default"
RATELIMIT_IP_META_KEY = "proposals.http.client_ip"
RATELIMIT_VIEW = "proposals.views.accounts.too_many_attempts"
# django-ratelimit prefers memcached or Redis: the database cache increments with a
# read and a write, so two simultaneous requests may count as one, and when full it
# culls counters by their key's order, not their age (aifactory/caching.py). For
# one machine that is close enough, and it needs no extra server; with several
# instances, Redis counts atomically. (Its system checks say so only when
# "django_ratelimit" is in INSTALLED_APPS, which the decorator does not need.)
LOGIN_REDIRECT_URL = "proposals:landing"  # staff: the review queue
LOGOUT_REDIRECT_URL = "login"

# Who answers questions about personal data (the operator's data-protection contact:
# an e-mail address or a web address), named on the privacy notice (/privacy/).
PRIVACY_CONTACT = env_str("DJANGO_PRIVACY_CONTACT", default="")
# Where people report an accessibility problem or ask for content in another form
# (an e-mail or web address), named on the accessibility statement
# (/accessibility/); unset, the statement sends them to the privacy contact's
# address if there is one, else to the help desk.
ACCESSIBILITY_CONTACT = env_str("DJANGO_ACCESSIBILITY_CONTACT", default="")

LANGUAGE_CODE = "en-gb"
# The interface's languages: English (the portal's, and the default), German, French,
# Italian and Spanish. A person's choice in Settings wins over the browser's
# Accept-Language. Each but English has its catalogues in locale/ and its terms in
# locale/terms/<code>.json (tests/web/test_translations.py, test_terminology.py).
LANGUAGES = [
    ("en-gb", "English"),
    ("de", "Deutsch"),
    ("fr", "Français"),
    ("it", "Italiano"),
    ("es", "Español"),
]
# locale/: what makemessages extracts; locale/rules/: the rules' descriptions (their
# docstrings), written by `manage.py rule_messages` (xgettext skips docstrings).
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "locale" / "rules"]
TIME_ZONE = "Europe/Brussels"
USE_I18N = True
USE_TZ = True
USE_THOUSAND_SEPARATOR = False

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# A wizard step posts all its fields, every row's included, so the limit on posted
# fields follows from the format's limits (``most_step_inputs``: 2,683 on the
# scalability step at 200 measurements, 200 jobs and 120 periods) with as many again
# for the page's own inputs (token, bases, keys, buttons) and each row's bookkeeping.
# Django's default (1,000) refused a step of about 135 measurements with a 400.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2 * most_step_inputs()
# So does the limit on a post's size: a character of a full step (``most_step_
# characters``: 1,215,000 on the code details at 50 entries) takes at most 28 bytes,
# 12 as a percent-encoded 4-byte UTF-8 character and 16 in ``bases`` (a JSON \u
# escape pair, percent-encoded); each input gets 200 bytes more for its name, a number
# and its entry in ``bases``. About 35 MB; Django's default (2.5 MB) refused the
# code details at 50 entries written with accented letters. A proxy in front must
# accept bodies this large (nginx: ``client_max_body_size``).
_WIDE = "\U0001f600"
DATA_UPLOAD_MAX_MEMORY_SIZE = (
    len(quote_plus(_WIDE)) + len(quote_plus(json.dumps(_WIDE)[1:-1]))
) * most_step_characters() + 200 * DATA_UPLOAD_MAX_NUMBER_FIELDS

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

EMAIL_BACKEND = env_str(
    "DJANGO_EMAIL_BACKEND",
    default="django.core.mail.backends.console.EmailBackend",
)
DEFAULT_FROM_EMAIL = env_str(
    "DJANGO_DEFAULT_FROM_EMAIL", default="AI Factory wizard <noreply@localhost>"
)
EMAIL_HOST = env_str("DJANGO_EMAIL_HOST", default="localhost")
# A real relay: port, STARTTLS (587) or implicit TLS (465), login, and a timeout so
# that a relay which stops answering cannot hold a worker forever.
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", default=25)
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", default=False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured(
        "Set DJANGO_EMAIL_USE_TLS (STARTTLS, port 587) or DJANGO_EMAIL_USE_SSL "
        "(implicit TLS, port 465), not both."
    )
EMAIL_HOST_USER = env_str("DJANGO_EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("DJANGO_EMAIL_HOST_PASSWORD")
EMAIL_TIMEOUT = env_int("DJANGO_EMAIL_TIMEOUT", default=10)
# Who receives the server's error reports (a traceback per 500, debug off), and the
# sender of those reports: "Ops <ops@example.eu>, oncall@example.eu".
ADMINS = env_addresses("DJANGO_ADMINS")
SERVER_EMAIL = env_str("DJANGO_SERVER_EMAIL", default=DEFAULT_FROM_EMAIL)

# The site's address as people reach it: every e-mail builds its links from it (never
# from whichever request caused the mail, which may be an autosave or a worker). Unset,
# ``manage.py runserver 8101`` mails links to its own port (the mail is written by the
# server's process; the worker only sends it).
SITE_URL = (
    env_str("DJANGO_SITE_URL") or dev_server_url(sys.argv) or "http://127.0.0.1:8000"
).rstrip("/")
# The site runs one instance, and accepts a cache kept in each of its processes
# (``check --deploy`` warns about a per-process cache otherwise: proposals/checks.py).
SINGLE_INSTANCE = env_bool("DJANGO_SINGLE_INSTANCE", default=False)
# Whose public holidays the help desk does not work on (ISO 3166 code for the
# ``holidays`` library): the queue's working days skip them.
HOLIDAY_COUNTRY = env_str("DJANGO_HOLIDAY_COUNTRY", default="BE")
# The help desk's shared mailbox: staff mail that would otherwise reach nobody (a
# hand-over to a colleague whose address is unconfirmed, a proposal nobody is
# subscribed to at once) goes there; blank: to the other staff instead.
DESK_EMAIL = env_str("DJANGO_DESK_EMAIL", default="")

# Background tasks (the review workflow's e-mails) are stored in the database and run
# by ``manage.py db_worker`` (django-tasks with the django-tasks-db backend).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

# The cache holds rendered charts keyed by a hash of their data (any process may fill
# it, none depends on it) and the rate limits' counters (aifactory/caching.py). Local
# memory is per process; the database cache (``DJANGO_CACHE_BACKEND=db``) is shared
# by the processes of one site; Redis (``DJANGO_CACHE_URL=redis://...``) is shared
# and removes a key only when its time is up or by its memory policy.
CACHE_URL = env_str("DJANGO_CACHE_URL").strip()
CACHES = caching.caches(
    url=CACHE_URL,
    backend=env_str("DJANGO_CACHE_BACKEND").strip(),
    key_prefix=env_str("DJANGO_CACHE_KEY_PREFIX", default="aifactory"),
)
if CACHE_URL:
    # Sessions are read from Redis (no query per request) and written to the
    # database too, so a Redis restart or eviction signs nobody out.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads no cookie: the token travels in hx-headers.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Preloading (the browsers' built-in list, hstspreload.org) binds the whole
    # domain and is slow to undo: the domain's owner asks for it, not this default.
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", default=False)
# `check --deploy` warns whenever preload is off (security.W021): here that is the
# chosen default, not an oversight.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

# The shared task queue is not part of readiness (/readyz is about this instance: a
# PDF backlog at a deadline must not take every instance out of the load balancer).
# A task that could run but has waited longer than this for a worker is "stuck":
# ``manage.py task_workers`` and the admin's Task workers list it, and the command
# exits 1 while one is stuck with no live worker. /metrics reports the waits.
TASK_STUCK_AFTER = timedelta(seconds=env_int("DJANGO_TASK_STUCK_AFTER", default=300))
# Finished task records (a PDF rendered, a mail's attempt, with its arguments and any
# traceback) are deleted this long after they finished (``manage.py expire_stale``).
TASK_RESULTS_KEPT = timedelta(days=env_int("DJANGO_TASK_RESULTS_KEPT_DAYS", default=14))
if not TASK_RESULTS_KEPT:
    raise ImproperlyConfigured("DJANGO_TASK_RESULTS_KEPT_DAYS must be at least 1.")
# /metrics (aifactory/metrics.py, Prometheus text format) answers a scraper that
# sends ``Authorization: Bearer <this>``; unset, the endpoint is off (404).
METRICS_TOKEN = env_str("DJANGO_METRICS_TOKEN", default="")
if METRICS_TOKEN and len(METRICS_TOKEN) < 32:
    raise ImproperlyConfigured("DJANGO_METRICS_TOKEN must be at least 32 characters.")

# A task worker stamps its row (aifactory.models.TaskWorker) several times within
# this; one not heard of for this long is taken for dead (killed, machine gone), and
# the tasks it was running go back to the queue (aifactory/worker.py).
TASK_WORKER_LOST_AFTER = timedelta(
    seconds=env_int("DJANGO_TASK_WORKER_LOST_AFTER", default=120)
)
if not TASK_WORKER_LOST_AFTER:
    raise ImproperlyConfigured("DJANGO_TASK_WORKER_LOST_AFTER must be at least 1.")

# One line per request with its id (aifactory/requestlog.py), plain text or, with
# DJANGO_LOG_FORMAT=json, one JSON object per line. Every record, Django's too, goes
# through the one console handler, whose formatter escapes what could forge a line.
LOG_FORMAT = env_str("DJANGO_LOG_FORMAT", default="text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured("DJANGO_LOG_FORMAT must be text or json.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "aifactory.requestlog.RequestIdFilter"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
    },
    "formatters": {
        "text": {
            "()": "aifactory.requestlog.TextFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s",
        },
        "json": {"()": "aifactory.requestlog.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        },
        "mail_admins": {
            "class": "django.utils.log.AdminEmailHandler",
            "level": "ERROR",
            "filters": ["require_debug_false"],
        },
    },
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    # Django's own handlers for these (a console without our formatter, runserver's
    # coloured lines) are replaced: its records reach the console handler above.
    "loggers": {
        "django": {"handlers": ["mail_admins"], "level": "INFO"},
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # WeasyPrint reports every layout step at INFO, django-axes every login and
        # its own start: noise in a server's log (lockouts are warnings and stay).
        "weasyprint": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}
