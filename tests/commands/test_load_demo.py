"""``load_demo`` is for development: it refuses a site with debug off unless told
``--with-public-passwords``, its addresses are in a domain reserved for examples
(RFC 2606), and the mails its demo review causes are stored, never sent."""

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError

from proposals.management.commands.load_demo import MAIL_WITHHELD
from proposals.models import AccountProfile, OutgoingMail, Proposal
from tests.factories import StaffUserFactory

pytestmark = pytest.mark.django_db
FLAG = "--with-public-passwords"
LOCMEM = "django.core.mail.backends.locmem.EmailBackend"
# RFC 2606 (and RFC 6761's .test): domains nobody can register or receive mail at.
RESERVED_DOMAINS = {"example.org", "example.com", "example.net"}
RESERVED_TOP_LEVEL = (".example", ".test", ".invalid")


def _reserved(address: str) -> bool:
    domain = address.rpartition("@")[2].lower()
    return domain in RESERVED_DOMAINS or domain.endswith(RESERVED_TOP_LEVEL)


def test_refused_with_debug_off(catalogue, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError) as refused:
        call_command("load_demo", verbosity=0)
    assert FLAG in str(refused.value) and "DJANGO_DEBUG=1" in str(refused.value)
    assert not User.objects.filter(username__in=["demo", "staff", "admin"]).exists()
    assert not Proposal.objects.exists()


@pytest.mark.parametrize("debug, args", [(True, []), (False, [FLAG])])
def test_loaded_with_debug_on_or_when_told(catalogue, settings, debug, args):
    settings.DEBUG = debug
    call_command("load_demo", *args, verbosity=0)
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password("aifactory-admin")
    assert Proposal.objects.filter(owner__username="demo").count() == 5


def test_every_demo_address_is_reserved_for_examples(catalogue):
    # A database loaded before kept the old addresses: they are replaced.
    User.objects.create_user("demo", "demo@example.eu", "aifactory-demo")
    call_command("load_demo", FLAG, verbosity=0)
    addresses = [
        *User.objects.values_list("email", flat=True),
        *AccountProfile.objects.values_list("email", flat=True),
        *OutgoingMail.objects.exclude(to="").values_list("to", flat=True),
    ]
    assert len(addresses) >= 6
    assert [a for a in addresses if not _reserved(a)] == []
    demo = User.objects.get(username="demo")
    assert demo.account.email == demo.email == "demo@example.org"


def test_the_demo_review_mails_nobody(
    catalogue, settings, django_capture_on_commit_callbacks, run_tasks
):
    """The demo review (sent, a question, an answer, a status) causes mails to the
    demo accounts and to every support staff member, the site's real ones too: each
    is stored with the reason, none is handed to the worker or the relay."""
    settings.EMAIL_BACKEND = LOCMEM
    StaffUserFactory(email="reviewer@helpdesk.eu")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", FLAG, verbosity=0)
    stored = list(OutgoingMail.objects.values_list("status", "last_error"))
    assert len(stored) >= 4
    assert set(stored) == {(OutgoingMail.Status.UNDELIVERABLE, MAIL_WITHHELD)}
    assert run_tasks() == 0
    assert mail.outbox == []


def test_mails_after_the_demo_are_sent_as_before(
    catalogue, settings, django_capture_on_commit_callbacks, run_tasks
):
    from proposals import services
    from proposals.notifications import Mail

    settings.EMAIL_BACKEND = LOCMEM
    call_command("load_demo", FLAG, verbosity=0)
    with django_capture_on_commit_callbacks(execute=True):
        services.mail_queue(mails=[Mail("someone@example.org", "Review due", "B")])
    assert run_tasks() == 1
    assert [m.subject for m in mail.outbox] == ["Review due"]
