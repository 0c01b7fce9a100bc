"""Privacy: the notice, deleting an account, the export of a person's data and the
expiry of what outlived its retention period."""

import csv
import io
import json
import zipfile
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max

from proposals import domain, notifications, retention, services
from proposals.assess import with_children
from proposals.exports import jsonio
from proposals.models import (
    AccountProfile,
    CodeEntry,
    OutgoingMail,
    PendingImport,
    Preferences,
    Proposal,
    ReviewComment,
    StatusChange,
)
from proposals.services import accounts as account_services
from tests.factories import (
    PASSWORD,
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    UserFactory,
)

# --------------------------------------------------------------------------------------
# The notice
# --------------------------------------------------------------------------------------


def test_the_notice_is_public_and_states_the_periods_the_expiry_applies(client, db):
    response = client.get(reverse("privacy"))
    assert response.status_code == 200
    text = response.content.decode()
    for item in retention.expiring():
        assert f"<td>{item.what}</td><td>{item.text}</td>" in text
    # The periods as the command applies them, not a copy.
    assert "<td>3 days</td>" in text  # Django's PASSWORD_RESET_TIMEOUT
    assert "<td>1 hour</td>" in text  # retention.PENDING_IMPORT
    assert "help desk" in text


@override_settings(PASSWORD_RESET_TIMEOUT=7 * 86400, PRIVACY_CONTACT="dpo@example.eu")
def test_the_notice_follows_the_deployment_settings(client, db):
    text = client.get(reverse("privacy")).content.decode()
    assert (
        "<td>Sign-ups whose e-mail address was never confirmed</td><td>7 days</td>"
        in (text)
    )
    assert 'data-testid="privacy-contact">dpo@example.eu<' in text


@pytest.mark.parametrize(
    "period,text",
    [
        (timedelta(days=3), "3 days"),
        (timedelta(hours=1), "1 hour"),
        (timedelta(minutes=15), "15 minutes"),
        (timedelta(hours=36), "36 hours"),
        (timedelta(seconds=90), "90 seconds"),
    ],
)
def test_periods_read_as_people_say_them(period, text):
    assert retention.describe(period) == text


def test_the_notice_is_linked_from_the_footer_sign_up_and_settings(client, user):
    link = f'href="{reverse("privacy")}"'
    assert link in client.get(reverse("home")).content.decode()
    assert link in client.get(reverse("signup")).content.decode()
    client.force_login(user)
    settings_page = client.get(reverse("account_settings")).content.decode()
    assert link in settings_page
    assert f'href="{reverse("account_data")}"' in settings_page
    assert f'href="{reverse("account_delete")}"' in settings_page


# --------------------------------------------------------------------------------------
# Deleting an account
# --------------------------------------------------------------------------------------


@pytest.fixture
def draft(user):
    proposal = ProposalFactory(owner=user, title="Never sent")
    CodeEntryFactory(proposal=proposal)
    JobTypeFactory(proposal=proposal)
    return proposal


def _delete(client, password=PASSWORD):
    return client.post(reverse("account_delete"), {"password": password})


def test_the_page_says_what_goes_and_what_stays(user_client, draft, submitted):
    page = user_client.get(reverse("account_delete")).content.decode()
    assert "Your 1 draft never sent for review is deleted" in page
    assert "The 1 proposal you sent for review stays with the help desk" in page
    assert 'type="password"' in page


def test_a_wrong_password_deletes_nothing(user_client, user, draft):
    response = _delete(user_client, password="not-the-password")
    assert response.status_code == 200
    assert "That is not your password: nothing was deleted." in (
        response.content.decode()
    )
    assert User.objects.filter(pk=user.pk).exists()
    assert Proposal.objects.filter(pk=draft.pk).exists()


