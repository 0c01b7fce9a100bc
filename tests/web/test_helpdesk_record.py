"""The review record (issue 23): a comment on a table row follows the row, not
its position, and keeps the row's name once it is deleted; comments are
append-only in the admin; the staff findings box counts its badges."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from proposals import selectors, services
from proposals.domain import technical_review as tr
from proposals.models import ImmutableRecordError, TechnicalAssessment
from tests.factories import JobTypeFactory

pytestmark = pytest.mark.django_db


def labels(proposal) -> list[str]:
    sections = selectors.review_comment_threads(
        proposal=proposal, include_staff_only=True, section="scalability"
    )
    return [comment.field_label for comment in sections[0]["threads"]]


@pytest.fixture
def two_jobs(submitted):
    first = JobTypeFactory(proposal=submitted, title="pretrain", position=10)
    second = JobTypeFactory(proposal=submitted, title="finetune", position=11)
    return first, second


def test_a_row_comment_follows_its_row_and_keeps_its_name(
    client, staff_user, user, submitted, two_jobs
):
    first, second = two_jobs
    jobs = list(submitted.jobs.order_by("position", "id"))
    index = jobs.index(second)
    comment = services.comment_add(
        proposal=submitted,
        author=staff_user,
        section="scalability",
        field=f"scalability.jobs[{index}].gpus",
        body="Why 8 GPUs for the fine-tuning?",
    )
    assert comment.row_id == second.pk
    assert "(finetune)" in comment.row_label
    assert f"Job type {index + 1} (finetune)" in labels(submitted)[0]

    # The applicant moves it up: the comment still names "finetune", at its new place.
    services.proposal_move_row(proposal=submitted, row=second, direction=-1)
    label = labels(submitted)[0]
    assert f"Job type {index} (finetune)" in label and "pretrain" not in label
    client.force_login(user)
    status = client.get(reverse("proposals:review_status", args=[submitted.pk])).text
    assert f"Job type {index} (finetune)" in status

    # Deleted: the comment keeps the row's name and says the row is gone.
    services.proposal_delete_row(proposal=submitted, kind="jobs", row=second)
    label = labels(submitted)[0]
    assert "(finetune) (row deleted)" in label
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    assert "(finetune) (row deleted)" in page

    # A reply belongs to the same row.
    reply = services.comment_add(
        proposal=submitted,
        author=user,
        section="general",
        body="We dropped that job.",
        parent=comment,
    )
    assert (reply.row_id, reply.row_label) == (comment.row_id, comment.row_label)


@pytest.fixture
def admin_client(client, catalogue):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    return client


def test_comments_are_append_only_in_the_admin(admin_client, staff_user, submitted):
    comment = services.comment_add(
        proposal=submitted,
        author=staff_user,
        section="general",
        body="Internal: check the budget",
        staff_only=True,
    )
    change = reverse("admin:proposals_reviewcomment_change", args=[comment.pk])
    page = admin_client.get(change)
    assert page.status_code == 200 and 'name="body"' not in page.text
    answer = admin_client.post(
        change, {"body": "Rewritten", "staff_only": "", "section": "general"}
    )
    assert answer.status_code == 403
    assert (
        admin_client.get(reverse("admin:proposals_reviewcomment_add")).status_code
        == 403
    )
    delete = reverse("admin:proposals_reviewcomment_delete", args=[comment.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    comment.refresh_from_db()
    assert (comment.body, comment.staff_only) == ("Internal: check the budget", True)
    comment.body = "Rewritten in code"
    with pytest.raises(ImmutableRecordError):
        comment.save()


def test_the_staff_findings_box_counts_its_badges(client, staff_user, submitted):
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    box = page.split('data-testid="finding-counts"', 1)[1].split("</p>", 1)[0]
    errors = submitted.review_state.latest_revision.error_count
    assert errors > 0
    assert f">{errors} error{'s' if errors != 1 else ''}</span>" in box
    assert "> errors</span>" not in box


def test_staff_add_conditions_of_their_own(client, staff_user, user, submitted):
    client.force_login(staff_user)
    url = reverse("proposals:staff_assess", args=[submitted.pk])
    too_long = client.post(
        url,
        {
            "outcome": tr.FEASIBLE_WITH_CONDITIONS,
            "own_condition": "x" * (tr.MAX_REASON + 1),
            "action": "record",
        },
    )
    assert too_long.status_code == 422
    assert "Keep each condition under" in too_long.text
    assert not TechnicalAssessment.objects.exists()

    # No finding accepted as a condition: a condition of one's own is enough.
    answer = client.post(
        url,
        {
            "outcome": tr.FEASIBLE_WITH_CONDITIONS,
            "own_condition": ["Scaling data at 64 GPUs by month 2", "  "],
            "action": "record",
        },
    )
    assert answer.status_code == 302
    assessment = TechnicalAssessment.objects.get()
    assert [item["message"] for item in assessment.conditions] == [
        "Scaling data at 64 GPUs by month 2"
    ]
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    assert 'value="Scaling data at 64 GPUs by month 2"' in page  # kept in the form
    client.force_login(user)
    status = client.get(reverse("proposals:review_status", args=[submitted.pk])).text
    assert "Scaling data at 64 GPUs by month 2" in status


def test_the_applicant_is_warned_and_the_open_page_updates_after_an_edit(
    client, user, staff_user, submitted
):
    from tests.web.test_live import HX, page_data

    services.review_set_status(
        proposal=submitted, user=staff_user, to_status="ready", note="Known limits."
    )
    client.force_login(user)
    url = reverse("proposals:step", args=[submitted.pk, "selection"])
    page = client.get(url).text
    assert 'data-testid="ready-warning"' in page
    assert "Changing anything withdraws that" in page
    assert 'data-testid="wizard-status">Ready to submit<' in page

    answer = client.post(
        url, page_data(submitted, "selection", libraries="PyTorch 2.6"), headers=HX
    ).text
    submitted.refresh_from_db()
    assert submitted.status == "changed_since_ready"
    # The open page's status and notice are replaced out of band.
    assert 'id="wizard-status"' in answer and "Changed since ready" in answer
    assert 'id="ready-notice"' in answer and 'data-testid="ready-withdrawn"' in answer
    assert 'data-testid="ready-warning"' not in answer
