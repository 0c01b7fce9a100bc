"""The help desk's small holes (issue 34): sending again with no change, an
archived proposal in the queue, the comment anchor's field list."""

import datetime

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from proposals import selectors, services
from proposals.domain.fields import describe_path
from proposals.models import Proposal, ProposalRevision, ReviewState
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
)

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


# An archived proposal under review in the queue -------------------------------------


def test_an_archived_proposal_is_marked_and_not_late(client, user, staff_user):
    proposal = ProposalFactory(owner=user, title="Filed away")
    CodeEntryFactory(proposal=proposal, position=0)
    services.review_submit(proposal=proposal, user=user)
    long_ago = timezone.now() - datetime.timedelta(days=90)
    ReviewState.objects.filter(proposal=proposal).update(submitted_at=long_ago)
    client.force_login(staff_user)
    queue = reverse("proposals:review_queue")
    assert 'data-testid="overdue"' in client.get(queue).text
    assert "Filed away" in client.get(queue, {"late": "on"}).text

    services.proposal_set_archived(proposal=proposal, archived=True)
    page = client.get(queue).text
    assert 'data-testid="queue-archived"' in page
    assert 'data-testid="overdue"' not in page
    assert 'data-overdue="true"' not in page
    assert "Filed away" not in client.get(queue, {"late": "on"}).text
    # Sorted by time left, it has none: not among the late ones at the top.
    state = selectors.review_queue(order="time_left").get()
    assert state.time_left is None


# The wizard's review box follows the autosave -------------------------------------


def test_the_review_box_follows_the_autosave_that_withdrew_ready(
    client, user, staff_user, submitted
):
    from tests.web.test_live import HX, page_data

    services.review_set_status(
        proposal=submitted, user=staff_user, to_status="ready", note="Known limits."
    )
    client.force_login(user)
    url = reverse("proposals:step", args=[submitted.pk, "selection"])
    page = client.get(url).text
    box = page[page.index('id="review-panel"') :]
    assert "Status: <strong>Ready to submit</strong>" in box[: box.index("</section>")]
    answer = client.post(
        url, page_data(submitted, "selection", libraries="PyTorch 2.6"), headers=HX
    ).text
    # The box comes out of band with the new status, and offers to send again.
    box = answer[answer.index('id="review-panel"') :]
    box = box[: box.index("</section>")]
    assert 'hx-swap-oob="true"' in box
    assert "Status: <strong>Changed since ready</strong>" in box
    assert reverse("proposals:review_send", args=[submitted.pk]) in box
    # The page's region keys include the box, so the next autosave with no
    # status change does not send it again.
    assert "review-panel:" in answer


# The comment anchor ("About") ------------------------------------------------------


def test_the_about_select_groups_fields_by_row_with_page_labels(
    client, user, staff_user
):
    import re

    proposal = ProposalFactory(owner=user, title="Anchored")
    CodeEntryFactory(proposal=proposal, position=0)
    JobTypeFactory(proposal=proposal, position=0, source="sacct.txt, lines 2-9")
    ScalingMeasurementFactory(proposal=proposal, position=0, source="train.log")
    services.review_submit(proposal=proposal, user=user)
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[proposal.pk])).text
    select = re.search(
        r'<select[^>]*id="field-scalability".*?</select>', page, re.S
    ).group(0)
    groups = re.findall(r'<optgroup label="([^"]*)"', select)
    assert groups[0] == "Scalability and performance"
    assert any(g.startswith("Measurement 1") for g in groups)
    assert any(g.startswith("Job type 1") for g in groups)
    options = re.findall(r"<option[^>]*>([^<]*)</option>", select)[1:]
    assert options and all(o[:1].isupper() for o in options), options
    assert "Read from" in options
    # In a group, the option names the field only, as the page's label ends.
    assert not any("›" in o for o in options)
    # The diff and the comments' anchors read the same label (one place).
    assert describe_path("scalability.measurements[0].source") == (
        "Measurement 1 › Read from"
    )
