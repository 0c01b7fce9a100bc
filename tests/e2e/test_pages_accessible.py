"""Every page besides the wizard steps (tests/e2e/test_layout.py walks those), as
each kind of user sees it on a laptop and on a phone: it answers 200, no serious or
critical accessibility violation (axe-core), nothing scrolls sideways or is cut off,
the browser logs no error or warning, and a screenshot to look at. One walk per kind
of user and width: a failing page is named in the failure, with every other page's
problems beside it."""

import pytest
from django.urls import reverse
from playwright.sync_api import Page

from tests.e2e.page_checks import WIDTHS, Console, check_page, log_in

PAGES = {
    "applicant": [
        ("proposals", lambda p: reverse("proposals:list")),
        ("new", lambda p: reverse("proposals:create")),
        ("portal-text", lambda p: reverse("proposals:export_portal", args=[p.pk])),
        (
            "markdown-view",
            lambda p: reverse("proposals:export_markdown_view", args=[p.pk]),
        ),
        # Redirects to the PDF's progress page (no worker runs here).
        ("pdf-progress", lambda p: reverse("proposals:export_pdf", args=[p.pk])),
        ("import", lambda p: reverse("proposals:import_json")),
        ("review-status", lambda p: reverse("proposals:review_status", args=[p.pk])),
        ("rules", lambda p: reverse("proposals:rules")),
        ("glossary", lambda p: reverse("proposals:glossary")),
        ("guide", lambda p: reverse("proposals:guide")),
        ("settings", lambda p: reverse("account_settings")),
        ("delete-account", lambda p: reverse("account_delete")),
    ],
    "anonymous": [
        ("landing", lambda p: reverse("home")),
        ("login", lambda p: reverse("login")),
        ("signup", lambda p: reverse("signup")),
        ("glossary", lambda p: reverse("proposals:glossary")),
        ("privacy", lambda p: reverse("privacy")),
        ("accessibility", lambda p: reverse("accessibility")),
    ],
    "staff": [
        ("queue", lambda p: reverse("proposals:review_queue")),
        ("queue-mine", lambda p: reverse("proposals:review_queue") + "?handler=mine"),
        (
            "queue-all-late-bad-filter",
            lambda p: (
                reverse("proposals:review_queue")
                + "?show=all&late=on&status=submitted&status=ready&tier=gigantic"
            ),
        ),
        ("staff-review", lambda p: reverse("proposals:staff_review", args=[p.pk])),
        (
            "staff-review-r1",
            lambda p: reverse("proposals:staff_review", args=[p.pk]) + "?revision=1",
        ),
        (
            "staff-diff",
            lambda p: reverse("proposals:staff_diff", args=[p.pk]) + "?a=1&b=current",
        ),
        (
            "staff-portal-text",
            lambda p: reverse("proposals:export_portal", args=[p.pk]) + "?revision=1",
        ),
        ("staff-settings", lambda p: reverse("account_settings")),
        ("two-factor-setup", lambda p: reverse("two_factor_setup")),
    ],
}
LOGINS = {
    "applicant": ("demo", "aifactory-demo"),
    "staff": ("staff", "aifactory-staff"),
}


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("role", list(PAGES))
def test_every_page_fits_and_is_accessible(
    page: Page, live_server, submitted, artifacts, role, width
):
    console = Console(page)
    page.set_viewport_size({"width": WIDTHS[width], "height": 900})
    if role in LOGINS:
        log_in(page, live_server.url, *LOGINS[role])
    problems: list[str] = []
    for name, url in PAGES[role]:
        response = page.goto(f"{live_server.url}{url(submitted)}")
        if response.status != 200:
            problems.append(f"{name}: answered {response.status}")
            continue
        check_page(page, artifacts, f"{width}-{role}-{name}", problems)
    assert problems == [], "\n".join(problems)
    assert console.messages == []
