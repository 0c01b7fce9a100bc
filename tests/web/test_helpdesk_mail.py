"""Mail that never silently goes nowhere (issue 23): a colleague made in the admin
receives mail, a mail nobody can receive is stored and shown to staff, every link in
a mail is absolute from ``SITE_URL``, and staff mails print numbers as the pages do."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, User
from django.core import mail
from django.urls import reverse

from proposals import selectors, services
from proposals.models import AccountProfile, OutgoingMail
from tests.factories import StaffUserFactory, UserFactory

pytestmark = pytest.mark.django_db

SITE = "https://wizard.example.eu"


@pytest.fixture
def admin_client(client, catalogue):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    return client


@pytest.fixture
def site(settings):
    settings.SITE_URL = SITE
    settings.ALLOWED_HOSTS = ["testserver", "internal-host"]
    return SITE


def _make_colleague_in_admin(admin_client, username="colleague"):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": username,
            "email": f"{username}@Example.eu",
            "usable_password": "true",
            "password1": "a-long-passphrase-77",
            "password2": "a-long-passphrase-77",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    colleague = User.objects.get(username=username)
    colleague.groups.add(Group.objects.get(name=selectors.STAFF_GROUP))
    return colleague


def test_a_colleague_made_in_the_admin_receives_the_handover(
    admin_client, submitted, staff_user, django_capture_on_commit_callbacks, run_tasks
):
    colleague = _make_colleague_in_admin(admin_client)
    assert selectors.account_is_verified(user=colleague)
    OutgoingMail.objects.all().delete()  # the submission's
    with django_capture_on_commit_callbacks(execute=True):
        services.review_assign(proposal=submitted, user=staff_user, to=colleague)
    run_tasks()
    assert [m.to for m in mail.outbox] == [["colleague@example.eu"]]
    assert OutgoingMail.objects.get().status == OutgoingMail.Status.SENT


def test_the_admin_refuses_an_address_that_another_account_has(admin_client, user):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "copycat",
            "email": user.email.upper(),
            "usable_password": "true",
            "password1": "a-long-passphrase-77",
            "password2": "a-long-passphrase-77",
        },
    )
    assert response.status_code == 200
    assert "Another account already has this address." in response.text
    assert not User.objects.filter(username="copycat").exists()


def test_an_administrator_vouches_for_an_existing_address(admin_client, catalogue):
    old = StaffUserFactory(verified=False)
    assert not selectors.account_is_verified(user=old)
    admin_client.post(
        reverse("admin:auth_user_changelist"),
        {"action": "confirm_addresses", "_selected_action": [old.pk]},
    )
    assert selectors.account_is_verified(user=old)


def test_a_mail_nobody_can_receive_is_stored_and_shown_to_staff(
    client, submitted, staff_user, django_capture_on_commit_callbacks, run_tasks
):
    unconfirmed = StaffUserFactory(verified=False)
    OutgoingMail.objects.all().delete()  # the submission's
    with django_capture_on_commit_callbacks(execute=True):
        services.review_assign(proposal=submitted, user=staff_user, to=unconfirmed)
    run_tasks()
    assert mail.outbox == []
    held = OutgoingMail.objects.get()
    assert held.to == unconfirmed.email
    assert held.status == OutgoingMail.Status.UNDELIVERABLE
    assert unconfirmed.email in held.last_error

    # Staff see it in "Mail delivery", as not sent.
    User.objects.filter(pk=staff_user.pk).update(is_staff=True)
    services.staff_group_grant_rights()
    client.force_login(staff_user)
    page = client.get(reverse("admin:proposals_outgoingmail_changelist")).text
    assert "Not sent: nobody to send it to" in page
    assert unconfirmed.email in page

    # Retry does nothing until the address is confirmed, then sends it.
    mails = OutgoingMail.objects.all()
    assert services.mail_retry(mails=mails) == 0
    services.account_verify(user=unconfirmed)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.mail_retry(mails=mails) == 1
    run_tasks()
    assert [m.to for m in mail.outbox] == [[unconfirmed.email]]


def test_without_any_staff_address_the_submission_mail_is_kept(
    applicant_proposal, user, django_capture_on_commit_callbacks
):
    assert not selectors.staff_members().exists()
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=applicant_proposal, user=user)
    held = OutgoingMail.objects.get()
    assert (held.to, held.status) == ("", OutgoingMail.Status.UNDELIVERABLE)
    assert "no active support staff member" in held.last_error


def test_links_come_from_the_site_address_not_the_request(
    client, site, submitted, staff_user, user, django_capture_on_commit_callbacks
):
    client.force_login(staff_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("proposals:staff_comment", args=[submitted.pk]),
            {"section": "general", "body": "Please add a job plan."},
            HTTP_HOST="internal-host:8080",
        )
    body = OutgoingMail.objects.get(to=user.email).body
    assert f"{SITE}/proposals/{submitted.pk}/review/status/" in body or (
        SITE + reverse("proposals:review_status", args=[submitted.pk]) in body
    )
    assert "internal-host" not in body


def test_an_edit_mail_caused_by_an_autosave_has_absolute_links(
    site, submitted, staff_user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.proposal_add_row(proposal=submitted, kind="jobs")
    body = OutgoingMail.objects.filter(to=staff_user.email).first().body
    assert "edited" in body
    assert SITE + reverse("proposals:staff_review", args=[submitted.pk]) in body


def test_account_mails_use_the_site_address(client, site, catalogue):
    with_profile = UserFactory(verified=False, is_active=True)
    client.force_login(with_profile)
    client.post(reverse("verify_email_resend"))
    assert f"{SITE}/accounts/" in mail.outbox[-1].body
    client.logout()
    client.post(
        reverse("password_reset"),
        {"email": with_profile.email},
        HTTP_HOST="internal-host",
    )
    reset = mail.outbox[-1].body
    assert f"{SITE}/accounts/reset/" in reset and "internal-host" not in reset


def test_staff_mails_print_numbers_as_the_pages_do(
    applicant_proposal, user, staff_user, django_capture_on_commit_callbacks
):
    type(applicant_proposal).objects.filter(pk=applicant_proposal.pk).update(
        total_gpu_hours=Decimal("110848.00")
    )
    applicant_proposal.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=applicant_proposal, user=user)
    body = OutgoingMail.objects.get(to=staff_user.email).body
    assert "110,848 GPU-hours" in body
    assert "110848.00" not in body


def test_the_account_profile_is_not_duplicated_by_admin_confirmation(admin_client):
    colleague = _make_colleague_in_admin(admin_client, "second")
    assert AccountProfile.objects.filter(user=colleague).count() == 1


def _change_in_admin(admin_client, user, **changes):
    """Post the admin's change form of ``user`` with ``changes``."""
    data = {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": user.email,
        "is_active": "on",
        "date_joined_0": "2026-01-05",
        "date_joined_1": "10:00:00",
        "initial-date_joined_0": "2026-01-05",
        "initial-date_joined_1": "10:00:00",
        **changes,
    }
    response = admin_client.post(
        reverse("admin:auth_user_change", args=[user.pk]), data
    )
    assert response.status_code == 302, response.content.decode()[:3000]


def test_a_colleague_made_in_two_steps_in_the_admin_is_confirmed(
    admin_client, catalogue
):
    """Django's usual way: add with a username and a password, then set the
    address and the staff group on the change page."""
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "later",
            "usable_password": "true",
            "password1": "a-long-passphrase-77",
            "password2": "a-long-passphrase-77",
        },
    )
    assert response.status_code == 302
    later = User.objects.get(username="later")
    assert not selectors.account_is_verified(user=later)
    staff_group = Group.objects.get(name=selectors.STAFF_GROUP)
    _change_in_admin(
        admin_client, later, email="later@example.eu", groups=[staff_group.pk]
    )
    later.refresh_from_db()
    assert later.email == "later@example.eu"
    assert selectors.account_is_verified(user=later)


def test_an_applicants_address_changed_in_the_admin_still_needs_confirming(
    admin_client, user
):
    assert selectors.account_is_verified(user=user)
    _change_in_admin(admin_client, user, email="elsewhere@example.eu")
    user.refresh_from_db()
    assert user.email == "elsewhere@example.eu"
    assert not selectors.account_is_verified(user=user)
