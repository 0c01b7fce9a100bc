"""Create the demo users and the three demo proposals (idempotent)."""

from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand
from django.db import transaction

from proposals import selectors, services
from proposals.assess import domain_to_models
from proposals.domain import jsonformat

EXAMPLES = Path(settings.BASE_DIR) / "fixtures" / "examples"
DEMO_PROPOSALS = ["playground.json", "lumi-fast-lane.json", "bsc-large-scale.json"]
DEMO_USERS = {
    "demo": ("aifactory-demo", "demo@example.eu", False),
    "staff": ("aifactory-staff", "staff@example.eu", True),
}


class Command(BaseCommand):
    help = "Create the demo applicant, the demo support-staff user and demo proposals."

    @transaction.atomic
    def handle(self, *args, **options):
        staff_group = Group.objects.get(name="Support staff")
        for username, (password, email, is_staff) in DEMO_USERS.items():
            user, created = User.objects.get_or_create(
                username=username, defaults={"email": email}
            )
            if created:
                user.set_password(password)
                user.is_staff = user.is_superuser = is_staff
                user.save()
            if is_staff:
                user.groups.add(staff_group)
            if not selectors.account_is_verified(user=user):
                services.account_verify(user=user)  # demo addresses count as confirmed
        applicant = User.objects.get(username="demo")
        for name in DEMO_PROPOSALS:
            data = jsonformat.loads((EXAMPLES / name).read_text(encoding="utf-8"))
            if applicant.proposals.filter(title=data.title).exists():
                continue
            domain_to_models(data, owner=applicant)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data ready: {applicant.proposals.count()} proposals for 'demo'."
            )
        )
