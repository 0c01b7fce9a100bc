"""The time zone is offered from the browser (static/js/timezone.js) on sign-up and in
Settings until the person has chosen one; what is stored is what they submit."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from proposals import services
from proposals.models import Preferences

pytestmark = pytest.mark.django_db

MARK = 'data-browser-zone=""'


def test_sign_up_asks_the_time_zone_offered_from_the_browser(client, catalogue):
    page = client.get(reverse("signup")).content.decode()
    assert 'name="time_zone"' in page and MARK in page
    assert "js/timezone.js" in page
    assert "Taken from your browser" in page  # the note the script shows
    client.post(
        reverse("signup"),
        {
            "username": "helsinki",
            "email": "helsinki@example.eu",
            "password1": "a-long-unusual-passphrase",
            "password2": "a-long-unusual-passphrase",
            "time_zone": "Europe/Helsinki",
        },
    )
    preferences = Preferences.objects.get(user=User.objects.get(username="helsinki"))
    assert (preferences.time_zone, preferences.time_zone_chosen) == (
        "Europe/Helsinki",
        True,
    )


def test_settings_offer_the_browser_s_zone_only_until_one_is_chosen(user_client, user):
    page = user_client.get(reverse("account_settings")).content.decode()
    assert MARK in page and "js/timezone.js" in page
    assert not Preferences.objects.filter(user=user).exists()  # nothing stored
    services.preferences_set(
        user=user, number_format="en_GB", time_zone="Europe/Lisbon"
    )
    page = user_client.get(reverse("account_settings")).content.decode()
    assert MARK not in page
