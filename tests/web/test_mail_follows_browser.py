"""Issue 36: a person who never chose a language in Settings gets their e-mails in
the language their pages are in (their browser's, or the switch's), not in English;
a choice made in Settings always wins."""

import pytest
from django.urls import reverse
from django.utils import translation

from proposals import notifications, services
from proposals.models import Preferences


def _german_compiled():
    if (
        "Open the review: %(url)s"
        not in translation.trans_real.translation("de")._catalog
    ):
        pytest.fail("locale/de is not compiled with this branch's messages")


def _mail_to_applicant(proposal):
    change = proposal.status_changes.order_by("-pk").first()
    with translation.override("en-gb"):
        return notifications.status_to_applicant(change=change)[0].body


def test_mail_follows_the_pages_language_of_a_running_session(client, submitted, user):
    """Signed in before (no page language recorded at sign-in): the first German
    page records it, and the next mail is German."""
    _german_compiled()
    services.preferences_set(user=user, number_format="en_GB")
    client.force_login(user)
    assert "See the comments and the history" in _mail_to_applicant(submitted)
    client.get(reverse("proposals:list"), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    assert Preferences.objects.get(user=user).browser_language == "de"
    assert "Das Support-Team hat den Status von" in _mail_to_applicant(submitted)
    # A browser switched to French: the mail follows.
    client.get(reverse("proposals:list"), HTTP_ACCEPT_LANGUAGE="fr")
    assert Preferences.objects.get(user=user).browser_language == "fr"


def test_the_settings_choice_wins_over_the_browser(client, submitted, user):
    _german_compiled()
    services.preferences_set(user=user, number_format="en_GB", language="fr")
    client.force_login(user)
    client.get(reverse("proposals:list"), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    body = _mail_to_applicant(submitted)
    assert "Das Support-Team" not in body
    assert "See the comments and the history" not in body


def test_a_steady_session_writes_nothing(client, user, django_assert_num_queries):
    services.preferences_set(user=user, number_format="en_GB")
    client.force_login(user)
    client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="de")
    with django_assert_num_queries(4) as captured:
        client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="de")
    assert not [q for q in captured if "proposals_preferences" in q["sql"]]


def test_sign_up_records_the_pages_language(client, catalogue):
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
    assert Preferences.objects.get(user__username="neuling").browser_language == "de"
