"""``manage.py delete_account USERNAME`` — an erasure request handled by an operator.

Does what the person's own Settings > "Delete my account" does
(``services.account_delete``): proposals with a team go to their longest-standing
editor, drafts are deleted, proposals sent for review stay with the help desk without
their owner. Deleting the user in the Django admin instead
removes every proposal of theirs, the help desk's record included.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from proposals import selectors, services


class Command(BaseCommand):
    help = (
        "Delete an account as its owner would from Settings: drafts deleted, "
        "proposals sent for review kept for the help desk without the owner. "
        "Without --yes, only says what it would do."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--yes", action="store_true", help="really delete")

    def handle(self, *args, username, yes, **options):
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
        if user is None:
            raise CommandError(f"There is no user “{username}”.", returncode=2)
        if not yes:
            counts = selectors.account_proposal_counts(user=user)
            heirs = [
                handover
                for handover in selectors.account_team_handovers(user=user)
                if handover.heir is not None
            ]
            self.stdout.write(
                f"Would delete “{username}” and {counts['drafts']} draft(s); "
                f"{counts['sent']} proposal(s) sent for review would stay without "
                f"an owner; {len(heirs)} proposal(s) with a team would go to their "
                "longest-standing editor. Run again with --yes to delete."
            )
            return
        done = services.account_delete(user=user)
        self.stdout.write(
            f"Deleted “{username}” and {done.deleted} draft(s); {done.kept} "
            "proposal(s) sent for review kept without an owner; "
            f"{done.handed_over} proposal(s) with a team handed to an editor."
        )
