"""Selectors answer ``None`` for what a user may not see or what does not exist;
the views turn that into a 404 (issue 21: two selectors raised ``Http404``
themselves, so they could not be used outside a request)."""

from django.urls import reverse

from proposals import selectors
from tests.factories import ProposalFactory


def test_the_staff_selector_answers_none_and_the_page_404(
    client, sent, user, staff_user
):
    assert selectors.review_get_for_staff(user=staff_user, pk=sent.pk) == sent
    assert selectors.review_get_for_staff(user=user, pk=sent.pk) is None
    draft = ProposalFactory(owner=user)  # never sent for review
    assert selectors.review_get_for_staff(user=staff_user, pk=draft.pk) is None
    client.force_login(staff_user)
    url = reverse("proposals:staff_review", args=[draft.pk])
    assert client.get(url).status_code == 404
    assert (
        client.get(reverse("proposals:staff_review", args=[sent.pk])).status_code == 200
    )


def test_the_revision_selector_answers_none_and_the_export_404(user_client, sent):
    assert selectors.review_revision(proposal=sent, number=1).number == 1
    assert selectors.review_revision(proposal=sent, number=2) is None
    url = reverse("proposals:export_markdown", args=[sent.pk])
    assert user_client.get(url, {"revision": "1"}).status_code == 200
    assert user_client.get(url, {"revision": "2"}).status_code == 404
