"""Issue 36: a comment on a table row names the row in its reader's language. A
German staff member's comment on an unnamed job row reaches an English applicant
as "Job type 1" and a German one as "Jobtyp 1": the comment keeps the row's name
(none here) and its place, not the label in the author's language."""

import pytest
from django.utils import translation

from proposals import notifications, services
from proposals.models import ReviewComment
from tests.factories import JobTypeFactory


@pytest.fixture
def german_comment(submitted, staff_user):
    JobTypeFactory(proposal=submitted, title="", position=0)
    services.preferences_set(user=staff_user, number_format="de_DE", language="de")
    with translation.override("de"):  # the staff member's page
        return services.comment_add(
            proposal=submitted,
            author=staff_user,
            section="scalability",
            field="scalability.jobs[0].gpus",
            body="Warum 8 GPUs?",
        )


def _mail_body(comment):
    with translation.override("de"):  # whatever the request's language
        (message,) = notifications.comment_to_applicant(comment=comment)
    return message.body


def test_an_english_applicant_reads_job_type_1(german_comment):
    body = _mail_body(german_comment)
    assert "Job type 1" in body
    assert "Jobtyp" not in body
    assert "Jobtyp" not in ReviewComment.objects.get().row_name


def test_a_german_applicant_reads_jobtyp_1(german_comment, user):
    if translation.trans_real.translation("de")._catalog.get("Job type") != "Jobtyp":
        pytest.fail("locale/de is not compiled")
    services.preferences_set(user=user, number_format="de_DE", language="de")
    assert "Jobtyp 1" in _mail_body(german_comment)


def test_a_named_row_keeps_its_name_after_it_is_deleted(german_comment, submitted):
    submitted.jobs.update(title="pretrain")
    with translation.override("de"):
        comment = services.comment_add(
            proposal=submitted,
            author=german_comment.author,
            section="scalability",
            field="scalability.jobs[0].hours",
            body="Und die Stunden?",
        )
    assert comment.row_name == "pretrain"
    submitted.jobs.all().delete()
    from proposals.selectors.review import _resolve_row_anchors

    _resolve_row_anchors(submitted, [comment])
    assert comment.anchor_label.startswith("Job type 1 (pretrain) (row deleted)")
