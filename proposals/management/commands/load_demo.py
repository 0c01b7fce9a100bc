"""Create the demo users and the three demo proposals (idempotent)."""

from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand
from django.db import transaction

from proposals import selectors, services
from proposals.domain import jsonformat
from proposals.selectors import STAFF_GROUP

EXAMPLES = Path(settings.BASE_DIR) / "fixtures" / "examples"
DEMO_PROPOSALS = ["playground.json", "lumi-fast-lane.json", "bsc-large-scale.json"]
# username: (password, e-mail, role). The support staff member uses the review pages
# and, in the admin, only the mail delivery; the administrator is the superuser.
APPLICANT, SUPPORT, ADMIN = "applicant", "support", "admin"
DEMO_USERS = {
    "demo": ("aifactory-demo", "demo@example.eu", APPLICANT),
    "staff": ("aifactory-staff", "staff@example.eu", SUPPORT),
    "admin": ("aifactory-admin", "admin@example.eu", ADMIN),
}


class Command(BaseCommand):
    help = (
        "Create the demo applicant, support staff member and administrator, and the "
        "demo proposals."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        staff_group = Group.objects.get(name=STAFF_GROUP)
        for username, (password, email, role) in DEMO_USERS.items():
            user, created = User.objects.get_or_create(
                username=username, defaults={"email": email}
            )
            if created:
                user.set_password(password)
            # Roles are reset on every run: an older database made "staff" a superuser.
            user.is_staff = role in (SUPPORT, ADMIN)
            user.is_superuser = role == ADMIN
            user.save()
            if role == SUPPORT:
                user.groups.add(staff_group)
            if not selectors.account_is_verified(user=user):
                services.account_verify(user=user)  # demo addresses count as confirmed
        applicant = User.objects.get(username="demo")
        for name in DEMO_PROPOSALS:
            data = jsonformat.loads((EXAMPLES / name).read_text(encoding="utf-8"))
            if applicant.proposals.filter(title=data.title).exists():
                continue
            services.proposal_import(owner=applicant, document=data)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data ready: {applicant.proposals.count()} proposals for 'demo'."
            )
        )
