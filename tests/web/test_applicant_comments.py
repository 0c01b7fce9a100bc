"""A returning applicant sees where the staff's comments are: the wizard opens on
the first step with a comment waiting for them, the step tabs carry a badge, and
the proposal list says what waits for them."""

import pytest
from django.urls import reverse

from proposals import selectors, services
from proposals.models import Proposal

pytestmark = pytest.mark.django_db


@pytest.fixture
def changes_requested(submitted, staff_user):
    services.comment_add(
        proposal=submitted, author=staff_user, section="scalability", body="Scaling?"
    )
    services.comment_add(
        proposal=submitted, author=staff_user, section="codes", body="Which version?"
    )
    services.comment_add(
        proposal=submitted,
        author=staff_user,
        section="organisation",
        body="Internal: looks fine",
        staff_only=True,
    )
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status="changes_requested",
        note="See the comments.",
    )
    submitted.refresh_from_db()
    return submitted


def test_opens_on_the_first_step_with_a_comment(client, user, changes_requested):
    client.force_login(user)
    response = client.get(reverse("proposals:detail", args=[changes_requested.pk]))
    assert response.url == reverse(
        "proposals:step", args=[changes_requested.pk, "codes"]
    )


def test_a_reply_closes_the_comment(client, user, changes_requested):
    question = changes_requested.review_comments.get(section="codes")
    services.comment_add(
        proposal=changes_requested,
        author=user,
        section="codes",
        body="2.5",
        parent=question,
    )
    assert selectors.review_open_comments_by_step(proposal=changes_requested) == {
        "scalability": 1
    }
    client.force_login(user)
    response = client.get(reverse("proposals:detail", args=[changes_requested.pk]))
    assert response.url.endswith("/scalability/")


def test_without_a_change_request_it_opens_on_step_one(client, user, submitted):
    client.force_login(user)
    response = client.get(reverse("proposals:detail", args=[submitted.pk]))
    assert response.url.endswith("/organisation/")


def test_step_tabs_carry_comment_badges(client, user, changes_requested):
    client.force_login(user)
    url = reverse("proposals:step", args=[changes_requested.pk, "organisation"])
    page = client.get(url).text
    assert 'data-testid="comment-badge-codes"' in page
    assert 'data-testid="comment-badge-scalability"' in page
    assert 'data-testid="comment-badge-organisation"' not in page  # internal note


def test_the_list_says_what_waits(client, user, changes_requested):
    client.force_login(user)
    page = client.get(reverse("proposals:list")).text
    assert "Waiting for you: answer the staff" in page
    Proposal.objects.filter(pk=changes_requested.pk).update(
        status="changed_since_ready"
    )
    assert "send it again" in client.get(reverse("proposals:list")).text
