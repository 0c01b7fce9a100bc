"""Issue 23's held-out check, end to end through the pages: an administrator makes
a colleague in the Django admin, who is handed a proposal, gets revision 2 and the
applicant's reply; a proposal deleted by its applicant; a decision on one's own
proposal; a change request without a note; the health endpoints."""

import csv
import io
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import Group, User
from django.core import mail
from django.urls import reverse

from proposals import selectors, services
from proposals.models import (
    OutgoingMail,
    Proposal,
    ReviewComment,
    ReviewState,
    TechnicalAssessment,
)
from tests.factories import CodeEntryFactory, JobTypeFactory, ProposalFactory
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db
S = Proposal.Status
SITE = "https://desk.example.eu"


def _links(body):
    return re.findall(
        r"(?:https?://\S+|(?<![\w/])/(?:staff|proposals|accounts)/\S*)", body
    )


def _admin_makes_colleague(client, root, email):
    client.force_login(root)
    answer = client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "dana",
            "email": email,
            "usable_password": "true",
            "password1": "a-long-passphrase-77",
            "password2": "a-long-passphrase-77",
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    dana = User.objects.get(username="dana")
    staff_group = Group.objects.get(name=selectors.STAFF_GROUP)
    answer = client.post(
        reverse("admin:auth_user_change", args=[dana.pk]),
        {
            "username": "dana",
            "first_name": "Dana",
            "last_name": "Colleague",
            "email": dana.email,
            "is_active": "on",
            "is_staff": "on",
            "groups": [staff_group.pk],
            "date_joined_0": "2026-01-05",
            "date_joined_1": "10:00:00",
            "initial-date_joined_0": "2026-01-05",
            "initial-date_joined_1": "10:00:00",
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    dana.refresh_from_db()
    return dana


@pytest.mark.parametrize("email", ["dana@example.eu", "Dana.Colleague@Example.EU"])
def test_mail_to_an_administrator_made_colleague(
    client,
    settings,
    email,
    user,
    staff_user,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    settings.SITE_URL = SITE
    settings.ALLOWED_HOSTS = ["testserver", "10.0.0.7"]
    root = User.objects.create_superuser("root", "root@example.eu", "x")
    dana = _admin_makes_colleague(client, root, email)
    assert selectors.account_is_verified(user=dana)

    proposal = ProposalFactory(owner=user, title="Protein folding at scale")
    CodeEntryFactory(proposal=proposal, position=0)

    def as_(who, name, pk, data, **extra):
        client.force_login(who)
        with django_capture_on_commit_callbacks(execute=True):
            answer = client.post(
                reverse(name, args=[pk]), data, HTTP_HOST="10.0.0.7", **extra
            )
        run_tasks()
        assert answer.status_code in (200, 302), answer.status_code
        return answer

    as_(user, "proposals:review_send", proposal.pk, {"note": ""})
    OutgoingMail.objects.all().delete()
    mail.outbox.clear()

    # Hand over to Dana, Dana asks for changes, revision 2, comment and reply.
    as_(staff_user, "proposals:staff_assign", proposal.pk, {"action": "take"})
    as_(
        staff_user,
        "proposals:staff_assign",
        proposal.pk,
        {"action": "hand_over", "to": dana.pk},
    )
    proposal.refresh_from_db()
    assert proposal.review_state.handled_by == dana
    as_(
        dana,
        "proposals:staff_set_status",
        proposal.pk,
        {
            "to_status": S.CHANGES_REQUESTED,
            "from_status": S.SUBMITTED,
            "note": "Please add a scaling measurement.",
        },
    )
    proposal.refresh_from_db()
    assert proposal.status == S.CHANGES_REQUESTED
    # The applicant changes something (sending the same again asks to confirm).
    proposal.total_gpu_hours = (proposal.total_gpu_hours or 0) + 1000
    proposal.save()
    as_(user, "proposals:review_send", proposal.pk, {"note": "Added it."})
    proposal.refresh_from_db()
    assert proposal.status == S.SUBMITTED
    assert proposal.review_state.latest_revision.number == 2
    as_(
        dana,
        "proposals:staff_comment",
        proposal.pk,
        {"section": "general", "body": "Which GPUs did you measure on?"},
    )
    comment = ReviewComment.objects.get(author=dana)
    as_(
        user,
        "proposals:review_comment",
        proposal.pk,
        {"section": "general", "parent": comment.pk, "body": "On H100s."},
    )

    to_dana = OutgoingMail.objects.filter(to__iexact=dana.email).order_by("pk")
    subjects = [m.subject for m in to_dana]
    assert len(subjects) == 3, subjects  # hand-over, revision 2, reply
    assert any("revision 2" in s.lower() for s in subjects), subjects
    assert all(m.status == OutgoingMail.Status.SENT for m in to_dana), [
        (m.subject, m.status, m.last_error) for m in to_dana
    ]
    sent_to_dana = [m for m in mail.outbox if m.to[0].lower() == dana.email.lower()]
    assert len(sent_to_dana) == 3
    # Nothing was held or dropped; every link is absolute from the site address.
    assert not OutgoingMail.objects.exclude(status=OutgoingMail.Status.SENT).exists()
    for stored in OutgoingMail.objects.all():
        links = _links(stored.body)
        assert links, stored.body
        assert all(link.startswith(SITE + "/") for link in links), (stored.body,)
        assert "10.0.0.7" not in stored.body

    # Staff see them all under "Mail delivery".
    client.force_login(dana)
    page = client.get(reverse("admin:proposals_outgoingmail_changelist"))
    assert page.status_code == 200
    for stored in to_dana:
        assert stored.subject in page.text


def test_a_proposal_deleted_while_a_colleague_handles_it(
    client,
    user,
    staff_user,
    second_staff,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    client.force_login(staff_user)
    client.post(
        reverse("proposals:staff_assign", args=[submitted.pk]), {"action": "take"}
    )
    client.force_login(user)
    OutgoingMail.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("proposals:delete", args=[submitted.pk]))
    submitted.refresh_from_db()
    assert submitted.status == S.WITHDRAWN
    # Only the handler is told, with a link that answers.
    told = list(OutgoingMail.objects.all())
    assert [m.to for m in told] == [staff_user.email]
    client.force_login(staff_user)
    for link in _links(told[0].body):
        path = re.sub(r"^https?://[^/]+", "", link)
        assert client.get(path).status_code == 200, path

    # Every later staff act mails the applicant nothing.
    OutgoingMail.objects.all().delete()
    for name, data in [
        ("proposals:staff_comment", {"section": "general", "body": "Noted."}),
        (
            "proposals:staff_set_status",
            {"to_status": S.CLOSED, "note": "Withdrawn.", "from_status": S.WITHDRAWN},
        ),
        ("proposals:staff_assign", {"action": "hand_over", "to": second_staff.pk}),
    ]:
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse(name, args=[submitted.pk]), data)
    run_tasks()
    assert not OutgoingMail.objects.filter(to=user.email).exists()
    assert all(user.email not in m.to for m in mail.outbox)
    # Queue: not waiting for us, shown as withdrawn among the endings.
    waiting = client.get(reverse("proposals:review_queue")).text
    assert submitted.title not in waiting
    ended = client.get(reverse("proposals:review_queue"), {"show": "ended"}).text
    assert submitted.title in ended and "ithdrawn" in ended


def test_own_proposal_and_empty_change_request_are_refused(
    client, staff_user, second_staff, submitted, django_capture_on_commit_callbacks
):
    own = ProposalFactory(owner=staff_user, title="Mine")
    CodeEntryFactory(proposal=own, position=0)
    client.force_login(staff_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("proposals:review_send", args=[own.pk]), {"note": ""})
    own.refresh_from_db()
    assert own.status == S.SUBMITTED
    for target in (S.READY, S.CHANGES_REQUESTED, S.CLOSED):
        answer = client.post(
            reverse("proposals:staff_set_status", args=[own.pk]),
            {"to_status": target, "note": "Fine by me.", "from_status": S.SUBMITTED},
            follow=True,
        )
        own.refresh_from_db()
        assert own.status == S.SUBMITTED, target
        assert "conflict of interest" in answer.text
    # Nor is an assessment recorded.
    client.post(
        reverse("proposals:staff_assess", args=[own.pk]),
        {"outcome": "feasible", "text": "ok"},
    )
    assert not TechnicalAssessment.objects.filter(proposal=own).exists()

    # A change request without a note, also a blank one, is refused.
    for note in ("", "   \n "):
        answer = client.post(
            reverse("proposals:staff_set_status", args=[submitted.pk]),
            {
                "to_status": S.CHANGES_REQUESTED,
                "note": note,
                "from_status": S.SUBMITTED,
            },
            follow=True,
        )
        submitted.refresh_from_db()
        assert submitted.status == S.SUBMITTED, repr(note)
        assert "note" in answer.text.lower()


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_health_endpoints_answer_without_login_and_leak_nothing(client, path, settings):
    answer = client.get(path)
    assert answer.status_code == 200
    assert "login" not in answer.get("Location", "")
    text = answer.content.decode()
    for secret in (settings.SECRET_KEY, "postgres", "sqlite", "Traceback", "/work/"):
        assert secret not in text, secret
    assert len(text) < 400, text
    assert "Set-Cookie" not in str(answer.headers) and not answer.cookies


def test_an_invalid_status_among_valid_ones_keeps_the_valid_ones(client, staff_user):
    proposals = queue_rows(6)  # submitted, changes requested, ready, in turn
    client.force_login(staff_user)
    page = client.get(
        reverse("proposals:review_queue") + "?status=ready&status=archived"
    ).text
    shown = {p.title for p in proposals if f">{p.title}</a>" in page}
    assert shown == {p.title for p in proposals if p.status == S.READY}
    assert 'data-testid="queue-filter-problem"' in page and "archived" in page
    # The form still shows "ready" as chosen.
    assert re.search(r'value="ready"[^>]*checked|checked[^>]*value="ready"', page)


def _reply_mails(client, user, proposal, parent, capture, body):
    OutgoingMail.objects.all().delete()
    client.force_login(user)
    with capture(execute=True):
        client.post(
            reverse("proposals:review_comment", args=[proposal.pk]),
            {"section": "general", "parent": parent.pk, "body": body},
        )
    return list(OutgoingMail.objects.all())


def test_the_applicants_reply_in_their_own_thread_reaches_staff(
    client, user, staff_user, submitted, django_capture_on_commit_callbacks
):
    """The applicant opens a thread, a staff member answers in it, the applicant
    answers back: the staff member is told, not the applicant themselves."""
    client.force_login(user)
    client.post(
        reverse("proposals:review_comment", args=[submitted.pk]),
        {"section": "general", "body": "Can we ask for more hours?"},
    )
    opened = ReviewComment.objects.get(author=user)
    client.force_login(staff_user)
    client.post(
        reverse("proposals:staff_comment", args=[submitted.pk]),
        {"section": "general", "parent": opened.pk, "body": "Yes, up to 50,000."},
    )
    told = _reply_mails(
        client, user, submitted, opened, django_capture_on_commit_callbacks, "Thanks"
    )
    assert [m.to for m in told] == [staff_user.email]


def test_a_reply_to_a_colleague_who_left_reaches_the_handler(
    client,
    user,
    staff_user,
    second_staff,
    submitted,
    django_capture_on_commit_callbacks,
):
    client.force_login(second_staff)
    client.post(
        reverse("proposals:staff_comment", args=[submitted.pk]),
        {"section": "general", "body": "Which GPUs?"},
    )
    asked = ReviewComment.objects.get(author=second_staff)
    client.force_login(staff_user)
    client.post(
        reverse("proposals:staff_assign", args=[submitted.pk]), {"action": "take"}
    )
    User.objects.filter(pk=second_staff.pk).update(is_active=False)
    told = _reply_mails(
        client, user, submitted, asked, django_capture_on_commit_callbacks, "H100s"
    )
    assert [(m.to, m.status) for m in told] == [
        (staff_user.email, OutgoingMail.Status.QUEUED)
    ]


def test_the_stale_status_message_names_the_time_zone(
    client, user, staff_user, second_staff, submitted
):
    services.preferences_set(
        user=staff_user, number_format="de_DE", time_zone="Europe/Helsinki"
    )
    services.review_set_status(
        proposal=submitted, user=second_staff, to_status=S.CHANGES_REQUESTED, note="x"
    )
    at = submitted.status_changes.order_by("-at").first().at
    client.force_login(staff_user)
    answer = client.post(
        reverse("proposals:staff_set_status", args=[submitted.pk]),
        {"to_status": S.READY, "note": "ok", "from_status": S.SUBMITTED},
        follow=True,
    )
    shown = [str(m) for m in answer.context["messages"]]
    local = at.astimezone(ZoneInfo("Europe/Helsinki"))
    assert any(
        f"{local:%H:%M} {local.tzname()}" in m and f"{local:%d.%m.%Y}" in m
        for m in shown
    ), shown


def test_queue_csv_as_excel_opens_it_for_a_de_de_staff_member(
    client, settings, staff_user, submitted
):
    settings.SITE_URL = SITE
    services.preferences_set(user=staff_user, number_format="de_DE")
    # Sent at 00:30 in Brussels: that is the day the queue counts from.
    ReviewState.objects.filter(proposal=submitted).update(
        submitted_at=datetime(2026, 12, 1, 23, 30, tzinfo=UTC)
    )
    client.force_login(staff_user)
    raw = client.get(reverse("proposals:review_queue_csv")).content
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
    header, row = rows[0], rows[1]
    assert len(header) == len(row) > 10
    assert row[header.index("Link")] == f"{SITE}/staff/review/{submitted.pk}/"
    assert row[header.index("Sent for review")] == "2026-12-02"


def test_a_colleague_made_in_the_admin_can_always_sign_in(client, catalogue):
    """Django's "password-based authentication: disabled" would make an account
    that can never sign in (a reset link is never sent to it): every account here
    signs in with a password, so the admin asks for one."""
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    form = client.get(reverse("admin:auth_user_add")).text
    assert 'name="usable_password"' not in form
    refused = client.post(
        reverse("admin:auth_user_add"),
        {"username": "inv", "email": "inv@example.eu", "usable_password": "false"},
    )
    assert refused.status_code == 200
    assert not User.objects.filter(username="inv").exists()
    made = client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "inv",
            "email": "inv@example.eu",
            "password1": "a-long-passphrase-77",
            "password2": "a-long-passphrase-77",
        },
    )
    assert made.status_code == 302
    client.logout()
    client.post(reverse("password_reset"), {"email": "inv@example.eu"})
    assert [m.to for m in mail.outbox] == [["inv@example.eu"]]


