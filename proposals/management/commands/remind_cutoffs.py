"""Queue the cut-off reminders for the task worker (run daily, like expire_stale):
the team of every draft not yet sent for review is mailed 14 and 3 days before its
route's next cut-off, once each."""

from django.core.management.base import BaseCommand

from proposals.services.routes import send_cutoff_reminders


class Command(BaseCommand):
    help = "Queue the cut-off reminder mails for the task worker."

    def handle(self, *args, **options):
        result = send_cutoff_reminders.enqueue()
        self.stdout.write(f"queued {result.id}")
