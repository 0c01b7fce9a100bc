"""Backups: ``export_all`` writes every proposal as JSON, and importing those files with
``import_proposal`` (the restore the README describes) brings each one back equal."""

import csv
import io
from pathlib import Path

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
