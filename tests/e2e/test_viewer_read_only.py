"""A viewer goes through every step of a proposal shared with them and tries every
control: each input, choice and checkbox takes no typing, nothing is posted and
nothing says Saved; Previous and Next still move between the steps, the comments
still take a question. At a phone's width (390 px), screenshot in test-artifacts/
(viewer-390-<step>.png)."""

from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from proposals.domain.sections import STEP_SLUGS
from proposals.models import Membership, ReviewComment
from tests.e2e.page_checks import serious_violations
from tests.e2e.test_applicant_path import assert_fits
from tests.e2e.test_input_trust import log_in
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
    UserFactory,
)
from tests.web.team_visitors import proposal_data

PHONE = {"width": 390, "height": 844}
CONTROLS = "#wizard-form input, #wizard-form select, #wizard-form textarea"


def test_a_viewer_tries_every_control_and_changes_nothing(
    browser, live_server, e2e_catalogue, artifacts
):
    owner = UserFactory(first_name="Olga", last_name="Owner")
    proposal = ProposalFactory(owner=owner, title="Shared with a viewer")
    code = CodeEntryFactory(proposal=proposal, position=0)
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=4)
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=8)
    JobTypeFactory(proposal=proposal)
    UsageMonthFactory(proposal=proposal)
    viewer = UserFactory()
    Membership.objects.create(
        proposal=proposal, user=viewer, role="viewer", since=timezone.now()
    )
    before = proposal_data(proposal.pk)

    context = browser.new_context(locale="en-US", viewport=PHONE)
    page = context.new_page()
    log_in(page, live_server.url, viewer.username)
    posts = []
    page.on("request", lambda r: r.method != "GET" and posts.append(r.url))

    page.goto(f"{live_server.url}{reverse('proposals:detail', args=[proposal.pk])}")
    for index, step in enumerate(STEP_SLUGS):
        page.wait_for_url(f"**/proposals/{proposal.pk}/{step}/**")
        expect(page.get_by_test_id("viewer-banner")).to_contain_text("Olga Owner")
        expect(page.locator("#wizard-form button")).to_have_count(0)
        expect(page.locator("form[data-autosave]")).to_have_count(0)
        # Open whatever is folded (the model's compute inputs, the plan).
        for summary in page.locator("#wizard-form details:not([open]) > summary").all():
            summary.click()
        controls = page.locator(CONTROLS).all()
        if step != "review":
            assert controls, step
        for control in controls:
            assert not control.is_editable(), control.evaluate("e => e.outerHTML")
            shown = control.input_value() if _has_value(control) else None
            checked = _checked(control)
            # As a person would: a click on it, then typing into it.
            control.evaluate("e => e.scrollIntoView({block: 'center'})")
            box = control.bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            control.focus()
            page.keyboard.type("9")
            page.keyboard.press("Enter")
            page.keyboard.press("Space")
            if shown is not None:
                assert control.input_value() == shown
            assert _checked(control) == checked
        page.wait_for_timeout(400)  # longer than the autosave's 200 ms wait
        expect(page.locator("#save-status")).to_have_count(0)
        expect(page.get_by_text("Saved", exact=True)).to_have_count(0)
        assert posts == [], posts
        assert page.url.rstrip("/").endswith(step) or f"/{step}/" in page.url
        assert_fits(page, "main a, main input, main textarea, main select")
        page.screenshot(path=artifacts / f"viewer-390-{step}.png", full_page=True)
        assert serious_violations(page) == [], step
        if index + 1 < len(STEP_SLUGS):
            page.locator(".wizard-nav a.btn-primary").click()

    # The exports open; the comments take a question.
    page.get_by_role("link", name="Portal text").first.click()
    page.wait_for_url("**/export/**")
    page.goto(
        f"{live_server.url}{reverse('proposals:review_status', args=[proposal.pk])}"
    )
    expect(page.get_by_role("link", name="Send for review")).to_have_count(0)
    section = page.get_by_test_id("comments-selection")
    section.locator("summary").click()
    section.locator("textarea[name=body]").fill("Which partition is this for?")
    section.get_by_role("button", name="Add comment").click()
    expect(page.get_by_test_id("comments-selection")).to_contain_text(
        "Which partition is this for?"
    )
    assert ReviewComment.objects.get(proposal=proposal).author == viewer
    assert proposal_data(proposal.pk) == before
    context.close()


def _has_value(control) -> bool:
    return control.evaluate("e => e.type !== 'checkbox' && e.type !== 'radio'")


def _checked(control):
    return control.evaluate("e => e.checked === undefined ? null : e.checked")
