"""Django settings for the AI Factory proposal wizard.

Every deployment-specific value is read from the environment (12-factor). The defaults
are for local development; with ``DJANGO_DEBUG`` off the defaults become production-safe
and a real ``DJANGO_SECRET_KEY`` is required.
"""

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from aifactory.env import env_bool, env_list, env_str

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
    "django_tasks",
    "django_tasks_db",
    "proposals",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "aifactory.middleware.ContentSecurityPolicyMiddleware",
    "aifactory.errors.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Numbers and times in the person's conventions (proposals/localization.py).
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
            ],
        },
    },
]

WSGI_APPLICATION = "aifactory.wsgi.application"
ASGI_APPLICATION = "aifactory.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(env_str("DJANGO_CONN_MAX_AGE", default="60")),
        conn_health_checks=True,
    )
}
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
]
LOGIN_URL = "login"

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
# the default cache: per process with locmem, shared with DJANGO_CACHE_BACKEND=db.
RATELIMIT_IP_META_KEY = "proposals.http.client_ip"
RATELIMIT_VIEW = "proposals.views.accounts.too_many_attempts"
# django-ratelimit prefers memcached or Redis: the database cache increments with a
# read and a write, so two simultaneous requests may count as one. For throttling
# sign-ups that is close enough, and it needs no extra server. (Its system checks say
# so only when "django_ratelimit" is in INSTALLED_APPS, which the decorator does not
# need.)
LOGIN_REDIRECT_URL = "proposals:landing"  # staff: the review queue
LOGOUT_REDIRECT_URL = "login"

# Who answers questions about personal data (the operator's data-protection contact:
# an e-mail address or a web address), named on the privacy notice (/privacy/).
PRIVACY_CONTACT = env_str("DJANGO_PRIVACY_CONTACT", default="")

LANGUAGE_CODE = "en-gb"
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

# Background tasks (the review workflow's e-mails) are stored in the database and run
# by ``manage.py db_worker`` (django-tasks with the django-tasks-db backend).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

# The cache holds rendered charts keyed by a hash of their data: any process may fill it,
# none depends on it. Local memory is per process; set DJANGO_CACHE_URL-free deployments
# to the database cache (``DJANGO_CACHE_BACKEND=db``) to share it across processes.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache"
        if env_str("DJANGO_CACHE_BACKEND", default="locmem") == "db"
        else "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "aifactory_cache",
        "TIMEOUT": 60 * 60 * 24,
        "OPTIONS": {"MAX_ENTRIES": 2000},
    }
}

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
    SECURE_HSTS_SECONDS = int(env_str("DJANGO_HSTS_SECONDS", default="31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    if BEHIND_PROXY:
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    # WeasyPrint reports every layout step at INFO, django-axes every login and its
    # own start: noise in a server's log (lockouts are warnings and stay).
    "loggers": {
        "weasyprint": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}
