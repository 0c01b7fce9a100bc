"""Settings for the test suite: the development configuration with fast hashing.

``DATABASE_URL`` still decides the database, so the same suite runs on SQLite and on
PostgreSQL.
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from aifactory.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