def test_deleting_removes_drafts_and_keeps_sent_proposals_without_the_person(
    client, user, draft, submitted, staff_user
):
    comment = services.comment_add(
        proposal=submitted, author=user, section="general", body="Our reply."
    )
    OutgoingMail.objects.create(to=user.email.upper(), subject="s", body="b")
    OutgoingMail.objects.create(to=staff_user.email, subject="s", body="b")
    AccessLog.objects.create(
        username=user.username, ip_address="192.0.2.1", user_agent="x"
    )
    client.force_login(user)
    response = _delete(client)

    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert not User.objects.filter(pk=user.pk).exists()
    assert not AccountProfile.objects.filter(email=user.email).exists()
    assert not Preferences.objects.filter(user_id=user.pk).exists()
    # The draft is gone with its rows.
    assert not Proposal.objects.filter(pk=draft.pk).exists()
    assert not CodeEntry.objects.filter(proposal_id=draft.pk).exists()
    # What was sent for review stays, deleted for its owner and detached from them.
    kept = Proposal.objects.get(pk=submitted.pk)
    assert kept.owner is None and kept.deleted_at is not None
    assert kept.revisions.count() == 1
    comment.refresh_from_db()
    assert comment.author is None and comment.body == "Our reply."
    # Their mails and login records are deleted; the staff's mail is not.
    addresses = {to.lower() for to in OutgoingMail.objects.values_list("to", flat=True)}
    assert user.email not in addresses and staff_user.email in addresses
    assert not AccessLog.objects.filter(username=user.username).exists()
    # Logged out, and told what happened.
    follow = client.get(reverse("home"))
    assert "Your account and your drafts were deleted." in follow.content.decode()
    assert (
        "The 1 proposal you sent for review stays with the help desk"
        in follow.content.decode()
    )
    assert client.get(reverse("proposals:list")).status_code == 302


