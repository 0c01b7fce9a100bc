"""The site's own carbon note (LUMI: "runs on 100% hydropower") comes from the
system catalogue: it was shown in English inside the German, French, Italian and
Spanish energy assumptions. Each note of the catalogue is in the catalogues, and the
page shows it in the page's language."""

import json
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

from proposals.domain.energy import SITE_NOTES

pytestmark = pytest.mark.django_db

CATALOGUE = Path(__file__).resolve().parents[2] / "fixtures" / "catalogue.json"
HEADERS = {
    "de": "de-DE,de;q=0.9",
    "fr": "fr-FR,fr;q=0.9",
    "it": "it-IT,it;q=0.9",
    "es": "es-ES,es;q=0.9",
}


def test_every_site_note_of_the_catalogue_is_marked_for_translation():
    rows = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    notes = {row["site_carbon_note"] for row in rows if row.get("site_carbon_note")}
    assert notes and notes <= set(SITE_NOTES)


@pytest.mark.parametrize("language", list(HEADERS))
def test_the_lumi_note_is_in_the_page_s_language(user_client, proposal, language):
    english = proposal.system.site_carbon_note
    assert english  # LUMI-G's, from the catalogue
    with translation.override(language):
        translated = translation.gettext(english)
    url = reverse("proposals:step", args=[proposal.pk, "selection"])
    page = user_client.get(url, HTTP_ACCEPT_LANGUAGE=HEADERS[language])
    text = page.content.decode()
    assert translated != english
    assert translated in text
    assert english not in text
