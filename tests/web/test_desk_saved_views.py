"""Saved views of the queue (issue 34): a staff member saves the queue's filters
under a name, finds them as links above their queue (theirs only), and deletes
them."""

import pytest
from django.urls import reverse

from proposals.models import SavedQueueView
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db
QUEUE = reverse("proposals:review_queue")
SAVE = reverse("proposals:review_view_save")


def test_the_queue_page_saves_its_current_filters(client, staff_user, catalogue):
    queue_rows(2)
    client.force_login(staff_user)
    page = client.get(
        QUEUE, {"status": ["submitted", "ready"], "late": "on", "order": "time_left"}
    ).text
    assert 'data-testid="save-view"' in page
    assert (
        'value="status=submitted&amp;status=ready&amp;late=on&amp;order=time_left"'
        in (page)
    )


def test_save_keeps_the_filters_only_and_lists_the_view_for_its_owner(
    client, staff_user, second_staff, catalogue
):
    client.force_login(staff_user)
    query = "q=olga&tier=playground&system=lumi-g&order=recent&page=3&evil=1"
    response = client.post(SAVE, {"name": "  My   Olga ", "query": query})
    assert response.status_code == 302
    view = SavedQueueView.objects.get(user=staff_user)
    assert view.name == "My Olga"
    assert view.query == "q=olga&tier=playground&system=lumi-g&order=recent"
    page = client.get(QUEUE).text
    assert f'href="{QUEUE}?q=olga&amp;tier=playground' in page
    assert ">My Olga</a>" in page
    # Saving under the same name replaces it.
    client.post(SAVE, {"name": "My Olga", "query": "late=on"}, follow=True)
    assert SavedQueueView.objects.get(user=staff_user).query == "late=on"
    # A colleague neither sees nor deletes it.
    client.force_login(second_staff)
    assert "My Olga" not in client.get(QUEUE).text
    client.post(reverse("proposals:review_view_delete", args=[view.pk]))
    assert SavedQueueView.objects.filter(pk=view.pk).exists()
    client.force_login(staff_user)
    client.post(reverse("proposals:review_view_delete", args=[view.pk]))
    assert not SavedQueueView.objects.exists()


def test_a_view_needs_a_name(client, staff_user, catalogue):
    client.force_login(staff_user)
    page = client.post(SAVE, {"name": " ", "query": "late=on"}, follow=True).text
    assert "Give the view a name." in page
    assert not SavedQueueView.objects.exists()


def test_applicants_cannot_save_views(client, user):
    client.force_login(user)
    assert client.post(SAVE, {"name": "x", "query": ""}).status_code == 404
