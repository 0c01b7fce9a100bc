"""Every proposal as a file of the ``aifactory-proposal/1`` format, for backups
(``manage.py export_all DIR``; reads only).

``DIR/proposals/<id>.json`` holds each proposal's current content, exactly as its
own JSON export; ``DIR/manifest.tsv`` lists, one line each, the file, the proposal's id,
its status, whether its owner deleted it, and its owner's username (empty for a
proposal kept for the staff after its owner deleted their account). Importing
every file with ``manage.py import_proposal FILE --owner USERNAME`` brings the
content back (README, "Backups"); the review history (revisions, comments, statuses)
is in the database backup (``pg_dump``) only.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from proposals import domain
from proposals.assess import proposal_to_domain, with_children
from proposals.models import Proposal

MANIFEST = "manifest.tsv"
# The owner last: a shell's ``read`` (IFS=tab) would merge an empty field in between.
COLUMNS = ("file", "id", "status", "deleted", "owner")
# Proposals read (with their rows) per round of queries, to bound the memory used.
BATCH = 200


@dataclass(frozen=True)
class Entry:
    """One line of the manifest."""

    file: str
    owner: str
    id: int
    status: str
    deleted: bool

    def line(self) -> str:
        # Usernames hold letters, digits and @.+-_ only, files and statuses are
        # ours: no tab or line break can occur in a field.
        deleted = "yes" if self.deleted else "no"
        return "\t".join((self.file, str(self.id), self.status, deleted, self.owner))


def _batches() -> Iterator[list[Proposal]]:
    """Every proposal, by id, ``BATCH`` at a time with their rows and owner."""
    last = 0
    while True:
        batch = list(
            with_children(Proposal.objects.filter(pk__gt=last))
            .select_related("owner")
            .order_by("pk")[:BATCH]
        )
        if not batch:
            return
        yield batch
        last = batch[-1].pk


def export_all(directory: Path) -> list[Entry]:
    """Write every proposal and the manifest into ``directory`` (created; it must be
    empty or absent); return the manifest's entries."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        raise FileExistsError(f"{directory} is not empty")
    (directory / "proposals").mkdir()
    entries = []
    for batch in _batches():
        for proposal in batch:
            name = f"proposals/{proposal.pk}.json"
            (directory / name).write_text(
                domain.dumps(proposal_to_domain(proposal)), encoding="utf-8"
            )
            entries.append(
                Entry(
                    file=name,
                    owner=proposal.owner.get_username() if proposal.owner_id else "",
                    id=proposal.pk,
                    status=proposal.status,
                    deleted=proposal.deleted_at is not None,
                )
            )
    lines = ["\t".join(COLUMNS), *(entry.line() for entry in entries)]
    (directory / MANIFEST).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return entries