def test_a_row_comment_made_on_a_revision_anchors_the_row_shown(
    client, user, staff_user, applicant_proposal
):
    """On an older revision's page the rows are the revision's: after the applicant
    reordered the draft, a comment on revision 1's first job is on that job."""
    pretrain = JobTypeFactory(proposal=applicant_proposal, title="pretrain", position=0)
    finetune = JobTypeFactory(proposal=applicant_proposal, title="finetune", position=1)
    services.review_submit(proposal=applicant_proposal, user=user)
    services.proposal_move_row(proposal=applicant_proposal, row=finetune, direction=-1)
    client.force_login(staff_user)
    page = client.get(
        reverse("proposals:staff_review", args=[applicant_proposal.pk]) + "?revision=1"
    ).text
    # The "About" select groups a row's fields under the row's name (issue 34).
    assert re.search(
        r'<optgroup label="Job type 1 \(pretrain\)">\s*'
        r'<option value="scalability\.jobs\[0\]\.title"',
        page,
    )
    assert 'name="revision" value="1"' in page
    client.post(
        reverse("proposals:staff_comment", args=[applicant_proposal.pk]),
        {
            "section": "scalability",
            "field": "scalability.jobs[0].title",
            "revision": "1",
            "body": "Why so many pretraining runs?",
        },
    )
    comment = ReviewComment.objects.get()
    assert (comment.row_id, comment.row_label) == (pretrain.pk, "Job type 1 (pretrain)")
