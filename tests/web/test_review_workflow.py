"""Sending for review, status transitions, immutable snapshots, e-mails (the comments
are in ``test_review_comments``)."""

import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.urls import reverse

from proposals import services
from proposals.domain import workflow
from proposals.models import (
    ImmutableRecordError,
    Proposal,
    ProposalRevision,
    StatusChange,
)

pytestmark = pytest.mark.django_db
S = Proposal.Status
READY_ANYWAY = "The open findings are known limits, fine for this call."


def recorded(proposal):
    return (
        StatusChange.objects.filter(proposal=proposal).count(),
        ProposalRevision.objects.filter(proposal=proposal).count(),
    )


# The workflow table ---------------------------------------------------------------


def test_workflow_allows_only_the_documented_moves():
    moves = {(a, b) for a in workflow.STATUSES for b in workflow.STATUSES if a != b}
    allowed = set(workflow.TRANSITIONS)
    assert allowed == {
        (S.DRAFT, S.SUBMITTED),
        (S.CHANGES_REQUESTED, S.SUBMITTED),
        (S.SUBMITTED, S.CHANGES_REQUESTED),
        (S.SUBMITTED, S.READY),
        (S.READY, S.CHANGES_REQUESTED),
        (S.SUBMITTED, S.CHANGED_IN_REVIEW),
        (S.READY, S.CHANGED_SINCE_READY),
        (S.CHANGED_IN_REVIEW, S.SUBMITTED),
        (S.CHANGED_SINCE_READY, S.SUBMITTED),
        (S.CHANGED_IN_REVIEW, S.CHANGES_REQUESTED),
        (S.CHANGED_SINCE_READY, S.CHANGES_REQUESTED),
        # The endings: submitted to the portal once ready; withdrawn (by the
        # applicant) or closed (by staff) from any status under review.
        (S.READY, S.SUBMITTED_TO_PORTAL),
        *((s, S.WITHDRAWN) for s in workflow.UNDER_REVIEW),
        *((s, S.CLOSED) for s in workflow.UNDER_REVIEW),
    }
    for ending in workflow.TERMINAL:
        assert not workflow.allowed_targets(ending, workflow.STAFF)
        assert not workflow.allowed_targets(ending, workflow.APPLICANT)
    for move in moves - allowed:
        for role in (workflow.APPLICANT, workflow.STAFF):
            with pytest.raises(workflow.IllegalTransition):
                workflow.check_transition(*move, role)


def test_workflow_roles_are_not_interchangeable():
    with pytest.raises(workflow.IllegalTransition):
        workflow.check_transition(S.DRAFT, S.SUBMITTED, workflow.STAFF)
    with pytest.raises(workflow.IllegalTransition):
        workflow.check_transition(S.SUBMITTED, S.READY, workflow.APPLICANT)


# Sending for review ---------------------------------------------------------------


def test_send_for_review_stores_snapshot_and_summary(
    client,
    user,
    staff_user,
    applicant_proposal,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    client.force_login(user)
    url = reverse("proposals:review_send", args=[applicant_proposal.pk])
    confirm = client.get(url)
    # Error findings are listed on the confirmation page (ELIG/CODE rules etc.).
    assert "error finding" in confirm.text
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"note": "First look please"})
    assert response.status_code == 302
    applicant_proposal.refresh_from_db()
    assert applicant_proposal.status == S.SUBMITTED
    revision = ProposalRevision.objects.get(proposal=applicant_proposal)
    assert revision.number == 1
    assert revision.snapshot["format"] == "aifactory-proposal/1"
    assert revision.snapshot["title"] == "Vision model fine-tuning"
    assert revision.snapshot["selection"]["total_gpu_hours"] == 4000
    assert revision.tier == "playground"
    assert revision.error_count == sum(
        f["severity"] == "error" for f in revision.findings
    )
    change = StatusChange.objects.get(proposal=applicant_proposal)
    assert (change.from_status, change.to_status, change.by) == (
        S.DRAFT,
        S.SUBMITTED,
        user,
    )
    assert change.note == "First look please"
    # The staff are told.
    run_tasks()  # the worker sends the queued mails
    assert [m.to for m in mail.outbox] == [[staff_user.email]]
    assert "Vision model fine-tuning" in mail.outbox[0].subject
    assert f"/staff/review/{applicant_proposal.pk}/" in mail.outbox[0].body


