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


def test_a_shared_view_is_on_every_queue_and_read_only_for_colleagues(
    client, staff_user, second_staff, catalogue
):
    client.force_login(staff_user)
    client.post(SAVE, {"name": "Late ones", "query": "late=on", "shared": "on"})
    client.post(SAVE, {"name": "Mine only", "query": "handler=mine"}, follow=True)
    shared = SavedQueueView.objects.get(name="Late ones")
    assert shared.shared
    assert not SavedQueueView.objects.get(name="Mine only").shared
    # The colleague sees the shared one (whose it is), not the private one,
    # and may neither change nor delete it.
    client.force_login(second_staff)
    page = client.get(QUEUE).text
    assert ">Late ones</a>" in page and "Mine only" not in page
    assert f"shared by {staff_user.get_username()}" in page
    share = reverse("proposals:review_view_share", args=[shared.pk])
    delete = reverse("proposals:review_view_delete", args=[shared.pk])
    assert share not in page and delete not in page
    client.post(share, {})
    client.post(delete)
    shared.refresh_from_db()
    assert shared.shared
    # The owner stops sharing it: it is theirs only again; then deletes it.
    client.force_login(staff_user)
    page = client.get(QUEUE).text
    assert share in page and delete in page
    client.post(share, {}, follow=True)
    shared.refresh_from_db()
    assert not shared.shared
    client.force_login(second_staff)
    assert "Late ones" not in client.get(QUEUE).text
    client.force_login(staff_user)
    client.post(share, {"shared": "on"})
    client.post(delete)
    assert not SavedQueueView.objects.filter(name="Late ones").exists()


def test_a_view_shared_by_someone_who_left_the_staff_is_not_shown(
    client, staff_user, second_staff, catalogue
):
    client.force_login(staff_user)
    client.post(
        SAVE, {"name": "Late ones", "query": "late=on", "shared": "on"}, follow=True
    )
    staff_user.groups.clear()
    client.force_login(second_staff)
    assert "Late ones" not in client.get(QUEUE).text
