"""The interface language comes from the browser, the switch or the person's
setting, and their e-mails come in their language while the portal text stays
English (split from test_translations.py)."""

import io
import json
import re
import zipfile

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import translation

from proposals import notifications, services
from proposals.models import Preferences

# Choosing the language -------------------------------------------------------------


@pytest.mark.django_db
def test_browser_language_sets_page_language_and_headers(client):
    response = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert response["Content-Language"] == "fr"
    assert 'lang="fr"' in response.text[:200]
    vary = {v.strip().lower() for v in response["Vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary
    english = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="pt-PT")
    assert english["Content-Language"] == "en-gb"


@pytest.mark.django_db
def test_anonymous_switch_sets_the_language_cookie(client):
    page = client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert 'data-testid="language-switch"' in page.text
    response = client.post(
        reverse("set_language"), {"language": "de", "next": reverse("privacy")}
    )
    assert response.status_code == 302
    again = client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert again["Content-Language"] == "de"


def test_signed_in_choice_wins_over_the_browser(client, user):
    services.preferences_set(user=user, number_format="en_GB", language="de")
    client.force_login(user)
    response = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "de"
    assert re.search(r'<html lang="de"', response.text)
    # Another session (logging in again) reads a choice changed elsewhere.
    services.preferences_set(user=user, number_format="en_GB", language="")
    client.logout()
    client.force_login(user)
    response = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "fr"


def test_a_signed_in_request_reads_no_preferences_for_the_language(
    client, user, django_assert_num_queries
):
    """The choice is kept in the session at login: a page that prints no number
    costs no query for the language (session, user, and the page's own)."""
    services.preferences_set(user=user, number_format="en_GB", language="fr")
    client.force_login(user)
    client.get(reverse("privacy"))
    with django_assert_num_queries(4) as captured:
        response = client.get(reverse("privacy"))
    assert response["Content-Language"] == "fr"
    assert not [q for q in captured if "proposals_preferences" in q["sql"]]


def test_a_session_from_before_reads_the_choice_once(client, user):
    services.preferences_set(user=user, number_format="en_GB", language="de")
    client.force_login(user)
    session = client.session
    del session["interface_language"]
    session.save()
    assert client.get(reverse("privacy"))["Content-Language"] == "de"
    assert client.session["interface_language"] == "de"


def test_settings_stores_the_language_and_answers_in_it(client, user):
    services.preferences_set(user=user, number_format="en_GB")
    client.force_login(user)
    page = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert 'name="language"' in page.text
    response = client.post(
        reverse("account_settings"),
        {"language": "de", "number_format": "de_DE", "time_zone": "Europe/Berlin"},
        HTTP_ACCEPT_LANGUAGE="en-GB",
        follow=True,
    )
    assert Preferences.objects.get(user=user).language == "de"
    assert response["Content-Language"] == "de"
    if "Einstellungen gespeichert." not in response.text:
        pytest.fail("locale/de is not compiled with this branch's messages")
    # Labels keep German capitals (capfirst, not capitalize).
    assert "Wie Sie Zahlen und Daten schreiben" in response.text
    # Back to the browser's language.
    client.post(
        reverse("account_settings"),
        {"language": "", "number_format": "de_DE", "time_zone": "Europe/Berlin"},
    )
    assert Preferences.objects.get(user=user).language == ""
    response = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "fr"


def test_settings_refuses_a_language_not_offered(client, user):
    client.force_login(user)
    response = client.post(
        reverse("account_settings"),
        {"language": "xx", "number_format": "en_GB", "time_zone": "Europe/Brussels"},
    )
    assert response.status_code == 200
    assert not Preferences.objects.filter(user=user, language="xx").exists()


def test_service_refuses_an_unknown_language(user):
    with pytest.raises(ValueError):
        services.preferences_set(user=user, number_format="en_GB", language="xx")


def test_settings_page_says_the_portal_text_stays_english(client, user):
    client.force_login(user)
    response = client.get(reverse("account_settings"))
    assert "portal's plain English form" in response.text


# E-mails and the portal text ---------------------------------------------------------


def test_mail_is_in_the_recipients_language(submitted, user, staff_user):
    """The applicant chose German, the staff member French: each reads their own,
    whatever language the request that caused the mail was in."""
    services.preferences_set(user=user, number_format="de_DE", language="de")
    services.preferences_set(user=staff_user, number_format="fr_FR", language="fr")
    change = submitted.status_changes.order_by("-pk").first()
    with translation.override("en-gb"):
        to_applicant = notifications.status_to_applicant(change=change)
        to_staff = notifications.submission_to_staff(
            revision=submitted.revisions.first()
        )
    catalogue = translation.trans_real.translation("de")._catalog
    if "Open the review: %(url)s" not in catalogue:
        pytest.fail("locale/de is not compiled with this branch's messages")
    assert "Das Support-Team hat den Status von" in to_applicant[0].body
    assert "Open the review" not in to_staff[0].body
    assert "Ouvrir" in to_staff[0].body


def test_mail_without_a_choice_is_english(submitted, user):
    change = submitted.status_changes.order_by("-pk").first()
    with translation.override("de"):
        mails = notifications.status_to_applicant(change=change)
    assert "See the comments and the history" in mails[0].body


def test_portal_text_is_english_for_a_german_reader(client, user, applicant_proposal):
    services.preferences_set(user=user, number_format="de_DE", language="de")
    client.force_login(user)
    english = client.get(
        reverse("proposals:export_markdown", args=[applicant_proposal.pk])
    ).content
    services.preferences_set(user=user, number_format="en_GB", language="")
    plain = client.get(
        reverse("proposals:export_markdown", args=[applicant_proposal.pk]),
        HTTP_ACCEPT_LANGUAGE="en-GB",
    ).content
    # Only the date in the file name differs, never its text.
    assert english == plain
    assert mail.outbox == []
    assert Preferences.objects.get(user=user).language == ""


def test_data_download_is_english_and_holds_the_language(client, submitted, user):
    """The archive is a JSON file: the portal's English whatever the person reads
    (its status names are not translated), and it holds their language."""
    services.preferences_set(user=user, number_format="de_DE", language="de")
    client.force_login(user)
    response = client.get(reverse("account_data"))
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    summary = json.loads(archive.read("account.json"))
    assert summary["account"]["language"] == "de"
    history = summary["proposals"][0]["status_history"]
    assert history[-1]["to"] == "Submitted for review"


def test_scripts_get_their_texts_in_the_page_language(client, user):
    """The scripts' texts (retrying, copied ...) come with every page as JSON, in
    its language; the scripts fall back to English without them."""
    client.force_login(user)
    response = client.get(reverse("proposals:list"), HTTP_ACCEPT_LANGUAGE="de")
    found = re.search(
        r'<script id="script-messages" type="application/json">(.*?)</script>',
        response.text,
    )
    messages = json.loads(found.group(1))
    assert set(messages) >= {"retrying", "copied", "copyFailed", "shownElsewhere"}
    catalogue = translation.trans_real.translation("de")._catalog
    if "Not saved, retrying…" not in catalogue:
        pytest.fail("locale/de is not compiled with this branch's messages")
    assert messages["retrying"] == "Nicht gespeichert, neuer Versuch…"
    assert set(messages["shownElsewhere"]) == {"one", "other"}


def test_signup_mail_is_in_the_browsers_language(
    client, catalogue, django_capture_on_commit_callbacks
):
    """The person waits for the link on the page they signed up on: the mail is in
    that page's language."""
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("signup"),
            {
                "username": "neuling",
                "email": "neuling@example.eu",
                "password1": "a-long-unusual-passphrase",
                "password2": "a-long-unusual-passphrase",
            },
            HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9",
        )
    (message,) = mail.outbox
    german = translation.trans_real.translation("de")._catalog
    if "Hello %(name)s," not in german:
        pytest.fail("locale/de is not compiled with this branch's messages")
    assert message.subject == (
        "Bestätigen Sie Ihre E-Mail-Adresse für den AI-Factory-Antragsassistenten"
    )
    assert message.body.startswith("Guten Tag neuling,")
