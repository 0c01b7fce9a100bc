"""Canned replies (issue 34): the desk keeps reply templates per language; a staff
member picks one of theirs on the review page and it lands in the comment box,
the proposal's figures filled in, without storing anything."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from proposals.domain import canned
from proposals.models import CannedReply, Preferences, ReviewComment

pytestmark = pytest.mark.django_db

HELLO = "Dear {applicant}, thank you for “{title}” ({tier}, {gpu_hours} GPU-hours)."


@pytest.fixture
def replies():
    english = CannedReply.objects.create(title="Thanks", language="en-gb", body=HELLO)
    german = CannedReply.objects.create(
        title="Danke", language="de", body="Hallo {applicant}, danke für „{title}“."
    )
    return english, german


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def test_placeholders_fill_and_unknown_ones_are_refused():
    assert canned.fill("Hi {applicant} {missing}", {"applicant": "Olga"}) == (
        "Hi Olga {missing}"
    )
    reply = CannedReply(title="Typo", language="en-gb", body="Dear {aplicant}")
    with pytest.raises(ValidationError, match="aplicant"):
        reply.full_clean()


def test_the_review_page_offers_the_replies_in_the_readers_language(
    staff_client, staff_user, submitted, replies
):
    url = reverse("proposals:staff_review", args=[submitted.pk])
    page = staff_client.get(url).text
    assert 'data-testid="canned-replies-general"' in page
    assert ">Thanks</option>" in page and ">Danke</option>" not in page
    Preferences.objects.update_or_create(user=staff_user, defaults={"language": "de"})
    staff_client.logout()
    staff_client.force_login(staff_user)
    page = staff_client.get(url).text
    assert ">Danke</option>" in page and ">Thanks</option>" not in page


def test_insert_without_javascript_fills_the_box_and_stores_nothing(
    staff_client, user, submitted, replies
):
    user.first_name, user.last_name = "Olga", "Virtanen"
    user.save()
    english, _german = replies
    response = staff_client.post(
        reverse("proposals:staff_reply_insert", args=[submitted.pk]),
        {"section": "general", "reply": english.pk, "body": "First line."},
    )
    assert response.status_code == 200
    page = response.text
    tier = submitted.review_state.latest_revision.get_tier_display()
    assert "First line.\n\nDear Olga Virtanen, thank you for" in page
    assert f"“{submitted.title}” ({tier}," in page
    assert not ReviewComment.objects.filter(proposal=submitted).exists()


def test_insert_with_htmx_answers_the_box_only(staff_client, submitted, replies):
    english, german = replies
    url = reverse("proposals:staff_reply_insert", args=[submitted.pk])
    box = staff_client.post(
        url, {"section": "codes", "reply": english.pk}, HTTP_HX_REQUEST="true"
    ).text
    assert box.lstrip().startswith('<div id="comment-box-codes">')
    assert "Dear user" in box and "{applicant}" not in box
    # A reply in another language than the reader's is not theirs to insert.
    refused = staff_client.post(
        url, {"section": "codes", "reply": german.pk}, HTTP_HX_REQUEST="true"
    ).text
    assert "Choose a canned reply first." in refused and "Hallo" not in refused


def test_applicants_cannot_insert(client, user, submitted, replies):
    client.force_login(user)
    url = reverse("proposals:staff_reply_insert", args=[submitted.pk])
    assert client.post(url, {"section": "general", "reply": 1}).status_code == 404
