"""Every page besides the wizard steps, as each kind of user sees it: no serious or
critical accessibility violation (axe-core), and a screenshot to look at."""

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page

from proposals import services
from proposals.models import Proposal, ReviewState
from proposals.selectors import proposal_with_children


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def log_in(page: Page, base: str, username: str, password: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


@pytest.fixture
def submitted(e2e_catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    proposal = proposal_with_children(
        Proposal.objects.filter(title__contains="paper mills")
    ).get()
    services.review_submit(proposal=proposal, user=proposal.owner, note="Please look")
    # A staff comment with a reply, so that threads and their Reply forms are shown.
    staff = User.objects.get(username="staff")
    question = services.comment_add(
        proposal=proposal, author=staff, section="scalability", body="Which GPUs?"
    )
    services.comment_add(
        proposal=proposal,
        author=proposal.owner,
        section="scalability",
        body="MI250X, 8 GCDs per node.",
        parent=question,
    )
    # An edit since revision 1, so that the diff page shows deleted and inserted
    # text (their colours must keep a 4.5:1 contrast).
    Proposal.objects.filter(pk=proposal.pk).update(
        organisation_name="Renamed Research Oy"
    )
    # One proposal waiting longer than its call's typical response time (highlighted).
    ReviewState.objects.filter(proposal__title__startswith="Visual inspection").update(
        submitted_at=timezone.now() - timedelta(days=14)
    )
    return proposal


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
# A laptop and a phone: the pages are checked at both widths.
WIDTHS = {"laptop": 1366, "phone": 390}


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize(
    ("role", "name"),
    [(role, name) for role, pages in PAGES.items() for name, _ in pages],
)
def test_page_is_accessible(
    page: Page, live_server, submitted, artifacts, role, name, width
):
    url = dict(PAGES[role])[name](submitted)
    page.set_viewport_size({"width": WIDTHS[width], "height": 900})
    if role in LOGINS:
        log_in(page, live_server.url, *LOGINS[role])
    response = page.goto(f"{live_server.url}{url}")
    assert response.status == 200
    page.screenshot(path=artifacts / f"page-{role}-{name}-{width}.png", full_page=True)
    assert serious_violations(page) == []


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("name", ["login", "signup"])
def test_account_pages_are_accessible(
    page: Page, live_server, e2e_catalogue, name, width
):
    page.set_viewport_size({"width": WIDTHS[width], "height": 900})
    page.goto(f"{live_server.url}{reverse(name)}")
    assert serious_violations(page) == []
