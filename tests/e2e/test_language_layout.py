"""The interface in German and French in Chromium: the browser's language is the
page's, the footer's switch and the Settings choice change it, and at 390 px the
account, error and public pages hold their layout with German's long words (nothing
wider than the screen) and stay axe-clean. Screenshots in test-artifacts/ for people to
look at."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import Browser, expect

from tests.e2e.page_checks import serious_violations

PHONE = {"width": 390, "height": 844}

ANONYMOUS = {
    "landing": lambda: reverse("home"),
    "privacy": lambda: reverse("privacy"),
    "glossary": lambda: reverse("proposals:glossary"),
    "guide": lambda: reverse("proposals:guide"),
    "login": lambda: reverse("login"),
    "signup": lambda: reverse("signup"),
    "signup-done": lambda: reverse("signup_done"),
    "password-reset": lambda: reverse("password_reset"),
    "verify-bad-link": lambda: reverse("verify_email", args=["MQ", "x"]),
    "not-found": lambda: "/no-such-page/",
}
SIGNED_IN = {
    "settings": lambda: reverse("account_settings"),
    "delete-account": lambda: reverse("account_delete"),
    "password-change": lambda: reverse("password_change"),
}


@pytest.fixture
def demo(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    return User.objects.get(username="demo")


def _too_wide(page) -> list[str]:
    """The elements wider than the viewport (the page scrolls sideways)."""
    return page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          if (document.documentElement.scrollWidth <= width) return [];
          return [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > width + 1)
            .slice(0, 5)
            .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ': '
                      + (e.textContent || '').trim().slice(0, 60));
        }"""
    )


def _context(browser: Browser, locale: str):
    return browser.new_context(locale=locale, viewport=PHONE)


@pytest.mark.parametrize("locale", ["de-DE", "fr-FR"])
@pytest.mark.parametrize("name", list(ANONYMOUS))
def test_visitor_pages_at_390px(browser, live_server, demo, artifacts, name, locale):
    context = _context(browser, locale)
    page = context.new_page()
    page.goto(f"{live_server.url}{ANONYMOUS[name]()}")
    language = locale[:2]
    assert page.get_attribute("html", "lang") == language
    page.screenshot(path=artifacts / f"{language}-390-{name}.png", full_page=True)
    assert _too_wide(page) == []
    assert serious_violations(page) == []
    context.close()


@pytest.mark.parametrize("name", list(SIGNED_IN))
def test_account_pages_in_german_at_390px(browser, live_server, demo, artifacts, name):
    context = _context(browser, "de-DE")
    page = context.new_page()
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("#id_username", "demo")
    page.fill("#id_password", "aifactory-demo")
    page.click("main button[type=submit]")
    page.goto(f"{live_server.url}{SIGNED_IN[name]()}")
    assert page.get_attribute("html", "lang") == "de"
    page.screenshot(path=artifacts / f"de-390-{name}.png", full_page=True)
    assert _too_wide(page) == []
    assert serious_violations(page) == []
    context.close()


def test_visitor_switches_the_language_in_the_footer(browser, live_server, demo):
    context = _context(browser, "en-GB")
    page = context.new_page()
    page.goto(f"{live_server.url}{reverse('privacy')}")
    assert page.get_attribute("html", "lang") == "en-gb"
    switch = page.get_by_test_id("language-switch")
    switch.locator("select").select_option("fr")
    switch.locator("button").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    assert page.url.endswith(reverse("privacy"))
    # It stays French on the next page (the switch's cookie).
    page.goto(f"{live_server.url}{reverse('proposals:glossary')}")
    assert page.get_attribute("html", "lang") == "fr"
    context.close()


def test_person_chooses_german_in_settings(browser, live_server, demo):
    """An English browser; the person picks Deutsch in Settings: the next pages are
    German, also after logging in again."""
    context = _context(browser, "en-GB")
    page = context.new_page()
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("#id_username", "demo")
    page.fill("#id_password", "aifactory-demo")
    page.click("main button[type=submit]")
    page.goto(f"{live_server.url}{reverse('account_settings')}")
    assert page.get_attribute("html", "lang") == "en-gb"
    page.select_option("#id_language", "de")
    page.click("main form button[type=submit]")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto(f"{live_server.url}{reverse('proposals:list')}")
    assert page.get_attribute("html", "lang") == "de"
    context.close()


def test_copy_button_answers_in_german(browser, live_server, demo):
    """The portal text page's copy button: the script's answer is German for a German
    reader (the portal text it copies stays English)."""
    from proposals.models import Proposal

    proposal = Proposal.objects.filter(owner=demo).first()
    context = _context(browser, "de-DE")
    page = context.new_page()
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("#id_username", "demo")
    page.fill("#id_password", "aifactory-demo")
    page.click("main button[type=submit]")
    page.goto(
        f"{live_server.url}{reverse('proposals:export_portal', args=[proposal.pk])}"
    )
    page.locator("[data-copy-target]").first.click()
    expect(page.locator("#copy-status")).to_contain_text("Kopiert")
    context.close()


# Issue 36: pages that scrolled sideways at first sight. (url name, language, width)
WIDE_BEFORE = [
    ("proposals:step", "en-GB", 1366),  # AI for Science: the mode's name as a badge
    ("proposals:step", "de-DE", 390),
    ("proposals:compare_systems", "de-DE", 390),  # a hidden header left the scroller
    ("proposals:export_portal", "fr-FR", 390),  # the download buttons did not wrap
]


@pytest.mark.parametrize(("name", "locale", "width"), WIDE_BEFORE)
def test_first_sight_pages_fit_the_screen(
    browser, live_server, demo, artifacts, name, locale, width
):
    proposal = demo.proposals.order_by("pk")[2]
    proposal.call_family = "ai_for_science"
    proposal.organisation_kind = "university"
    proposal.save(update_fields=["call_family", "organisation_kind"])
    args = [proposal.pk, "selection"] if name == "proposals:step" else [proposal.pk]
    context = browser.new_context(
        locale=locale, viewport={"width": width, "height": 900}
    )
    page = context.new_page()
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("#id_username", "demo")
    page.fill("#id_password", "aifactory-demo")
    page.click("main button[type=submit]")
    page.goto(f"{live_server.url}{reverse(name, args=args)}")
    page.screenshot(
        path=artifacts / f"{locale}-{width}-{name.split(':')[1]}.png", full_page=True
    )
    assert _too_wide(page) == []
    context.close()
