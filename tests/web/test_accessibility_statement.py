"""The accessibility statement (issue 33; Directive (EU) 2016/2102, EN 301 549): a
public page, linked from every page's footer, in every interface language, that
states conformance from the project's own browser tests, lists the known gaps,
names a contact and is dated. Its list of tests is checked against the tests that
exist, so that it cannot claim a test that is gone or leave out an axe test."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from proposals import accessibility

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "tests" / "e2e"


def _statement(client, language="en-gb"):
    answer = client.get(reverse("accessibility"), HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 200
    return answer.content.decode()


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_the_statement_is_public_in_every_language(client, language):
    text = _statement(client, language)
    with translation.override(language):
        heading = str(translation.gettext("Accessibility statement"))
        for check in accessibility.CHECKS:
            assert str(check.what) in text
        for gap in accessibility.GAPS:
            assert str(gap).replace("'", "&#x27;") in text
    assert f'<h1 class="h3 mb-3">{heading}</h1>' in text
    if language != "en-gb":
        assert heading != "Accessibility statement"  # translated, not English
    assert accessibility.STANDARD in text
    assert str(accessibility.STATEMENT_DATE.year) in text
    for test in accessibility.CHECKS[0].tests:
        assert test in text


def test_every_page_links_to_it_in_the_footer(client):
    landing = client.get(reverse("home")).content.decode()
    footer = landing.split("<footer", 1)[1]
    assert f'href="{reverse("accessibility")}"' in footer


def test_the_contact_comes_from_the_setting(client, settings):
    settings.PRIVACY_CONTACT = "dpo@example.eu"
    settings.ACCESSIBILITY_CONTACT = "accessibility@example.eu"
    assert (
        'data-testid="accessibility-contact">accessibility@example.eu<'
        in _statement(client)
    )
    settings.ACCESSIBILITY_CONTACT = ""
    assert 'data-testid="accessibility-contact">dpo@example.eu<' in _statement(client)
    settings.PRIVACY_CONTACT = ""
    text = _statement(client)
    assert "accessibility-contact" not in text
    assert "tell its help desk" in text


def _tests_in(path: Path) -> set[str]:
    return set(re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE))


def test_every_listed_test_exists():
    for check in accessibility.CHECKS:
        for test in check.tests:
            path, _, name = test.partition("::")
            assert (ROOT / path).is_file(), test
            assert name in _tests_in(ROOT / path), test


def test_every_axe_test_is_listed():
    """A browser test file that runs axe-core is named on the statement."""
    with_axe = {
        path.relative_to(ROOT).as_posix()
        for path in E2E.glob("test_*.py")
        if re.search(r"serious_violations\(|Axe\(\)", path.read_text())
    }
    assert with_axe
    assert with_axe <= accessibility.tested_files()
