"""Every URL of the review area against every kind of visitor.

Applicant URLs: the owner only (others 404, anonymous to the login page). Staff URLs:
support staff only (every other signed-in user 404, anonymous to the login page).
"""

import pytest
from django.urls import reverse

from proposals.urls import urlpatterns
from proposals.views import review, staff, staff_desk, staff_diff, staff_settings

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

# (URL name, method, needs the proposal's pk, extra path kwargs, POST data, htmx);
# None: no path arguments, a tuple: positional ones other than the pk.
APPLICANT_URLS = [
    ("review_status", "get", {}, {}, False),
    ("review_send", "get", {}, {}, False),
    ("review_send", "post", {}, {"note": "please look"}, False),
    ("review_comment", "post", {}, {"section": "selection", "body": "Hi"}, False),
    ("review_comment", "post", {}, {"section": "selection", "body": "Hi"}, True),
    ("review_step_comments", "get", {"section": "selection"}, {}, True),
]
STAFF_URLS = [
    ("review_queue", "get", None, {}, False),
    ("review_queue", "get", None, {}, True),
    ("staff_review", "get", {}, {}, False),
    ("staff_comment", "post", {}, {"section": "codes", "body": "Hello"}, False),
    ("staff_comment", "post", {}, {"section": "codes", "body": "Hello"}, True),
    ("staff_set_status", "post", {}, {"to_status": "ready"}, False),
    ("staff_diff", "get", {}, {}, False),
    ("review_queue_csv", "get", None, {}, False),
    ("staff_assign", "post", {}, {"action": "take"}, False),
    ("staff_assign", "post", {}, {"action": "release"}, False),
    ("staff_assess", "post", {}, {"outcome": "feasible", "action": "record"}, False),
    ("staff_conflicts", "get", None, {}, False),
    ("staff_conflicts", "post", None, {"organisation": "Example AI"}, False),
    ("staff_settings", "get", None, {}, False),
    ("staff_reply_insert", "post", {}, {"section": "general", "reply": ""}, False),
    ("review_queue_bulk", "post", None, {"action": "take", "pick": [1]}, False),
    ("review_view_save", "post", None, {"name": "Mine", "query": "late=on"}, False),
    ("review_view_delete", "post", (1,), {}, False),
    ("review_view_share", "post", (1,), {"shared": "on"}, False),
    ("staff_reply_insert", "post", {}, {"section": "codes", "reply": ""}, True),
]
# Open to every signed-in user; tested on its own below.
SHARED_URLS = {"landing"}


def test_every_review_url_is_covered():
    names = {
        pattern.name
        for pattern in urlpatterns
        if pattern.callback.__module__
        in (
            review.__name__,
            staff.__name__,
            staff_desk.__name__,
            staff_diff.__name__,
            staff_settings.__name__,
        )
    }
    covered = {row[0] for row in APPLICANT_URLS + STAFF_URLS} | SHARED_URLS
    assert names == covered


def _request(client, proposal, name, method, kwargs, data, htmx):
    if kwargs is None:
        url = reverse(f"proposals:{name}")
    elif isinstance(kwargs, tuple):  # positional, not the proposal's pk
        url = reverse(f"proposals:{name}", args=kwargs)
    else:
        url = reverse(f"proposals:{name}", kwargs={"pk": proposal.pk, **kwargs})
    extra = HTMX if htmx else {}
    return getattr(client, method)(url, data, **extra), url


@pytest.mark.parametrize("name,method,kwargs,data,htmx", APPLICANT_URLS + STAFF_URLS)
def test_anonymous_goes_to_login(client, submitted, name, method, kwargs, data, htmx):
    response, url = _request(client, submitted, name, method, kwargs, data, htmx)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name,method,kwargs,data,htmx", APPLICANT_URLS)
def test_applicant_urls_404_for_other_applicant(
    client, other_user, submitted, name, method, kwargs, data, htmx
):
    client.force_login(other_user)
    response, _ = _request(client, submitted, name, method, kwargs, data, htmx)
    assert response.status_code == 404


@pytest.mark.parametrize("name,method,kwargs,data,htmx", APPLICANT_URLS)
def test_applicant_urls_404_for_staff(
    client, staff_user, submitted, name, method, kwargs, data, htmx
):
    """Staff read proposals through the staff pages, never the applicant's."""
    client.force_login(staff_user)
    response, _ = _request(client, submitted, name, method, kwargs, data, htmx)
    assert response.status_code == 404


@pytest.mark.parametrize("name,method,kwargs,data,htmx", APPLICANT_URLS)
def test_applicant_urls_open_to_owner(
    client, user, submitted, name, method, kwargs, data, htmx
):
    client.force_login(user)
    response, _ = _request(client, submitted, name, method, kwargs, data, htmx)
    assert response.status_code in (200, 302)


@pytest.mark.parametrize("name,method,kwargs,data,htmx", STAFF_URLS)
@pytest.mark.parametrize("who", ["owner", "other"])
def test_staff_urls_404_for_applicants(
    client, user, other_user, submitted, who, name, method, kwargs, data, htmx
):
    client.force_login(user if who == "owner" else other_user)
    response, _ = _request(client, submitted, name, method, kwargs, data, htmx)
    assert response.status_code == 404


@pytest.mark.parametrize("name,method,kwargs,data,htmx", STAFF_URLS)
def test_staff_urls_open_to_staff(
    client, staff_user, submitted, name, method, kwargs, data, htmx
):
    client.force_login(staff_user)
    response, _ = _request(client, submitted, name, method, kwargs, data, htmx)
    assert response.status_code in (200, 302)


def test_staff_pages_404_for_a_draft_never_sent(client, staff_user, applicant_proposal):
    client.force_login(staff_user)
    url = reverse("proposals:staff_review", args=[applicant_proposal.pk])
    assert client.get(url).status_code == 404


def test_nav_link_only_for_staff(client, user, staff_user, submitted):
    client.force_login(user)
    assert "Review queue" not in client.get(reverse("proposals:list")).text
    client.force_login(staff_user)
    assert "Review queue" in client.get(reverse("proposals:list")).text


def test_sign_in_lands_staff_on_the_queue(client, user, staff_user):
    landing = reverse("proposals:landing")
    assert client.get(landing).url.startswith(reverse("login"))
    client.force_login(staff_user)
    assert client.get(landing).url == reverse("proposals:review_queue")
    client.force_login(user)
    assert client.get(landing).url == reverse("proposals:list")


def test_login_form_leads_staff_to_the_queue(client, staff_user):
    staff_user.set_password("a-long-password-1")
    staff_user.save()
    response = client.post(
        reverse("login"),
        {"username": staff_user.username, "password": "a-long-password-1"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("proposals:review_queue")
