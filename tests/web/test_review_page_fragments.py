"""The staff review page's sections come from Django's cache when the same reading
was rendered before (issue 34: the page's time), and change whenever what they show
changes: the draft, the revision shown, the reference data, the reader's language
or number format; a conflicted staff member is still refused the page."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from proposals import exports, reference_data, review_fragments, services
from proposals.domain.team import organisation_key
from proposals.evaluation import Reference
from proposals.models import Proposal, StaffConflict
from proposals.templatetags import fragments
from proposals.templatetags.fragments import macro
from tests.factories import StaffUserFactory

pytestmark = pytest.mark.django_db
DOCUMENT = "proposals/staff_document.html"
HTMX = {"HTTP_HX_REQUEST": "true"}


def _page(client, proposal, **query):
    response = client.get(
        reverse("proposals:staff_review", args=[proposal.pk]), query or None
    )
    assert response.status_code == 200
    return response


def _rendered(response) -> list[str]:
    return [t.name for t in response.templates]


def _facts(page: str) -> str:
    return page.split('data-testid="facts-organisation"')[1].split("</dl>")[0]


def test_a_second_visit_renders_the_sections_from_the_cache(
    client, staff_user, submitted
):
    client.force_login(staff_user)
    first = _page(client, submitted)
    assert DOCUMENT in _rendered(first)
    again = _page(client, submitted)
    assert DOCUMENT not in _rendered(again)
    # The same page: only the per-request token differs.
    token = re.compile(
        r'name="csrfmiddlewaretoken" value="[^"]*"|"X-CSRFToken": "[^"]*"'
    )
    assert token.sub("", again.text) == token.sub("", first.text)


def test_an_edit_of_the_draft_is_shown_at_once(client, staff_user, submitted):
    client.force_login(staff_user)
    assert "Example Old Oy" not in _page(client, submitted).text
    # Even a write that bypasses the services (the admin, the shell): the key is
    # what the page reads, not a stamp somebody must remember to move.
    Proposal.objects.filter(pk=submitted.pk).update(organisation_name="Example Old Oy")
    assert "Example Old Oy" in _facts(_page(client, submitted).text)
    Proposal.objects.filter(pk=submitted.pk).update(organisation_name="Example New Oy")
    facts = _facts(_page(client, submitted).text)
    assert "Example New Oy" in facts and "Example Old Oy" not in facts


def test_each_revision_shows_its_own_content(client, user, staff_user, submitted):
    client.force_login(staff_user)
    first_name = submitted.organisation_name
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="The organisation's name, please.",
    )
    Proposal.objects.filter(pk=submitted.pk).update(organisation_name="Renamed Oy")
    submitted.refresh_from_db()
    services.review_submit(proposal=submitted, user=user)
    assert first_name in _facts(_page(client, submitted, revision=1).text)
    second = _facts(_page(client, submitted, revision=2).text)
    assert "Renamed Oy" in second and first_name not in second
    # Revision 1 again, after revision 2 was cached: still its own.
    again = _facts(_page(client, submitted, revision=1).text)
    assert first_name in again and "Renamed Oy" not in again


def test_the_readers_language_and_number_format(client, staff_user, submitted):
    colleague = StaffUserFactory()
    services.preferences_set(user=colleague, number_format="de_DE", language="de")
    client.force_login(staff_user)
    english = _page(client, submitted).text
    assert "The whole section" in english and " characters</span>" in english
    client.force_login(colleague)
    german = _page(client, submitted).text
    assert "Den ganzen Abschnitt" in german and " Zeichen</span>" in german
    assert "The whole section" not in german
    client.force_login(staff_user)
    assert "The whole section" in _page(client, submitted).text


def test_the_key_follows_the_reference_data(submitted):
    loaded = Proposal.objects.get(pk=submitted.pk)
    source = exports.source_for(loaded, Reference.cached())
    before = review_fragments.fragments_key(source)
    assert review_fragments.fragments_key(source) == before
    reference_data.forget()  # what an admin's edit of the catalogue does
    assert review_fragments.fragments_key(source) != before


def test_a_conflicted_staff_member_is_refused_what_a_colleague_cached(
    client, staff_user, submitted
):
    conflicted = StaffUserFactory()
    StaffConflict.objects.create(
        user=conflicted,
        organisation=submitted.organisation_name,
        key=organisation_key(submitted.organisation_name),
        declared_at=timezone.now(),
    )
    client.force_login(staff_user)
    page = _page(client, submitted).text
    assert 'data-testid="facts-organisation"' in page
    client.force_login(conflicted)
    refused = client.get(reverse("proposals:staff_review", args=[submitted.pk]))
    assert refused.status_code == 403
    assert 'data-testid="facts-organisation"' not in refused.text


def test_a_canned_reply_keeps_the_field_it_is_about(client, staff_user, submitted):
    client.force_login(staff_user)
    _page(client, submitted)  # the sections are cached
    response = client.post(
        reverse("proposals:staff_reply_insert", args=[submitted.pk]),
        {"section": "selection", "field": "selection.total_gpu_hours", "reply": ""},
    )
    assert response.status_code == 200
    box = response.text.split('id="field-selection"')[1].split("</select>")[0]
    assert re.search(r'value="selection.total_gpu_hours"\s+selected', box)


CALENDAR = "proposals/live/sidebar.html#calendar"


def _macros_called(monkeypatch, client, submitted) -> list[str]:
    """The macros the regions of a visit of the review page were written with."""
    called = []

    def recording(template):
        called.append(template)
        return macro(template)

    monkeypatch.setattr(fragments, "macro", recording)
    _page(client, submitted)
    monkeypatch.setattr(fragments, "macro", macro)
    return called


def test_the_sidebar_regions_are_rendered_once_per_key(
    client, staff_user, submitted, monkeypatch
):
    client.force_login(staff_user)
    assert CALENDAR in _macros_called(monkeypatch, client, submitted)
    assert CALENDAR not in _macros_called(monkeypatch, client, submitted)
    # Another number format: the figures are written again, in that format.
    services.preferences_set(user=staff_user, number_format="de_DE", language="de")
    assert CALENDAR in _macros_called(monkeypatch, client, submitted)


def test_a_region_follows_its_inputs(client, staff_user, submitted):
    client.force_login(staff_user)
    hours = 'data-testid="requested-hours">'
    first = _page(client, submitted).text.split(hours)[1].split("<")[0]
    Proposal.objects.filter(pk=submitted.pk).update(total_gpu_hours=123457)
    second = _page(client, submitted).text.split(hours)[1].split("<")[0]
    assert second != first and second.replace(",", "").startswith("123457")
