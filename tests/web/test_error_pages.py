"""Our own error pages, and a 503 with Retry-After while the database is unreachable."""

from unittest import mock

import pytest
from django.core import mail
from django.db import InterfaceError, OperationalError
from django.test import Client
from django.urls import reverse
from django.views import defaults

from aifactory.errors import RETRY_AFTER_SECONDS, server_error

pytestmark = pytest.mark.django_db

LIST = reverse("proposals:list")
OUTAGE = "proposals.selectors.proposal_list_for_member"


@pytest.fixture
def quiet_client(user, settings):
    """A logged-in client that receives error pages instead of exceptions, as a
    browser would with debug off."""
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def test_an_outage_is_logged_per_request_but_not_mailed_per_request(
    quiet_client, settings, caplog
):
    settings.ADMINS = [("Ops", "ops@example.eu")]
    with mock.patch(OUTAGE, side_effect=OperationalError("refused")):
        for _ in range(3):
            assert quiet_client.get(LIST).status_code == 503
    assert [m.subject for m in mail.outbox] == []
    logged = [r for r in caplog.records if r.name == "aifactory.errors"]
    assert len(logged) == 3 and all(r.exc_info for r in logged)


@pytest.mark.parametrize(
    "error",
    [
        OperationalError("could not connect to server: Connection refused"),
        InterfaceError("connection already closed"),
    ],
)
@pytest.mark.parametrize("debug", [False, True])
def test_database_outage_in_a_view_is_a_503_with_retry_after(
    error, debug, user_client, settings
):
    settings.DEBUG = debug
    with mock.patch(OUTAGE, side_effect=error):
        response = user_client.get(LIST)
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert "The wizard is temporarily unavailable" in response.text
    assert f"Wait {RETRY_AFTER_SECONDS} seconds and reload the page" in response.text


def test_database_outage_outside_a_view_is_a_503(rf):
    """``handler500`` is reached for errors raised in middleware (session saving)."""
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = server_error(rf.get(LIST))
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)


def test_other_database_errors_stay_500(quiet_client):
    from django.db import IntegrityError

    with mock.patch(OUTAGE, side_effect=IntegrityError("duplicate key")):
        response = quiet_client.get(LIST)
    assert response.status_code == 500
    assert "Retry-After" not in response.headers


def test_500_page_is_ours_with_debug_off(quiet_client):
    with mock.patch(OUTAGE, side_effect=RuntimeError("boom")):
        response = quiet_client.get(LIST)
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.text
    assert "tell the support staff the time" in response.text
    assert "boom" not in response.text
    assert "bootstrap.min.css" in response.text


def test_500_and_503_pages_render_without_the_database(rf, django_assert_num_queries):
    with django_assert_num_queries(0):
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            page = server_error(rf.get("/"))
        assert "Something went wrong on our side" in page.content.decode()
        try:
            raise OperationalError("down")
        except OperationalError:
            page = server_error(rf.get("/"))
        assert "temporarily unavailable" in page.content.decode()


def test_404_page_is_ours(quiet_client):
    response = quiet_client.get("/proposals/999999/")
    assert response.status_code == 404
    assert "There is no such page" in response.text


def test_400_page_is_ours(quiet_client, proposal):
    url = reverse("proposals:step", args=[proposal.pk, "organisation"])
    response = quiet_client.post(url, {"bases": "²"})
    assert response.status_code == 400
    assert "The request could not be understood" in response.text


def test_403_page_is_ours(rf):
    from django.core.exceptions import PermissionDenied

    response = defaults.permission_denied(rf.get("/"), PermissionDenied())
    assert response.status_code == 403
    assert "You are not allowed to open this page" in response.content.decode()


def test_expired_form_page_is_ours(user, settings):
    settings.DEBUG = False
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("login"), {"username": "x", "password": "y"})
    assert response.status_code == 403
    assert "This form has expired" in response.text
