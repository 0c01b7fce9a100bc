"""``manage.py export_all DIR`` — every proposal as aifactory-proposal/1 JSON files.

A portable copy of the proposals' content beside the database backup (README,
"Backups"); restored with ``import_proposal`` per file.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from proposals.exports import backup


class Command(BaseCommand):
    requires_system_checks = []  # a file tool: needs the database, not the URLs
    help = (
        "Write every proposal as DIR/proposals/<id>.json (aifactory-proposal/1) and "
        "DIR/manifest.tsv (file, id, status, deleted, owner). DIR must be empty or "
        "absent."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="where to write (created if absent)")

    def handle(self, *args, directory, **options):
        target = Path(directory)
        try:
            entries = backup.export_all(target)
        except (FileExistsError, NotADirectoryError) as exc:
            raise CommandError(f"{exc}: choose a new directory.", returncode=2) from exc
        self.stdout.write(f"{len(entries)} proposals written to {target}")
