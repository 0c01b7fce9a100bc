"""The help desk's small holes (issue 34): sending again with no change, an
archived proposal in the queue, the comment anchor's field list."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from proposals import services
from proposals.models import Proposal, ProposalRevision

pytestmark = pytest.mark.django_db
S = Proposal.Status


def _changes_requested(submitted, staff_user):
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status=S.CHANGES_REQUESTED,
        note="Add a job plan.",
    )


# Sending again with no change ------------------------------------------------------


def test_sending_again_unchanged_is_refused_and_sends_nothing(
    user, staff_user, submitted
):
    _changes_requested(submitted, staff_user)
    with pytest.raises(services.UnchangedSince, match="nothing was sent"):
        services.review_submit(proposal=submitted, user=user)
    assert ProposalRevision.objects.filter(proposal=submitted).count() == 1
    submitted.refresh_from_db()
    assert submitted.status == S.CHANGES_REQUESTED
    # Confirmed on purpose, it goes.
    revision = services.review_submit(proposal=submitted, user=user, unchanged_ok=True)
    assert revision.number == 2


def test_sending_again_after_a_change_needs_no_confirmation(
    user, staff_user, submitted
):
    _changes_requested(submitted, staff_user)
    submitted.total_gpu_hours = 6000
    submitted.save()
    assert services.review_submit(proposal=submitted, user=user).number == 2


def test_send_page_warns_and_asks_to_confirm(client, user, staff_user, submitted):
    _changes_requested(submitted, staff_user)
    client.force_login(user)
    url = reverse("proposals:review_send", args=[submitted.pk])
    page = client.get(url).content.decode()
    assert 'data-testid="unchanged-warning"' in page
    assert 'name="unchanged"' in page
    response = client.post(url, {"note": ""})
    assert response.status_code == 302 and response.url == url
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("nothing was sent" in m for m in said)
    assert ProposalRevision.objects.filter(proposal=submitted).count() == 1
    response = client.post(url, {"note": "Answered in a comment.", "unchanged": "on"})
    assert ProposalRevision.objects.filter(proposal=submitted).count() == 2
    submitted.refresh_from_db()
    assert submitted.status == S.SUBMITTED
