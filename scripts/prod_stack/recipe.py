"""The README's recipe where it is not a running service: ``make install-prod``
compiles the catalogues (the service user reads German), and the shipped backup
(``deploy/backup/aifactory-backup``) dumps the stack's database, and the dump
restores into a second database with the rows the walk wrote."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import urllib.parse

from .common import APPLICANT, ROOT, check
from .stack import Stack

SERVICE_USER = "nobody"  # as root: the stand-in for the aifactory user


def operator_recipe(stack: Stack, proposal: int):
    """Both parts, each its own step."""
    stack.step(
        "make install-prod on a fresh tree: German for the service user",
        install_compiles_catalogues, stack,
    )  # fmt: skip
    stack.step(
        "Backup by deploy/backup/aifactory-backup, restored into a second database",
        backup_restored, stack, proposal,
    )  # fmt: skip


def _as_service_user(argv: list[str]) -> list[str]:
    """As root, the command runs as a user that cannot write the tree, as the units
    run it; otherwise as this user."""
    if os.geteuid() != 0:
        return argv
    user = pwd.getpwnam(SERVICE_USER)
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
            "--clear-groups", *argv]  # fmt: skip


def install_compiles_catalogues(stack: Stack):
    """A fresh copy of the tracked tree (no .mo files: they are not in git), owned
    by whoever runs the check, installed with ``make install-prod`` into the stack's
    virtual environment; then the service user passes the catalogue check and reads
    the interface in German."""
    tree = stack.dir / "app"
    tracked = (
        subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, tracked):
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    check(not list(tree.rglob("*.mo")), "the fresh tree has .mo files already")
    with open(stack.logs / "install-prod.log", "a") as out:
        done = subprocess.run(
            ["make", "install-prod", f"VENV={stack.venv}", f"PYTHON={sys.executable}"],
            cwd=tree, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    check(done.returncode == 0, "make install-prod failed (logs/install-prod.log)")
    for language in ("de", "fr"):
        for catalogue in (tree / "locale", tree / "locale" / "rules"):
            mo = catalogue / language / "LC_MESSAGES" / "django.mo"
            check(mo.exists(), f"make install-prod did not compile {mo}")
    tree.chmod(0o755)
    env = dict(stack.env, HOME="/nonexistent")
    checked = subprocess.run(
        _as_service_user(
            [str(stack.python), "manage.py", "check", "--tag", "translation"]
        ),
        cwd=tree, env=env, capture_output=True, text=True,
    )  # fmt: skip
    check(checked.returncode == 0, f"catalogue check failed: {checked.stderr}")
    german = subprocess.run(
        _as_service_user(
            [
                str(stack.python), "-c",
                "import django; django.setup(); from django.utils import translation; "
                "translation.activate('de'); print(translation.gettext('Save settings'))",
            ]
        ),
        cwd=tree, env=dict(env, DJANGO_SETTINGS_MODULE="aifactory.settings"),
        capture_output=True, text=True,
    )  # fmt: skip
    check(
        german.stdout.strip() == "Einstellungen speichern",
        f"the service user reads {german.stdout.strip()!r}, not German: {german.stderr}",
    )


def backup_restored(stack: Stack, proposal: int):
    """The backup script as root runs it by hand (DATABASE_URL only in the units'
    environment file), then its restore into a second scratch database: the walk's
    account and proposal are there, and no migration is missing."""
    import psycopg

    env_file = stack.dir / "env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in stack.env.items()))
    env_file.chmod(0o600)
    backups = stack.dir / "backups" / "aifactory"
    script = str(ROOT / "deploy" / "backup" / "aifactory-backup")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "AIFACTORY_ENV_FILE": str(env_file),
        "AIFACTORY_BACKUP_DIR": str(backups),
    }
    stack.run([script], "backup", env=env)
    (dump,) = backups.glob("wizard-*.dump")
    modes = (stat.S_IMODE(backups.stat().st_mode), stat.S_IMODE(dump.stat().st_mode))
    check(modes == (0o700, 0o600), f"backup modes {modes[0]:o}, {modes[1]:o}")

    restored = f"{stack.database}_restored"
    server = urllib.parse.urlunsplit(stack.admin)
    url = urllib.parse.urlunsplit(stack.admin._replace(path=f"/{restored}"))
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{restored}"')
        admin.execute(f'CREATE DATABASE "{restored}"')
        try:
            stack.run([script, "restore", str(dump), url], "backup", env=env)
            with psycopg.connect(url) as copy:
                row = copy.execute(
                    "SELECT p.title, u.username FROM proposals_proposal p "
                    "JOIN auth_user u ON u.id = p.owner_id WHERE p.id = %s",
                    [proposal],
                ).fetchone()
            check(
                row == ("Production check", APPLICANT[0]),
                f"proposal {proposal} restored as {row}",
            )
            stack.run(
                [str(stack.python), "manage.py", "migrate", "--check"],
                "backup", env=dict(stack.env, DATABASE_URL=url),
            )  # fmt: skip
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
