"""Queue the staff's daily digests for the task worker (run hourly): each staff
member who chose the daily digest gets it once per working day, at their hour in
their zone."""

from django.core.management.base import BaseCommand

from proposals.services.desk import send_staff_digests


class Command(BaseCommand):
    help = "Queue the staff's daily digest mails for the task worker."

    def handle(self, *args, **options):
        result = send_staff_digests.enqueue()
        self.stdout.write(f"queued {result.id}")
