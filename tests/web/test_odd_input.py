"""Odd integers in request parameters get a 400 or 404, never a 500.

``str.isdigit()`` accepts "²" and Arabic-Indic digits, and ``int()`` refuses strings of
more than 4,300 digits: each of those used to end in a server error.
"""

import pytest
from django.core.exceptions import BadRequest
from django.urls import reverse

from proposals.http import MAX_DIGITS, parse_int
from tests.web.test_import_json import example, upload
from tests.web.test_review_diff import two_revisions  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

ODD = ["²", "١٢", "٣", "1" * 5000, "9" * (MAX_DIGITS + 1), "-1", "+1", " 1", "1.0"]


@pytest.mark.parametrize("value", ["0", "7", "0042", "9" * MAX_DIGITS])
def test_parse_int_accepts_ascii_decimal(value):
    assert parse_int(value, name="n") == int(value)


@pytest.mark.parametrize("value", ODD)
def test_parse_int_refuses_everything_else(value):
    with pytest.raises(BadRequest, match="n must be a whole number"):
        parse_int(value, name="n")


def test_parse_int_blank_is_the_default():
    assert parse_int("", name="n", default=3) == 3
    assert parse_int(None, name="n") is None


@pytest.mark.parametrize("value", ODD)
def test_import_confirmation_with_odd_revision_is_400(value, proposal, user_client):
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    checked = user_client.post(url, {"file": upload(example("lumi-fast-lane"))})
    token = checked.context["token"]
    response = user_client.post(
        url, {"token": token, "revision": value, "confirm": "yes"}
    )
    assert response.status_code == 400
    proposal.refresh_from_db()
    assert proposal.revision == 1


@pytest.mark.parametrize("name", ["a", "b"])
@pytest.mark.parametrize("value", ODD)
def test_staff_diff_with_odd_revision_is_400(
    name,
    value,
    client,
    staff_user,
    two_revisions,  # noqa: F811
):
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    assert client.get(url, {name: value}).status_code == 400


def test_staff_diff_with_long_unknown_revision_is_404(
    client,
    staff_user,
    two_revisions,  # noqa: F811
):
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    assert client.get(url, {"a": "9" * MAX_DIGITS}).status_code == 404


@pytest.mark.parametrize(
    "value", ["{", "[]", '{"title": 1}', '{"title": null}', "²", '"x"']
)
def test_wizard_post_with_odd_bases_is_400(value, user_client, proposal):
    url = reverse("proposals:step", args=[proposal.pk, "organisation"])
    response = user_client.post(url, {"bases": value, "save": "1"})
    assert response.status_code == 400


@pytest.mark.parametrize(
    "path",
    [
        "/proposals/{}/organisation/",
        "/proposals/{}/",
        "/proposals/{}/export.md",
        "/proposals/{}/import/",
    ],
)
@pytest.mark.parametrize("pk", ["1" * 5000, "9" * 19, "9" * 25])
def test_huge_ids_in_the_path_are_404(path, pk, user_client):
    assert user_client.get(path.format(pk)).status_code == 404


@pytest.mark.parametrize("value", ODD)
def test_queue_page_number_never_fails(value, client, staff_user):
    client.force_login(staff_user)
    response = client.get(reverse("proposals:review_queue"), {"page": value})
    assert response.status_code == 200
