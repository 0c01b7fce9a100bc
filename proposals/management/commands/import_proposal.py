"""``manage.py import_proposal FILE --owner USERNAME`` — create a proposal from JSON.

Exit status 2 for an unusable file (each problem named with its path), as ``assess``.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from proposals import assess, domain, services

from .assess import read_proposal


class Command(BaseCommand):
    requires_system_checks = []  # a file tool: needs the catalogue, not the URLs
    help = (
        "Create a new draft proposal from an aifactory-proposal/1 JSON file (- for "
        "stdin), owned by USERNAME, and print its id. Exits 2 for an unusable file."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="proposal JSON file, or - for stdin")
        parser.add_argument("--owner", required=True, help="username of the owner")

    def handle(self, *args, file, owner, **options):
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: owner}).first()
        if user is None:
            raise CommandError(f"There is no user “{owner}”.", returncode=2)
        proposal = read_proposal(self, file, systems=assess.system_ids())
        try:
            saved = services.proposal_import(owner=user, document=proposal)
        except domain.FormatError as exc:  # the catalogue changed meanwhile
            self.stderr.write(f"{file} cannot be imported:")
            for where, message in exc.problems:
                self.stderr.write(f"  {where}: {message}")
            raise SystemExit(2) from None
        self.stdout.write(str(saved.pk))