def test_staff_see_the_kept_proposal_without_the_person(
    client, user, submitted, staff_user
):
    services.account_delete(user=user)
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "applicant (account deleted)" in text
    assert user.username not in text and user.email not in text
    for url in (
        reverse("proposals:review_queue"),
        reverse("proposals:staff_diff", args=[submitted.pk]) + "?a=1&b=current",
        reverse("proposals:export_portal", args=[submitted.pk]) + "?revision=1",
        reverse("proposals:export_markdown", args=[submitted.pk]),
        reverse("proposals:export_json", args=[submitted.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert user.email.encode() not in response.content, url
    rows = list(
        csv.reader(
            io.StringIO(
                # Withdrawn by its deletion: among the ended ones, out of the
                # default view.
                client.get(
                    reverse("proposals:review_queue_csv") + "?show=ended"
                ).content.decode("utf-8-sig")
            )
        )
    )
    row = next(r for r in rows[1:] if r[0] == submitted.title)
    assert row[2] == "(account deleted)"
    assert all(user.username not in cell for cell in row)


def test_account_deletion_goes_through_the_proposal_deletion_service(
    monkeypatch, user, draft, submitted
):
    """The staff's rule for a proposal deleted after review applies to the ones an
    account deletion keeps: every proposal goes through ``proposals_delete``, the
    service behind ``proposal_delete``."""
    seen = []
    original = account_services.proposals_delete

    def spy(*, proposals):
        seen.extend(proposals.values_list("pk", flat=True))
        return original(proposals=proposals)

    monkeypatch.setattr(account_services, "proposals_delete", spy)
    done = services.account_delete(user=user)
    assert sorted(seen) == sorted([draft.pk, submitted.pk])
    assert (done.deleted, done.kept) == (1, 1)


def test_a_proposal_deleted_before_stays_deleted_and_is_detached(user, submitted):
    services.proposal_delete(proposal=submitted)
    deleted_at = Proposal.objects.get(pk=submitted.pk).deleted_at
    done = services.account_delete(user=user)
    kept = Proposal.objects.get(pk=submitted.pk)
    assert (kept.owner_id, kept.deleted_at) == (None, deleted_at)
    assert (done.deleted, done.kept) == (0, 1)


def test_no_mail_goes_to_an_applicant_who_deleted_their_account(
    user, submitted, staff_user
):
    services.account_delete(user=user)
    change = StatusChange(
        proposal=Proposal.objects.get(pk=submitted.pk),
        from_status="submitted",
        to_status="ready",
        by=staff_user,
    )
    assert notifications.status_to_applicant(change=change) == []
    comment = ReviewComment(
        proposal=change.proposal, author=staff_user, section="general", body="x"
    )
    assert notifications.comment_to_applicant(comment=comment) == []


def test_deleting_is_throttled_per_account(user_client, user):
    for _ in range(10):
        _delete(user_client, password="wrong")
    assert _delete(user_client).status_code == 429
    assert User.objects.filter(pk=user.pk).exists()


def test_deleting_needs_a_login(client, db):
    response = client.post(reverse("account_delete"), {"password": "x"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


# --------------------------------------------------------------------------------------
# The export of a person's data
# --------------------------------------------------------------------------------------


def _archive(client) -> zipfile.ZipFile:
    response = client.get(reverse("account_data"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    return zipfile.ZipFile(io.BytesIO(response.content))


def test_the_export_holds_the_account_and_every_proposal(
    user_client, user, draft, submitted, other_user, staff_user
):
    services.proposal_set_archived(proposal=draft, archived=True)
    services.comment_add(
        proposal=submitted,
        author=staff_user,
        section="general",
        body="Internal only",
        staff_only=True,
    )
    services.comment_add(
        proposal=submitted, author=staff_user, section="general", body="Please add X"
    )
    ProposalFactory(owner=other_user, title="Somebody else's")

    archive = _archive(user_client)
    summary = json.loads(archive.read("account.json"))
    assert summary["account"]["username"] == user.username
    assert summary["account"]["email"] == user.email
    assert summary["account"]["email_confirmed_at"]
    titles = {item["title"]: item for item in summary["proposals"]}
    assert set(titles) == {draft.title, submitted.title}
    assert titles[draft.title]["archived_at"]
    sent = titles[submitted.title]
    assert [r["number"] for r in sent["revisions"]] == [1]
    assert [c["text"] for c in sent["comments"]] == ["Please add X"]
    assert sent["status_history"][-1]["to"] == "Submitted for review"
    # Each proposal is a file of the JSON format, equal to its own export, and
    # importable again.
    for item in summary["proposals"]:
        proposal = Proposal.objects.get(pk=item["id"])
        text = archive.read(item["file"]).decode()
        assert text == jsonio.export_text(
            with_children(Proposal.objects.filter(pk=proposal.pk)).get()
        )
        assert jsonio.check_file(text.encode()).title == proposal.title
    revision = archive.read(sent["revisions"][0]["file"])
    assert domain.read(revision).title == submitted.title


def test_the_export_includes_proposals_deleted_but_kept_for_the_staff(
    user_client, submitted
):
    services.proposal_delete(proposal=submitted)
    summary = json.loads(_archive(user_client).read("account.json"))
    assert [item["deleted_at"] is not None for item in summary["proposals"]] == [True]


def test_the_export_needs_a_login(client, db):
    assert client.get(reverse("account_data")).status_code == 302


# --------------------------------------------------------------------------------------
# Expiry
# --------------------------------------------------------------------------------------


def _signup(name: str, *, joined):
    user = UserFactory(username=name, is_active=False, verified=False)
    AccountProfile.objects.create(user=user, email=user.email)
    User.objects.filter(pk=user.pk).update(date_joined=joined)
    return user


def test_expire_stale_deletes_only_what_outlived_its_period(user, proposal):
    now = timezone.now()
    old_signup = _signup("stale", joined=now - retention.unconfirmed_signup() * 2)
    new_signup = _signup("fresh", joined=now - timedelta(hours=1))
    # An inactive account that did log in once (deactivated by staff) is no sign-up.
    deactivated = UserFactory(is_active=False, last_login=now - timedelta(days=400))
    User.objects.filter(pk=deactivated.pk).update(date_joined=now - timedelta(days=400))

    def pending(age):
        item = PendingImport.objects.create(
            token=f"t{age}", owner=user, proposal=proposal, document={}
        )
        PendingImport.objects.filter(pk=item.pk).update(created_at=now - age)
        return item.pk

    old_import = pending(retention.PENDING_IMPORT + timedelta(minutes=1))
    new_import = pending(retention.PENDING_IMPORT - timedelta(minutes=1))
    old_log = AccessLog.objects.create(username="x", user_agent="x")
    AccessLog.objects.filter(pk=old_log.pk).update(
        attempt_time=now - retention.LOGIN_RECORDS - timedelta(days=1)
    )
    new_log = AccessLog.objects.create(username="y", user_agent="y")
    attempt = AccessAttempt.objects.create(
        username="z", user_agent="z", failures_since_start=1
    )
    AccessAttempt.objects.filter(pk=attempt.pk).update(
        attempt_time=now - retention.login_lock() - timedelta(minutes=1)
    )
    expired_session = SessionStore()
    expired_session.set_expiry(-1)
    expired_session.create()
    live_session = SessionStore()
    live_session.create()

    out = io.StringIO()
    call_command("expire_stale", stdout=out)

    assert set(User.objects.values_list("username", flat=True)) == {
        user.username,
        new_signup.username,
        deactivated.username,
    }
    assert not AccountProfile.objects.filter(user_id=old_signup.pk).exists()
    assert list(PendingImport.objects.values_list("pk", flat=True)) == [new_import]
    assert old_import != new_import
    assert list(AccessLog.objects.values_list("pk", flat=True)) == [new_log.pk]
    assert not AccessAttempt.objects.exists()
    assert list(Session.objects.values_list("session_key", flat=True)) == [
        live_session.session_key
    ]
    report = out.getvalue()
    assert (
        "Sign-ups whose e-mail address was never confirmed, older than 3 days: "
        "1 deleted" in report
    )
    assert "Uploaded files not confirmed for import, older than 1 hour: 1 deleted" in (
        report
    )


@override_settings(PASSWORD_RESET_TIMEOUT=86400)
def test_the_sign_up_period_is_the_setting(db, catalogue):
    now = timezone.now()
    _signup("two-days", joined=now - timedelta(days=2))
    assert services.stale_data_expire(now=now)["unconfirmed_signups"] == 1
    assert not User.objects.filter(username="two-days").exists()


def test_an_operator_deletes_an_account_as_its_owner_would(user, draft, submitted):
    out = io.StringIO()
    call_command("delete_account", user.username, stdout=out)
    assert "Would delete" in out.getvalue() and "1 draft(s)" in out.getvalue()
    assert User.objects.filter(pk=user.pk).exists()
    call_command("delete_account", user.username, "--yes", stdout=out)
    assert not User.objects.filter(pk=user.pk).exists()
    assert list(Proposal.objects.values_list("pk", "owner")) == [(submitted.pk, None)]


def test_the_data_export_costs_the_same_queries_for_more_proposals(
    user_client, user, submitted
):
    def count():
        with CaptureQueriesContext(connection) as queries:
            _archive(user_client)
        return len(queries)

    # The session's first page notes the page's language once
    # (localization.follow_page_language): not what is counted here.
    _archive(user_client)
    few = count()
    for _ in range(3):
        proposal = ProposalFactory(owner=user)
        CodeEntryFactory(proposal=proposal)
        services.review_submit(proposal=proposal, user=user)
    assert count() == few


def test_the_mail_log_keeps_mails_still_to_send(db):
    now = timezone.now()
    old = now - retention.MAIL_LOG - timedelta(days=1)
    statuses = OutgoingMail.Status
    for status in statuses.values:
        mail = OutgoingMail.objects.create(to="a@example.eu", subject=status, body="")
        OutgoingMail.objects.filter(pk=mail.pk).update(status=status, created_at=old)
    recent = OutgoingMail.objects.create(to="b@example.eu", subject="new", body="")
    OutgoingMail.objects.filter(pk=recent.pk).update(status=statuses.SENT)
    assert services.stale_data_expire(now=now)["mail_log"] == 2
    assert set(OutgoingMail.objects.values_list("subject", flat=True)) == {
        statuses.QUEUED,
        statuses.RETRYING,
        # Not sent for want of a confirmed address: kept until staff retry it.
        statuses.UNDELIVERABLE,
        "new",
    }


def test_finished_task_records_go_after_their_period_unfinished_ones_stay(db, settings):
    """The daily expiry (the shipped timer's ``expire_stale``) prunes django-tasks-db's
    finished records: they hold a mail's or a PDF's arguments and any traceback."""
    settings.TASK_RESULTS_KEPT = timedelta(days=7)
    now = timezone.now()
    old = now - timedelta(days=7, minutes=1)
    recent = now - timedelta(days=6)

    def record(status, finished_at=None):
        task = DBTaskResult.objects.create(
            task_path="proposals.services.mail.deliver_mail",
            args_kwargs={"args": [1], "kwargs": {}},
            backend_name="default",
            run_after=get_date_max(),
        )
        DBTaskResult.objects.filter(pk=task.pk).update(
            status=status, finished_at=finished_at, enqueued_at=old
        )
        return task.pk

    gone = {record("SUCCESSFUL", old), record("FAILED", old)}
    kept = {
        record("SUCCESSFUL", recent),
        record("FAILED", recent),
        record("READY"),  # waiting for a worker however long: not finished
        record("RUNNING"),
    }
    out = io.StringIO()
    call_command("expire_stale", stdout=out)
    assert set(DBTaskResult.objects.values_list("pk", flat=True)) == kept
    assert not gone & kept
    assert (
        "Records of background tasks (e-mails, PDFs, log readings) once finished, "
        "older than 7 days: 2 deleted" in out.getvalue()
    )
