"""Settings' number-format list (issue 36: it began with "None" and Afar): the
person's region first, then every format by name, no "None"."""

import re

from django.urls import reverse

from proposals.domain.countries import sort_key
from proposals.domain.numbers import number_formats


def _options(client, **headers) -> list[tuple[str, str]]:
    page = client.get(reverse("account_settings"), **headers).content.decode()
    select = re.search(r'<select name="number_format".*?</select>', page, re.S)[0]
    return re.findall(r'<option value="([^"]+)"[^>]*>([^<]*)</option>', select)


def test_the_browsers_region_heads_the_list(user_client):
    options = _options(user_client, HTTP_ACCEPT_LANGUAGE="de-CH,de;q=0.9,en;q=0.5")
    assert [value for value, _ in options[:3]] == ["de_CH", "de", "en"]
    assert options[0][1].startswith("German (Switzerland) · Deutsch (Schweiz)")
    assert all(value != "None" and "None" not in label for value, label in options)


def test_after_the_persons_formats_all_follow_by_name(user_client):
    options = _options(user_client, HTTP_ACCEPT_LANGUAGE="fr-BE")
    # The browser's region, then the interface language it chose (French).
    assert [value for value, _ in options[:2]] == ["fr_BE", "fr"]
    rest = [label for _, label in options[2:]]
    languages = [sort_key(re.split(r" \(| · |: ", label)[0]) for label in rest]
    assert languages == sorted(languages)
    assert len(options) == len(number_formats())


def test_a_locale_cldr_has_no_name_for_is_labelled_by_what_it_has():
    labels = {fmt.name: fmt.label for fmt in number_formats()}
    assert labels["mhn"].startswith("mhn: ")  # no English nor own name in CLDR
    assert labels["apc"].startswith("العامية")  # its own name only
    assert not any("None" in label for label in labels.values())
