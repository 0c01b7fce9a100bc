"""In Chromium with a Helsinki clock, the sign-up form shows Europe/Helsinki as the
time zone (taken from the browser, said beside it), and stores what is submitted."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import expect

from proposals.models import Preferences

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_up_prefills_the_browser_time_zone(browser, live_server, e2e_catalogue):
    context = browser.new_context(timezone_id="Europe/Helsinki", locale="en-GB")
    page = context.new_page()
    page.goto(live_server.url + reverse("signup"))
    select = page.locator("select[name=time_zone]")
    expect(select).to_have_value("Europe/Helsinki")
    expect(page.get_by_test_id("browser-zone-note")).to_be_visible()
    select.select_option("Europe/Tallinn")  # the person can change it
    page.fill("input[name=username]", "helsinki")
    page.fill("input[name=email]", "helsinki@example.eu")
    page.fill("input[name=password1]", "a-long-unusual-passphrase")
    page.fill("input[name=password2]", "a-long-unusual-passphrase")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/signup/sent/**")
    user = User.objects.get(username="helsinki")
    assert Preferences.objects.get(user=user).time_zone == "Europe/Tallinn"
    context.close()
