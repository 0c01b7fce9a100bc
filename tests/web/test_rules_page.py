"""The rule reference page in German and French: each rule's description (its
docstring, the English of docs/rules.md) comes from the rules' catalogue
(locale/rules/, `manage.py rule_messages`), and so do the severities' names."""

import html

import pytest
from django.urls import reverse

from proposals.domain.findings import REGISTRY
from tests.web import translation_check as check


def _translations(language):
    path = check.rules_catalogue_path(language)
    return {m.id: m.string for m in check.read_catalogue(path) if m.id}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "severity"), [("de", "Fehler / Warnung"), ("fr", "erreur")]
)
def test_rules_page_shows_the_descriptions_translated(client, language, severity):
    translations = _translations(language)
    page = html.unescape(
        client.get(reverse("proposals:rules"), HTTP_ACCEPT_LANGUAGE=language).text
    )
    for code in ("CODE-2", "SCAL-3", "PLAN-3"):
        english = REGISTRY[code].english_description
        assert translations.get(english), f"{code} has no {language} translation"
        assert translations[english] in page
        assert english not in page
    assert severity in page


@pytest.mark.django_db
def test_rules_page_in_english_shows_the_docstrings(client):
    page = html.unescape(
        client.get(reverse("proposals:rules"), HTTP_ACCEPT_LANGUAGE="en-GB").text
    )
    assert REGISTRY["SCAL-3"].english_description in page
    assert "error / warning" in page
