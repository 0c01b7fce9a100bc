"""The proposal and staff pages in German and French (issue 25): their chrome, the
messages of their views, the queue's filters and the staff CSV speak the reader's
language, from the catalogues in ``locale/`` (``make
translations``). The English pages are the existing tests' business.

Each request names the language twice: the browser's Accept-Language (what the
locale middleware reads) and an activated translation (what a request without
that middleware keeps), so the test reads the same wherever the language is
picked."""

import pytest
from django.urls import reverse
from django.utils import translation


def get(client, url, language, **kwargs):
    with translation.override(language):
        return client.get(url, HTTP_ACCEPT_LANGUAGE=language, **kwargs)


def post(client, url, language, data, **kwargs):
    with translation.override(language):
        return client.post(url, data, HTTP_ACCEPT_LANGUAGE=language, **kwargs)


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def test_the_review_queue_speaks_german(staff_client, submitted):
    page = get(staff_client, reverse("proposals:review_queue"), "de").text
    for german in (
        "Prüfwarteschlange",
        "Als CSV herunterladen",
        "Titel, Organisation oder Person",
    ):
        assert german in page
    for english in ("Download as CSV", "Title or organisation"):
        assert english not in page
    # The queue's filter choices are made at import: they are read lazily.
    assert "Am längsten wartende zuerst" in page
    assert "Longest waiting first" not in page


def test_the_staff_csv_headers_are_in_the_readers_language(staff_client, submitted):
    raw = get(staff_client, reverse("proposals:review_queue_csv"), "fr").content
    header = raw.decode("utf-8-sig").splitlines()[0]
    # The delimiter follows the reader's number format (a semicolon for French).
    assert header.replace(";", ",").startswith("Proposition,Organisation,Demandeur")
    assert "Typical response" not in header


def test_the_note_help_names_statuses_as_german_writes_them(staff_client, submitted):
    url = reverse("proposals:staff_review", args=[submitted.pk])
    german = get(staff_client, url, "de").text
    # German nouns keep their capital inside a sentence; English lower-cases them.
    assert "„Bereit zum Einreichen“ (Revision 1 hat" in german
    assert "Erforderlich für „Änderungen angefordert“" in german
    english = get(staff_client, url, "en-gb").text
    assert "“ready to submit” (revision 1 has" in english


def test_the_proposal_list_and_its_messages_speak_french(user_client, proposal):
    page = get(user_client, reverse("proposals:list"), "fr").text
    assert "Mes propositions" in page and "Nouvelle proposition" in page
    assert "Import JSON" not in page and "New proposal" not in page
    answer = post(
        user_client,
        reverse("proposals:archive", args=[proposal.pk]),
        "fr",
        {"archived": "1"},
        follow=True,
    )
    assert f"« {proposal.title} » a été archivée" in answer.text


def test_the_wizard_chrome_speaks_german(user_client, proposal):
    page = get(
        user_client, reverse("proposals:step", args=[proposal.pk, "selection"]), "de"
    )
    text = page.text
    assert "Alle Änderungen gespeichert" in text
    assert "Schritte des Assistenten" in text
    assert "All changes saved" not in text


def test_the_portal_export_page_says_the_text_stays_english(user_client, proposal):
    page = get(
        user_client, reverse("proposals:export_portal", args=[proposal.pk]), "de"
    )
    assert "Der Text bleibt auf Englisch, wie das Portal ihn erwartet." in page.text


def test_status_labels_and_form_help_follow_the_language(staff_client, submitted):
    # The workflow's statuses are model choices made at import: read lazily.
    queue = get(staff_client, reverse("proposals:review_queue"), "de").text
    assert "Im Portal eingereicht" in queue
    assert "Submitted to the portal" not in queue


def test_the_new_proposal_form_speaks_french(user_client):
    page = get(user_client, reverse("proposals:create"), "fr").text
    assert "Un titre de travail ; seuls vous et l’équipe d’assistance le voyez." in page
    assert "Pas encore décidé" in page
    assert "Not decided yet" not in page


def test_the_scaling_chart_is_drawn_in_the_readers_language():
    from types import SimpleNamespace

    from proposals import charts

    point = SimpleNamespace
    series = SimpleNamespace(
        code=None,
        points=[
            point(gpus=8, throughput=1000.0, efficiency=1.0, unit="tokens/s"),
            point(gpus=16, throughput=1900.0, efficiency=0.95, unit="tokens/s"),
        ],
    )
    assessment = SimpleNamespace(
        analysis=SimpleNamespace(series=[series]), projection=None
    )
    with translation.override("de"):
        german = charts.chart_data(assessment, {})
    with translation.override("en-gb"):
        english = charts.chart_data(assessment, {})
    # The words are part of the data: the German chart has its own key, and an
    # English chart keeps the one it had.
    assert charts.data_key(german) != charts.data_key(english)
    assert "language" not in english
    svg = charts.render(german).decode()
    assert "Durchsatz (tokens/s)" in svg and "Effizienz (%)" in svg
    assert "Messungen" in svg and "Throughput" not in svg
    assert "Throughput (tokens/s)" in charts.render(english).decode()
