"""``manage.py export_proposal ID`` — print a proposal in the JSON format."""

from django.core.management.base import BaseCommand, CommandError

from proposals import domain
from proposals.assess import proposal_to_domain, with_children
from proposals.models import Proposal


class Command(BaseCommand):
    requires_system_checks = []  # a file tool: needs the catalogue, not the URLs
    help = "Print the proposal with this id as aifactory-proposal/1 JSON on stdout."

    def add_arguments(self, parser):
        parser.add_argument("id", type=int, help="proposal id")

    def handle(self, *args, id, **options):
        proposal = with_children(Proposal.objects.filter(pk=id)).first()
        if proposal is None:
            raise CommandError(f"There is no proposal with id {id}.", returncode=2)
        self.stdout.write(domain.dumps(proposal_to_domain(proposal)), ending="")
