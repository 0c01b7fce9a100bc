"""Issue 36: the PDF and Markdown summaries come in English (the portal's language)
and, for the applicant's own team, in their language (``?lang=de``): headings,
labels and findings in that language, the portal text inside still English and
marked ``lang="en"``."""

import re
import subprocess

import pytest
from django.urls import reverse
from django.utils import translation

from proposals import exports, services
from tests.factories import ProposalFactory


def _compiled(language, msgid, msgstr):
    if translation.trans_real.translation(language)._catalog.get(msgid) != msgstr:
        pytest.fail(f"locale/{language} is not compiled with this branch's messages")


@pytest.fixture
def without_hours(user):
    """A draft with an error finding (no GPU-hours) and portal text."""
    return ProposalFactory(owner=user, total_gpu_hours=None)


def _source(proposal, language):
    from proposals.models import Proposal

    model = Proposal.objects.get(pk=proposal.pk)
    with translation.override(language):
        return exports.source_for(model)


def test_a_german_pdf_has_german_headings_and_findings(without_hours, tmp_path):
    _compiled("de", "Assessment summary", "Zusammenfassung der Bewertung")
    source = _source(without_hours, "de")
    html = exports.pdf_job(source, language="de").html
    assert '<html lang="de">' in html
    assert re.search(r'<table class="facts" lang="en">', html)  # the portal text
    path = tmp_path / "summary.pdf"
    path.write_bytes(exports.pdf_for(source, language="de"))
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Zusammenfassung der Bewertung" in text
    assert "Vor dem Einreichen beheben" in text
    assert "Seite 1 von" in text
    assert "Assessment summary" not in text
    german_finding = next(
        f for f in source.assessment.findings if f.severity == "error"
    )
    assert " ".join(german_finding.message.split()[:4]) in " ".join(text.split())


def test_the_default_pdf_stays_english(without_hours):
    html = exports.pdf_job(_source(without_hours, "en-gb")).html
    assert '<html lang="en-gb">' in html
    assert "Assessment summary" in html and "Zusammenfassung" not in html


def test_the_markdown_download_in_french(user_client, without_hours):
    _compiled("fr", "Assessment summary", "Synthèse de l'évaluation")
    url = reverse("proposals:export_markdown", args=[without_hours.pk])
    french = user_client.get(url, {"lang": "fr"}).content.decode()
    assert "## Synthèse de l'évaluation" in french
    assert "## Constats (" in french
    english = user_client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "## Assessment summary" in english and "Synthèse" not in english
    # A language the interface does not speak gives the portal's English.
    other = user_client.get(url, {"lang": "xx"}).content.decode()
    assert "## Assessment summary" in other


def test_the_markdown_page_downloads_in_its_language(user_client, without_hours):
    url = reverse("proposals:export_markdown_view", args=[without_hours.pk])
    page = user_client.get(url, {"lang": "fr"}).text
    download = reverse("proposals:export_markdown", args=[without_hours.pk])
    assert f'href="{download}?lang=fr"' in page


def test_the_export_links_offer_the_readers_language(client, user, without_hours):
    _compiled("de", "PDF in %(language)s", "PDF auf %(language)s")
    services.preferences_set(user=user, number_format="de_DE", language="de")
    client.force_login(user)
    url = reverse("proposals:step", args=[without_hours.pk, "review"])
    page = client.get(url).text
    pdf = reverse("proposals:export_pdf", args=[without_hours.pk])
    assert f'href="{pdf}?lang=de&amp;inline=1"' in page
    assert "PDF auf Deutsch" in page
    services.preferences_set(user=user, number_format="en_GB", language="en-gb")
    client.logout()
    client.force_login(user)
    assert "?lang=" not in client.get(url).text
