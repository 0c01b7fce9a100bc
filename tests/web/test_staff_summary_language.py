"""Issue 36: support staff pick the summaries' language as the applicant can (the
PDF and Markdown in any interface language, the portal text inside still English):
a choice on the review page's exports and on the export page, which sends the
revision shown along."""

import html
import re

import pytest
from django.urls import reverse

from proposals.models import PdfExport

pytestmark = pytest.mark.django_db


def _form(page: str) -> str:
    found = re.search(r'<form[^>]*data-testid="summary-language".*?</form>', page, re.S)
    assert found, "no choice of the summaries' language on the page"
    return found[0]


def _submit(client, form: str, *, button: str, language: str):
    """What the browser sends for ``form`` with ``language`` chosen and the button
    ``button`` (its test id) pressed."""
    pressed = re.search(rf'<button[^>]*data-testid="{button}"[^>]*>', form, re.S)[0]
    action = html.unescape(re.search(r'formaction="([^"]+)"', pressed)[1])
    params = dict(
        re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form)
    )
    params["lang"] = language
    extra = re.search(r'name="(\w+)" value="([^"]*)"', pressed)
    if extra:
        params[extra[1]] = extra[2]
    return client.get(action, params, HTTP_ACCEPT_LANGUAGE="de")


def test_staff_choose_the_summary_language_on_the_review_page(client, staff_user, sent):
    client.force_login(staff_user)
    url = reverse("proposals:staff_review", args=[sent.pk])
    page = client.get(url, {"revision": 1}, HTTP_ACCEPT_LANGUAGE="de").text
    form = _form(page)
    # Every interface language is offered, the reader's own chosen first.
    options = re.findall(r'<option value="([\w-]+)"', form)
    assert options == ["en-gb", "de", "fr", "it", "es"]
    assert re.search(r'<option value="de" lang="de" selected>', form)
    assert '<input type="hidden" name="revision" value="1">' in form
    markdown = _submit(
        client, form, button="summary-language-markdown", language="fr"
    ).text
    assert "Synthèse de l&#x27;évaluation" in markdown
    assert "?revision=1&amp;lang=fr" in markdown  # its download: the same revision
    pdf = _submit(client, form, button="summary-language-pdf", language="it")
    assert pdf.status_code == 302 and "inline=1" in pdf.url  # to the task worker
    stored = PdfExport.objects.get(proposal=sent)
    assert stored.review_revision == 1 and '<html lang="it">' in stored.html


def test_the_export_page_offers_the_choice_to_staff(client, staff_user, sent):
    client.force_login(staff_user)
    url = reverse("proposals:export_portal", args=[sent.pk])
    form = _form(client.get(url, {"revision": 1}, HTTP_ACCEPT_LANGUAGE="fr").text)
    assert re.search(r'<option value="fr" lang="fr" selected>', form)
    markdown = _submit(client, form, button="summary-language-markdown", language="es")
    assert "Resumen de la evaluación" in markdown.text