def test_every_staff_member_gets_the_submission_mail(
    user,
    staff_user,
    second_staff,
    applicant_proposal,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=applicant_proposal, user=user)
    run_tasks()  # the worker sends the queued mails
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [staff_user.email, second_staff.email]
    )
    assert user.email not in [m.to[0] for m in mail.outbox]


def test_submitting_twice_is_refused_and_records_nothing(user, submitted):
    before = recorded(submitted)
    with pytest.raises(services.ReviewError):
        services.review_submit(proposal=submitted, user=user)
    assert recorded(submitted) == before


def test_only_the_owner_can_submit(other_user, staff_user, applicant_proposal):
    for who in (other_user, staff_user):
        with pytest.raises(services.ReviewError):
            services.review_submit(proposal=applicant_proposal, user=who)
    assert recorded(applicant_proposal) == (0, 0)
    applicant_proposal.refresh_from_db()
    assert applicant_proposal.status == S.DRAFT


def test_full_round_trip_with_resubmission(
    user,
    staff_user,
    submitted,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    with django_capture_on_commit_callbacks(execute=True):
        services.review_set_status(
            proposal=submitted,
            user=staff_user,
            to_status=S.CHANGES_REQUESTED,
            note="Add a job plan.",
        )
    run_tasks()  # the worker sends the queued mails
    assert [m.to for m in mail.outbox] == [[user.email]]
    assert "Add a job plan." in mail.outbox[0].body
    submitted.total_gpu_hours = 6000
    submitted.save()
    revision = services.review_submit(proposal=submitted, user=user)
    assert revision.number == 2
    assert revision.tier == "fast_lane"
    services.review_set_status(
        proposal=submitted, user=staff_user, to_status=S.READY, note=READY_ANYWAY
    )
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status=S.CHANGES_REQUESTED,
        note="Please split the jobs.",
    )
    trail = list(
        StatusChange.objects.filter(proposal=submitted).values_list(
            "from_status", "to_status"
        )
    )
    assert trail == [
        (S.DRAFT, S.SUBMITTED),
        (S.SUBMITTED, S.CHANGES_REQUESTED),
        (S.CHANGES_REQUESTED, S.SUBMITTED),
        (S.SUBMITTED, S.READY),
        (S.READY, S.CHANGES_REQUESTED),
    ]
    submitted.refresh_from_db()
    assert submitted.status == S.CHANGES_REQUESTED


