"""Create the demo users and the demo proposals (idempotent): two drafts, and three
proposals at work in the review (waiting, a change request answered, ready).

For development (``make run``): the accounts' passwords are printed by ``make run``
and written in the README, so the command refuses a site with debug off unless it
is told ``--with-public-passwords``. The demo's addresses are in a domain reserved
for examples (RFC 2606), and the mails the demo review causes are stored as not sent,
never handed to the task worker and its relay."""

from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from proposals import selectors, services
from proposals.domain import jsonformat
from proposals.models import Proposal
from proposals.selectors import STAFF_GROUP
from proposals.services.team import invitation_for_token

EXAMPLES = Path(settings.BASE_DIR) / "fixtures" / "examples"
DEMO_PROPOSALS = [
    "playground.json",
    "lumi-fast-lane.json",
    "bsc-large-scale.json",
    "bsc-fast-lane.json",
    "bsc-many-small-jobs.json",
]
# What the review has done with a demo proposal when it is created, so that a new
# staff member sees the workspace at work: sent and waiting, changes requested and
# answered (sent again as revision 2), marked ready to submit.
WAITING, ANSWERED, READY = "waiting", "answered", "ready"
DEMO_REVIEWS = {
    "bsc-fast-lane.json": WAITING,
    "bsc-many-small-jobs.json": ANSWERED,
    "bsc-large-scale.json": READY,
}
# username: (password, e-mail, role). The support staff member uses the review pages
# and, in the admin, only the mail delivery; the administrator is the superuser.
# The addresses are in example.org, reserved for examples (RFC 2606): nobody has them.
APPLICANT, SUPPORT, ADMIN = "applicant", "support", "admin"
DEMO_DOMAIN = "example.org"
DEMO_USERS = {
    "demo": ("aifactory-demo", f"demo@{DEMO_DOMAIN}", APPLICANT),
    "colleague": ("aifactory-colleague", f"colleague@{DEMO_DOMAIN}", APPLICANT),
    "staff": ("aifactory-staff", f"staff@{DEMO_DOMAIN}", SUPPORT),
    "admin": ("aifactory-admin", f"admin@{DEMO_DOMAIN}", ADMIN),
}
PUBLIC_PASSWORDS_FLAG = "--with-public-passwords"
MAIL_WITHHELD = "Demo data (load_demo): stored, never sent."


class Command(BaseCommand):
    help = (
        "Create the demo applicant, support staff member and administrator, and the "
        "demo proposals."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            PUBLIC_PASSWORDS_FLAG,
            action="store_true",
            help="Load the demo on a site with debug off too: its accounts, an "
            "administrator among them, have the passwords the README prints.",
        )

    def handle(self, *args, **options):
        if not settings.DEBUG and not options["with_public_passwords"]:
            raise CommandError(
                "Refused: debug is off, so this may be a production database. The "
                "demo creates the superuser 'admin' and two more accounts whose "
                "passwords are printed in the README. For a development database, "
                "set DJANGO_DEBUG=1 (make demo does); to load it anyway (a training "
                f"site), add {PUBLIC_PASSWORDS_FLAG}."
            )
        with services.mail_withheld(reason=MAIL_WITHHELD):
            self.load()

    @transaction.atomic
    def load(self):
        staff_group = Group.objects.get(name=STAFF_GROUP)
        for username, (password, email, role) in DEMO_USERS.items():
            user, created = User.objects.get_or_create(
                username=username, defaults={"email": email}
            )
            if created:
                user.set_password(password)
            # Roles are reset on every run: an older database made "staff" a superuser;
            # so are the addresses: an older one gave them a domain somebody may own.
            user.email = email
            user.is_staff = role in (SUPPORT, ADMIN)
            user.is_superuser = role == ADMIN
            user.save()
            if role == SUPPORT:
                user.groups.add(staff_group)
            if not selectors.account_is_verified(user=user):
                services.account_verify(user=user)  # demo addresses count as confirmed
        applicant = User.objects.get(username="demo")
        staff = User.objects.get(username="staff")
        for name in DEMO_PROPOSALS:
            data = jsonformat.loads((EXAMPLES / name).read_text(encoding="utf-8"))
            if applicant.proposals.filter(title=data.title).exists():
                continue
            proposal = services.proposal_import(owner=applicant, document=data)
            if name in DEMO_REVIEWS:
                review_demo(proposal, DEMO_REVIEWS[name], applicant, staff)
        team_demo(applicant.proposals.order_by("pk").first(), applicant)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data ready: {applicant.proposals.count()} proposals for 'demo'."
            )
        )


def team_demo(proposal, owner) -> None:
    """The demo colleague joins the first demo proposal as an editor, by the
    invitation the Team page sends (the mail is withheld, as every demo mail)."""
    colleague = User.objects.get(username="colleague")
    if proposal is None or selectors.team_role(user=colleague, proposal=proposal):
        return
    token = services.team_invite(
        proposal=proposal, by=owner, email=colleague.email, role="editor"
    )
    services.invitation_accept(invitation=invitation_for_token(token), user=colleague)


def review_demo(proposal, scenario: str, applicant, staff) -> None:
    """Take a new demo proposal through the review up to ``scenario``."""
    services.review_submit(
        proposal=proposal, user=applicant, note="Could you check the scaling data?"
    )
    if scenario == WAITING:
        return
    services.review_assign(proposal=proposal, user=staff, to=staff)
    if scenario == READY:
        services.review_set_status(
            proposal=proposal,
            user=staff,
            to_status=Proposal.Status.READY,
            note="Ready to submit in the portal.",
        )
        return
    question = services.comment_add(
        proposal=proposal,
        author=staff,
        section="scalability",
        body="Please say how stable the runtime of one screening job is.",
    )
    services.review_set_status(
        proposal=proposal,
        user=staff,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="One question on the scalability section.",
    )
    services.comment_add(
        proposal=proposal,
        author=applicant,
        section="scalability",
        body="Within 3% over ten runs; the figure is in the narrative now.",
        parent=question,
    )
    # The answer is in the proposal too (sending it unchanged would ask first).
    proposal.refresh_from_db()
    proposal.scalability_narrative += (
        " One screening job's runtime stays within 3% over ten runs."
    )
    proposal.save(update_fields=["scalability_narrative"])
    services.review_submit(
        proposal=proposal, user=applicant, note="Answered the runtime question."
    )
