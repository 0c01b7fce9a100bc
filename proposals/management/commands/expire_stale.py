"""``manage.py expire_stale`` — delete what outlived its retention period.

The periods are defined once in ``proposals/retention.py`` and stated on the privacy
notice; run daily (deploy/systemd/aifactory-expire.timer).
"""

from django.core.management.base import BaseCommand

from proposals import retention, services


class Command(BaseCommand):
    help = (
        "Delete unconfirmed sign-ups, unconfirmed uploads, old login records, old "
        "mails and finished task records, and expired sessions past the retention "
        "periods of the privacy notice."
    )

    def handle(self, *args, **options):
        deleted = services.stale_data_expire()
        for period in retention.expiring():
            self.stdout.write(
                f"{period.what}, older than {period.text}: "
                f"{deleted[period.key]} deleted"
            )
