"""An edit after "sent for review" or "ready to submit" is recorded and changes the
status (in the queue too); the applicant can send the proposal again and the staff
are told."""

import pytest
from django.core import mail
from django.urls import reverse

from proposals import services
from proposals.models import Proposal, StatusChange

pytestmark = pytest.mark.django_db
S = Proposal.Status
READY_ANYWAY = "The open findings are known limits, fine for this call."


def edit(proposal):
    """One edit of the applicant's content, as the wizard makes it."""
    proposal.refresh_from_db()
    services.proposal_add_row(proposal=proposal, kind="jobs")
    proposal.refresh_from_db()


def mark_ready(proposal, staff_user):
    services.review_set_status(
        proposal=proposal, user=staff_user, to_status=S.READY, note=READY_ANYWAY
    )
    proposal.refresh_from_db()


def test_edit_after_ready_is_recorded_and_changes_the_status(
    submitted, staff_user, user, django_capture_on_commit_callbacks, run_tasks
):
    mark_ready(submitted, staff_user)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        edit(submitted)
    run_tasks()
    assert submitted.status == S.CHANGED_SINCE_READY
    change = StatusChange.objects.filter(proposal=submitted).last()
    assert (change.from_status, change.to_status) == (S.READY, S.CHANGED_SINCE_READY)
    assert change.by == user
    assert [m.to for m in mail.outbox] == [[staff_user.email]]
    assert "changed since ready" in mail.outbox[0].subject
    # A second edit changes nothing more.
    edit(submitted)
    assert StatusChange.objects.filter(proposal=submitted).count() == 3
    # The applicant can send it again.
    revision = services.review_submit(proposal=submitted, user=user)
    submitted.refresh_from_db()
    assert revision.number == 2 and submitted.status == S.SUBMITTED


def test_edit_during_review_changes_the_status(submitted):
    edit(submitted)
    assert submitted.status == S.CHANGED_IN_REVIEW


@pytest.mark.parametrize("status", [S.DRAFT, S.CHANGES_REQUESTED])
def test_edit_of_a_draft_or_after_a_change_request_keeps_the_status(submitted, status):
    Proposal.objects.filter(pk=submitted.pk).update(status=status)
    before = StatusChange.objects.filter(proposal=submitted).count()
    edit(submitted)
    assert submitted.status == status
    assert StatusChange.objects.filter(proposal=submitted).count() == before


def test_the_queue_says_changed_since_ready(client, submitted, staff_user, user):
    mark_ready(submitted, staff_user)
    edit(submitted)
    client.force_login(staff_user)
    queue = reverse("proposals:review_queue")
    page = client.get(queue).text
    assert "Changed since ready" in page
    assert "Ready to submit</span>" not in page
    filtered = client.get(queue, {"status": S.CHANGED_SINCE_READY}).text
    assert submitted.title in filtered
    assert submitted.title not in client.get(queue, {"status": S.READY}).text
    # The applicant sees a "Send again" button.
    client.force_login(user)
    status_page = client.get(reverse("proposals:review_status", args=[submitted.pk]))
    assert "Send again" in status_page.text


def test_a_wizard_save_after_ready_changes_the_status(
    client, submitted, staff_user, user
):
    mark_ready(submitted, staff_user)
    client.force_login(user)
    url = reverse("proposals:step", args=[submitted.pk, "organisation"])
    page = client.get(url)
    assert page.status_code == 200
    data = {"revision": submitted.revision, "title": "A new title"}
    client.post(url, data)
    submitted.refresh_from_db()
    assert submitted.title == "A new title"
    assert submitted.status == S.CHANGED_SINCE_READY


@pytest.mark.parametrize("status", [S.SUBMITTED, S.DRAFT])
def test_an_autosave_records_the_edit_too(client, submitted, status):
    """The wizard's autosave reads the proposal locked and updates it knowing its
    status: an edit during review is recorded there as well, a draft's is not."""
    from tests.web.test_live import page_data

    Proposal.objects.filter(pk=submitted.pk).update(status=status)
    before = StatusChange.objects.filter(proposal=submitted).count()
    client.force_login(submitted.owner)
    url = reverse("proposals:step", args=[submitted.pk, "scalability"])
    data = page_data(submitted, "scalability", scalability_narrative="Edited again.")
    response = client.post(url, data, headers={"HX-Request": "true"})
    assert 'data-state="saved"' in response.text
    submitted.refresh_from_db()
    assert submitted.scalability_narrative == "Edited again."
    if status == S.SUBMITTED:
        assert submitted.status == S.CHANGED_IN_REVIEW
        assert StatusChange.objects.filter(proposal=submitted).count() == before + 1
    else:
        assert submitted.status == S.DRAFT
        assert StatusChange.objects.filter(proposal=submitted).count() == before
