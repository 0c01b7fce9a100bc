"""Migrations, the catalogue, the staff group, settings from the environment."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management import call_command

from proposals.models import Cluster

pytestmark = pytest.mark.django_db


def test_no_missing_migrations():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_catalogue_loaded_with_sources(catalogue):
    slugs = set(Cluster.objects.values_list("slug", flat=True))
    assert {"lumi-g", "marenostrum5-acc", "leonardo-booster", "karolina-gpu"} <= slugs
    lumi = Cluster.objects.get(slug="lumi-g")
    assert (lumi.gpus_per_node, lumi.gcds_per_gpu, lumi.country) == (4, 2, "FI")
    assert Cluster.objects.get(slug="karolina-gpu").gpus_per_node == 8
    assert (
        Cluster.objects.get(slug="marenostrum5-acc").carbon_intensity_g_per_kwh == 174
    )
    assert not Cluster.objects.filter(source_url="").exists()


def test_support_staff_group_exists(catalogue):
    assert Group.objects.filter(name="Support staff").exists()


def _settings_in_subprocess(env: dict, expression: str) -> subprocess.CompletedProcess:
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='aifactory.settings';"
        f"from django.conf import settings; print(repr({expression}))"
    )
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    clean_env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**clean_env, **env},
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
    )


def test_settings_read_the_environment():
    result = _settings_in_subprocess(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "s" * 50,
            "DJANGO_ALLOWED_HOSTS": "a.example.eu, b.example.eu",
            "DATABASE_URL": "postgres://u:p@db.example.eu:5433/wizard",
        },
        "(settings.DEBUG, settings.ALLOWED_HOSTS, settings.DATABASES['default']"
        "['HOST'], settings.DATABASES['default']['PORT'], settings.SESSION_COOKIE_SECURE,"
        " settings.SECURE_HSTS_SECONDS > 0)",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "(False, ['a.example.eu', 'b.example.eu'], 'db.example.eu', 5433, True, True)"
    )


def test_production_without_secret_key_refuses_to_start():
    result = _settings_in_subprocess({"DJANGO_DEBUG": "0"}, "settings.SECRET_KEY")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_debug_defaults_to_sqlite_under_var():
    result = _settings_in_subprocess(
        {"DJANGO_DEBUG": "1"}, "str(settings.DATABASES['default']['NAME'])"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("var/db.sqlite3'")


def test_bad_boolean_is_a_clear_error():
    result = _settings_in_subprocess({"DJANGO_DEBUG": "maybe"}, "settings.DEBUG")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be a boolean" in result.stderr


def test_check_deploy_is_clean_in_production_like_environment():
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    clean_env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env={
            **clean_env,
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "k9$Fq2!xZ7@pL0&vR4^mN8*wT1(cY6)hB3_eJ5+uG0=dS2" * 2,
            "DJANGO_ALLOWED_HOSTS": "wizard.example.eu",
            "DJANGO_SITE_URL": "https://wizard.example.eu",
            "DJANGO_CACHE_BACKEND": "db",
        },
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_admin_lists_every_model(client, catalogue):
    """The admin (for administrators maintaining the catalogue and support desks)
    opens every changelist, including the read-only review records."""
    from django.contrib import admin
    from django.contrib.auth.models import User

    superuser = User.objects.create_superuser("root", "root@example.eu", "x")
    client.force_login(superuser)
    for model in admin.site._registry:
        if model._meta.app_label != "proposals":
            continue
        url = f"/admin/proposals/{model._meta.model_name}/"
        assert client.get(url).status_code == 200, url
    assert client.get("/admin/proposals/proposalrevision/add/").status_code == 403
