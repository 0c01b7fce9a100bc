"""The review's comments and internal notes: who sees them, who is mailed, who may
write them, and what the review pages cost per comment (the workflow itself is in
``test_review_workflow``)."""

import pytest
from django.core import mail
from django.urls import reverse

from proposals import services
from proposals.models import (
    Proposal,
    ReviewComment,
)
from tests.factories import ProposalFactory

pytestmark = pytest.mark.django_db
S = Proposal.Status

# Comments and internal notes --------------------------------------------------------


def test_staff_comment_reaches_applicant_page_and_mail(
    client,
    user,
    staff_user,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    client.force_login(staff_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("proposals:staff_comment", args=[submitted.pk]),
            {
                "section": "selection",
                "field": "selection.total_gpu_hours",
                "body": "Please explain the 4,000 hours.",
            },
        )
    run_tasks()  # the worker sends the queued mails
    assert [m.to for m in mail.outbox] == [[user.email]]
    assert "Please explain the 4,000 hours." in mail.outbox[0].body
    client.force_login(user)
    page = client.get(reverse("proposals:review_status", args=[submitted.pk])).text
    assert "Please explain the 4,000 hours." in page
    fragment = client.get(
        reverse("proposals:review_step_comments", args=[submitted.pk, "selection"]),
        HTTP_HX_REQUEST="true",
    ).text
    assert "Please explain the 4,000 hours." in fragment
    assert "Total GPU-hours" in fragment  # the label, never the path
    assert "selection.total_gpu_hours" not in fragment


def test_internal_notes_never_reach_the_applicant(
    client,
    user,
    staff_user,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    client.force_login(staff_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("proposals:staff_comment", args=[submitted.pk]),
            {
                "section": "codes",
                "body": "SECRET-NOTE looks copied",
                "staff_only": "on",
            },
        )
    note = ReviewComment.objects.get(body="SECRET-NOTE looks copied")
    assert note.staff_only
    with django_capture_on_commit_callbacks(execute=True):
        services.comment_add(
            proposal=submitted,
            author=staff_user,
            section="general",
            body="SECRET-REPLY agreed",
            parent=note,
        )
    assert ReviewComment.objects.get(body="SECRET-REPLY agreed").staff_only
    run_tasks()  # the worker sends the queued mails
    assert mail.outbox == []
    # The staff page shows them.
    staff_page = client.get(reverse("proposals:staff_review", args=[submitted.pk]))
    assert "SECRET-NOTE" in staff_page.text and "SECRET-REPLY" in staff_page.text
    # The applicant sees neither, anywhere.
    client.force_login(user)
    pages = [
        client.get(reverse("proposals:review_status", args=[submitted.pk])).text,
        client.get(
            reverse("proposals:review_step_comments", args=[submitted.pk, "codes"])
        ).text,
        client.post(
            reverse("proposals:review_comment", args=[submitted.pk]),
            {"section": "codes", "body": "Any news?"},
            HTTP_HX_REQUEST="true",
        ).text,
    ]
    for page in pages:
        assert "SECRET" not in page
    assert all("SECRET" not in m.body for m in mail.outbox)
    # Nor can they reply to it.
    response = client.post(
        reverse("proposals:review_comment", args=[submitted.pk]),
        {"section": "codes", "body": "sneaky", "parent": note.pk},
    )
    assert response.status_code == 404
    assert not ReviewComment.objects.filter(body="sneaky").exists()


def test_applicant_reply_goes_to_the_commenting_staff_member(
    client,
    user,
    staff_user,
    second_staff,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    comment = services.comment_add(
        proposal=submitted, author=staff_user, section="codes", body="Version?"
    )
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("proposals:review_comment", args=[submitted.pk]),
            {"section": "general", "body": "It is 2.5", "parent": comment.pk},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 200
    assert "It is 2.5" in response.text
    reply = ReviewComment.objects.get(body="It is 2.5")
    assert (reply.parent, reply.section, reply.staff_only) == (comment, "codes", False)
    run_tasks()  # the worker sends the queued mails
    assert [m.to for m in mail.outbox] == [[staff_user.email]]


def test_applicant_cannot_mark_a_comment_internal(user, submitted):
    comment = services.comment_add(
        proposal=submitted, author=user, section="general", body="Hi", staff_only=True
    )
    assert not comment.staff_only


def test_other_users_cannot_comment(other_user, submitted):
    with pytest.raises(services.ReviewError):
        services.comment_add(
            proposal=submitted, author=other_user, section="general", body="Hi"
        )


def test_staff_see_a_draft_only_after_it_is_sent(client, staff_user, user):
    draft = ProposalFactory(owner=user)
    client.force_login(staff_user)
    queue = client.get(reverse("proposals:review_queue")).text
    assert draft.title not in queue


def _queries(client, url):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_review_pages_do_not_query_per_comment_or_revision(
    client, user, staff_user, submitted
):
    staff_url = reverse("proposals:staff_review", args=[submitted.pk])
    applicant_url = reverse("proposals:review_status", args=[submitted.pk])

    def more_activity():
        for section in ("codes", "selection", "general"):
            comment = services.comment_add(
                proposal=submitted, author=staff_user, section=section, body="Why?"
            )
            services.comment_add(
                proposal=submitted,
                author=user,
                section=section,
                body="Because.",
                parent=comment,
            )
        services.review_set_status(
            proposal=submitted,
            user=staff_user,
            to_status=S.CHANGES_REQUESTED,
            note="Please split the jobs.",
        )
        services.review_submit(proposal=submitted, user=user, unchanged_ok=True)

    more_activity()
    client.force_login(staff_user)
    client.get(staff_url)
    staff_before = _queries(client, staff_url)
    client.force_login(user)
    client.get(applicant_url)
    applicant_before = _queries(client, applicant_url)
    more_activity()
    more_activity()
    client.force_login(staff_user)
    client.get(staff_url)
    assert _queries(client, staff_url) == staff_before
    client.force_login(user)
    client.get(applicant_url)
    assert _queries(client, applicant_url) == applicant_before