@pytest.mark.parametrize(
    "status,target",
    [
        (S.DRAFT, S.READY),
        (S.DRAFT, S.CHANGES_REQUESTED),
        (S.CHANGES_REQUESTED, S.READY),
        (S.READY, S.SUBMITTED),
        (S.READY, S.DRAFT),
        (S.SUBMITTED, S.DRAFT),
        (S.SUBMITTED, S.SUBMITTED),
    ],
)
def test_illegal_staff_transitions_are_refused(
    client,
    staff_user,
    submitted,
    status,
    target,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    Proposal.objects.filter(pk=submitted.pk).update(status=status)
    before = recorded(submitted)
    client.force_login(staff_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("proposals:staff_set_status", args=[submitted.pk]),
            {"to_status": target},
        )
    assert response.status_code == 302
    assert recorded(submitted) == before
    assert Proposal.objects.get(pk=submitted.pk).status == status
    run_tasks()  # the worker sends the queued mails
    assert mail.outbox == []
    with pytest.raises(services.ReviewError):
        services.review_set_status(
            proposal=submitted, user=staff_user, to_status=target
        )
    assert recorded(submitted) == before


def test_applicant_cannot_set_status_through_the_service(user, submitted):
    before = recorded(submitted)
    with pytest.raises(services.ReviewError):
        services.review_set_status(proposal=submitted, user=user, to_status=S.READY)
    assert recorded(submitted) == before


def test_status_page_shows_note_to_applicant(client, user, staff_user, submitted):
    client.force_login(staff_user)
    client.post(
        reverse("proposals:staff_set_status", args=[submitted.pk]),
        {"to_status": S.CHANGES_REQUESTED, "note": "Split the 96-hour jobs."},
    )
    client.force_login(user)
    page = client.get(reverse("proposals:review_status", args=[submitted.pk])).text
    assert "Changes requested" in page
    assert "Split the 96-hour jobs." in page
    assert "Send again" in page


# Immutability ---------------------------------------------------------------------


def test_revision_cannot_be_saved_again_or_deleted(submitted):
    revision = ProposalRevision.objects.get(proposal=submitted)
    revision.tier = "large_scale"
    with pytest.raises(ImmutableRecordError):
        revision.save()
    with pytest.raises(ImmutableRecordError):
        revision.delete()
    change = StatusChange.objects.get(proposal=submitted)
    with pytest.raises(ImmutableRecordError):
        change.save()
    with pytest.raises(ImmutableRecordError):
        change.delete()
    assert ProposalRevision.objects.get(proposal=submitted).tier == "playground"


def test_database_refuses_updates_that_bypass_the_model(submitted):
    with pytest.raises(IntegrityError), transaction.atomic():
        ProposalRevision.objects.filter(proposal=submitted).update(
            snapshot={"format": "forged"}
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        StatusChange.objects.filter(proposal=submitted).update(note="rewritten")
    assert ProposalRevision.objects.get(proposal=submitted).snapshot["title"] == (
        "Vision model fine-tuning"
    )


def test_snapshot_does_not_follow_later_edits(submitted):
    submitted.title = "Renamed"
    submitted.save()
    revision = ProposalRevision.objects.get(proposal=submitted)
    assert revision.snapshot["title"] == "Vision model fine-tuning"


def test_deleting_a_proposal_or_a_user_still_works(submitted, staff_user):
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status=S.CHANGES_REQUESTED,
        note="Please split the jobs.",
    )
    staff_user.delete()
    assert StatusChange.objects.filter(by__isnull=True).count() == 1
    submitted.delete()
    assert not ProposalRevision.objects.exists()
    assert not StatusChange.objects.exists()


def test_wizard_snippets_offer_the_right_action(user, submitted, applicant_proposal):
    import dataclasses

    from proposals.domain.team import Role
    from proposals.templatetags.fragments import macro
    from proposals.wizard.regions import review_panel_region

    def panel(status, can_send=True):
        Proposal.objects.filter(pk=submitted.pk).update(status=status)
        submitted.refresh_from_db()
        submitted.member_role = Role.OWNER  # as the wizard's selector reads it
        # The box is a region: its inputs say whether the reader may send now.
        region = review_panel_region(submitted, submitted.status_label)
        inputs = region.inputs
        if not can_send:  # a viewer
            inputs = dataclasses.replace(inputs, can_send=False)
        return macro(region.template)(**dataclasses.asdict(inputs), oob=False)

    assert "Send for review" in panel(S.DRAFT)
    assert "Send" not in panel(S.DRAFT, can_send=False)  # a viewer
    assert "Send" not in panel(S.CHANGES_REQUESTED, can_send=False)
    assert "Send again" in panel(S.CHANGES_REQUESTED)
    waiting = panel(S.SUBMITTED)
    assert "Send" not in waiting and "Comments and history" in waiting
    loader = macro("proposals/wizard/controls.html#review_step_loader")(
        submitted, {"slug": "codes"}
    )
    assert f"/proposals/{submitted.pk}/submission/comments/codes/" in loader
