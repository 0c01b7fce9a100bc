"""Backups: ``export_all`` writes every proposal as JSON, and importing those files with
``import_proposal`` (the restore the README describes) brings each one back equal;
the shipped ``deploy/backup/aifactory-backup`` (run daily by its systemd timer) dumps
the database privately, deletes expired dumps, and its dump restores (on PostgreSQL,
as in CI)."""

import configparser
import csv
import io
import os
import re
import shutil
import stat
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from proposals import domain, services
from proposals.assess import proposal_to_domain, with_children
from proposals.exports import backup
from proposals.models import Proposal
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
    UserFactory,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"
pytestmark = pytest.mark.django_db


def _text(pk: int) -> str:
    return domain.dumps(
        proposal_to_domain(with_children(Proposal.objects.filter(pk=pk)).get())
    )


def _manifest(directory: Path) -> list[dict]:
    with open(directory / backup.MANIFEST, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.fixture
def stored(catalogue):
    """Every worked example under two owners, a proposal with rows of every table, a
    deleted one and one whose owner deleted their account."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob.o+1@x")
    for index, path in enumerate(sorted(EXAMPLES.glob("*.json"))):
        services.proposal_import(
            owner=(alice, bob)[index % 2],
            document=domain.loads(path.read_text(encoding="utf-8")),
        )
    rows = ProposalFactory(owner=bob, title="Ünïcode — rows\tand tabs")
    code = CodeEntryFactory(proposal=rows)
    ScalingMeasurementFactory(proposal=rows, code=code, gpus=8)
    JobTypeFactory(proposal=rows)
    UsageMonthFactory(proposal=rows, gpu_hours=0)
    services.proposal_delete(proposal=ProposalFactory(owner=alice, title="Kept"))
    gone = UserFactory(username="gone")
    ProposalFactory(owner=gone, title="Sent, then the account went")
    Proposal.objects.filter(owner=gone).update(owner=None)
    return {p.pk: _text(p.pk) for p in Proposal.objects.all()}


def test_export_all_writes_each_proposal_as_its_own_export(stored, tmp_path):
    out = io.StringIO()
    call_command("export_all", str(tmp_path / "backup"), stdout=out)
    assert f"{len(stored)} proposals written" in out.getvalue()
    manifest = _manifest(tmp_path / "backup")
    assert sorted(int(row["id"]) for row in manifest) == sorted(stored)
    for row in manifest:
        text = (tmp_path / "backup" / row["file"]).read_text(encoding="utf-8")
        assert text == stored[int(row["id"])]
    owners = {row["owner"] for row in manifest}
    assert owners == {"alice", "bob.o+1@x", ""}


def test_a_restore_with_import_proposal_brings_every_proposal_back_equal(
    stored, tmp_path, monkeypatch
):
    monkeypatch.setattr(backup, "BATCH", 3)  # several rounds of queries
    target = tmp_path / "backup"
    call_command("export_all", str(target))
    manifest = _manifest(target)
    # The disaster: every proposal is gone (the accounts survive).
    Proposal.objects.all().delete()
    fallback = UserFactory(username="helpdesk")
    restored = {}
    for row in manifest:
        out = io.StringIO()
        call_command(
            "import_proposal",
            str(target / row["file"]),
            "--owner",
            row["owner"] or fallback.username,
            stdout=out,
        )
        restored[int(row["id"])] = int(out.getvalue())
    assert len(restored) == len(stored)
    for old, new in restored.items():
        assert _text(new) == stored[old]
        owner = Proposal.objects.get(pk=new).owner.username
        row = next(r for r in manifest if int(r["id"]) == old)
        assert owner == (row["owner"] or "helpdesk")


def test_export_all_refuses_a_directory_that_is_not_empty(stored, tmp_path):
    (tmp_path / "old.txt").write_text("x")
    with pytest.raises(CommandError, match="not empty"):
        call_command("export_all", str(tmp_path))
    assert not (tmp_path / backup.MANIFEST).exists()


# -- The shipped backup: deploy/backup/aifactory-backup and its systemd timer ---------

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "backup" / "aifactory-backup"
SYSTEMD = ROOT / "deploy" / "systemd"
DAY = 24 * 60 * 60


def _backup(*args, **env) -> subprocess.CompletedProcess:
    """The script as the timer runs it: only the environment the unit gives it."""
    return subprocess.run(
        [str(SCRIPT), *args],
        env={"PATH": os.environ["PATH"], "AIFACTORY_ENV_FILE": "/nonexistent", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _database_url(name: str | None = None) -> str:
    from django.db import connection

    db = connection.settings_dict
    return (
        f"postgres://{quote(db['USER'])}:{quote(db['PASSWORD'])}@"
        f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name or db['NAME']}"
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _on_postgresql() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


@pytest.mark.django_db(transaction=True)
def test_the_backup_script_dumps_privately_rotates_and_restores(catalogue, tmp_path):
    """A real pg_dump of the database and a real restore into a second one: the
    directory is made 0700, each dump is 0600, dumps older than the days to keep are
    deleted, and the restored database holds the proposal."""
    if not _on_postgresql() or not shutil.which("pg_dump"):
        pytest.skip("PostgreSQL (DATABASE_URL=postgres://...) and its client tools")
    import psycopg

    proposal = ProposalFactory(title="Survives the restore")
    backups = tmp_path / "backups" / "aifactory"
    settings = {
        "DATABASE_URL": _database_url(),
        "AIFACTORY_BACKUP_DIR": str(backups),
        "AIFACTORY_BACKUP_KEEP_DAYS": "14",
    }
    done = _backup(**settings)
    assert done.returncode == 0, done.stderr
    (dump,) = backups.glob("wizard-*.dump")
    assert (_mode(backups), _mode(dump)) == (0o700, 0o600)

    now = time.time()
    expired = backups / "wizard-2000-01-01T000000Z.dump"
    kept = backups / "wizard-2000-01-02T000000Z.dump"
    for path, age in ((expired, 15 * DAY), (kept, 13 * DAY)):
        path.write_bytes(b"old")
        os.utime(path, (now - age, now - age))
    done = _backup(**settings)
    assert done.returncode == 0, done.stderr
    assert f"deleted (older than 14 days) {expired}" in done.stdout
    assert not expired.exists() and kept.exists() and dump.exists()

    restored = f"{settings['DATABASE_URL'].rsplit('/', 1)[1]}_restored"
    with psycopg.connect(_database_url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{restored}"')
        admin.execute(f'CREATE DATABASE "{restored}"')
        try:
            done = _backup("restore", str(dump), _database_url(restored))
            assert done.returncode == 0, done.stderr
            assert "aifactory-backup: restored proposals 1" in done.stdout
            with psycopg.connect(_database_url(restored)) as copy:
                rows = copy.execute(
                    "SELECT id, title FROM proposals_proposal"
                ).fetchall()
            assert rows == [(proposal.pk, "Survives the restore")]
            again = _backup("restore", str(dump), _database_url(restored))
            assert again.returncode == 1 and "is not empty" in again.stderr
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')


def test_the_backup_script_reads_the_units_environment_file(tmp_path):
    """Run by hand from root's shell, where DATABASE_URL is not set: the script
    reads it from the units' environment file, and says so when it is nowhere."""
    done = _backup()
    assert done.returncode == 1
    assert "DATABASE_URL is not set" in done.stderr and "/nonexistent" in done.stderr
    env_file = tmp_path / "env"
    env_file.write_text(
        "# /etc/aifactory/env\nDJANGO_DEFAULT_FROM_EMAIL=AI Factory <w@example.org>\n"
        'DATABASE_URL="sqlite:///var/db.sqlite3"\n'
    )
    done = _backup(AIFACTORY_ENV_FILE=str(env_file))
    assert done.returncode == 1
    assert "DATABASE_URL is not a PostgreSQL database" in done.stderr
    done = _backup(
        AIFACTORY_ENV_FILE=str(env_file),
        DATABASE_URL="postgres://u:p@127.0.0.1:5432/db",
        AIFACTORY_BACKUP_KEEP_DAYS="two weeks",
    )
    assert done.returncode == 1 and "must be a whole number" in done.stderr


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read_string((SYSTEMD / name).read_text(encoding="utf-8"))
    return parser


def test_the_backup_timer_runs_the_script_daily_with_the_apps_environment():
    timer = _unit("aifactory-backup.timer")["Timer"]
    assert (timer["OnCalendar"], timer["Persistent"]) == ("*-*-* 02:30:00", "true")
    assert _unit("aifactory-backup.timer")["Install"]["WantedBy"] == "timers.target"
    service = _unit("aifactory-backup.service")["Service"]
    web = _unit("aifactory-web@.service")["Service"]
    assert service["Type"] == "oneshot"
    for key in ("User", "Group", "EnvironmentFile"):
        assert service[key] == web[key]
    app = Path(web["WorkingDirectory"])
    assert service["ExecStart"] == str(app / SCRIPT.relative_to(ROOT))
    assert os.access(SCRIPT, os.X_OK)
    # The directory the unit prepares and may write is the script's default.
    default = re.search(r"AIFACTORY_BACKUP_DIR /(\S+)\)", SCRIPT.read_text())
    directory = f"/{default.group(1)}"
    assert service["ReadWritePaths"] == directory
    assert service["ExecStartPre"].endswith(
        f"install -d -m 0700 -o {web['User']} -g {web['Group']} {directory}"
    )
