"""A viewer's wizard is the proposal to read: every step shows its values in inputs
that take no typing, with nothing that saves (no autosave form, no row, paste,
log or import buttons, no Save, no "Send for review"), a banner that says why and
whom to ask, the steps linked, the comments and the exports kept."""

import pytest
from django.urls import reverse

from proposals.domain.sections import STEP_SLUGS
from proposals.models import ReviewComment
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)
from tests.web.team_visitors import Page, member

pytestmark = pytest.mark.django_db

TYPED = ("input", "select", "textarea")


@pytest.fixture
def full(proposal, user):
    """A proposal with a row in every table (LUMI-G: a GPU unit to choose)."""
    user.first_name, user.last_name = "Olga", "Owner"
    user.save()
    code = CodeEntryFactory(proposal=proposal, position=0)
    CodeEntryFactory(proposal=proposal, position=1, name="Evaluation")
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=4)
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=8)
    JobTypeFactory(proposal=proposal)
    UsageMonthFactory(proposal=proposal)
    return proposal


def _page(client, proposal, step):
    response = client.get(reverse("proposals:step", args=[proposal.pk, step]))
    assert response.status_code == 200, step
    return response, Page(response.text)


def _editing_urls(proposal) -> dict[str, str]:
    """The pages that change the proposal (a viewer's page links to none)."""
    pk = proposal.pk
    urls = {
        name: reverse(f"proposals:{name}", args=[pk])
        for name in (
            "review_send",
            "import_json_revision",
            "logs",
            "duplicate",
            "delete",
            "archive",
            "retarget_copy",
        )
    }
    for kind in ("measurements", "jobs", "schedule"):
        urls[f"paste {kind}"] = reverse("proposals:paste", args=[pk, kind])
    return urls


@pytest.mark.parametrize("step", STEP_SLUGS)
def test_a_viewer_reads_every_step_and_can_change_nothing(client, full, step):
    viewer = member(full, "viewer")
    client.force_login(viewer)
    response, page = _page(client, full, step)
    text = response.text

    # Why, and whom to ask.
    banner = page.find(data_testid="viewer-banner")
    assert banner and "Olga Owner" in "".join(banner[0].text)
    assert "You are a viewer of this proposal" in text

    # The step: its values in inputs that take no typing, nothing that saves.
    [step_box] = page.find(id="wizard-form")
    assert step_box.tag != "form"
    inside = page.within(step_box)
    assert not [e for e in inside if e.tag in ("form", "button")]
    typed = [e for e in inside if e.tag in TYPED]
    assert all(e.has("readonly") or e.has("disabled") for e in typed), [
        e for e in typed if not (e.has("readonly") or e.has("disabled"))
    ]
    assert not [e for e in typed if e.attrs.get("type") == "hidden"]
    if step != "review":
        assert typed, "the step shows its values"
    assert page.find(id="save-status") == [] and "All changes saved" not in text

    # Posts: the comments and signing out only.
    allowed = {reverse("proposals:review_comment", args=[full.pk]), reverse("logout")}
    assert page.posts() <= allowed, page.posts() - allowed
    assert not page.find(data_autosave="")
    links = page.links()
    for name, url in _editing_urls(full).items():
        assert not any(link.split("?")[0] == url for link in links), name

    # Between steps: links.
    index = STEP_SLUGS.index(step)
    for neighbour in STEP_SLUGS[max(index - 1, 0) : index + 2]:
        if neighbour != step:
            url = reverse("proposals:step", args=[full.pk, neighbour])
            assert f"{url}?from={step}" in links, neighbour

    # The exports stay.
    assert reverse("proposals:export_portal", args=[full.pk]) in links
    assert reverse("proposals:export_pdf", args=[full.pk]) in links


def test_the_owner_and_an_editor_keep_every_control(client, full):
    """The same pages for those who may edit: the autosave form, its buttons, the
    row, paste and log controls, "Send for review", no banner."""
    for person in (full.owner, member(full, "editor")):
        client.force_login(person)
        response, page = _page(client, full, "scalability")
        [form] = page.find(id="wizard-form")
        assert form.tag == "form" and form.has("data-autosave")
        assert not page.find(data_testid="viewer-banner")
        assert page.find(data_testid="add-jobs")
        assert page.find(data_testid="paste-jobs")
        assert page.find(data_testid="logs")
        assert any("/rows/jobs/" in url for url in page.posts())
        assert not [
            e for e in page.within(form) if e.tag in TYPED and e.has("readonly")
        ]
        assert reverse("proposals:review_send", args=[full.pk]) in page.links()


def test_a_viewer_reads_the_review_page_and_comments(client, full, user):
    viewer = member(full, "viewer")
    client.force_login(viewer)
    url = reverse("proposals:review_status", args=[full.pk])
    page = Page(client.get(url).text)
    assert reverse("proposals:review_send", args=[full.pk]) not in page.links()
    comment_url = reverse("proposals:review_comment", args=[full.pk])
    assert comment_url in page.posts()
    response = client.post(comment_url, {"section": "selection", "body": "A question"})
    assert response.status_code == 302
    assert ReviewComment.objects.get(proposal=full).author == viewer
    # The owner still has the button.
    client.force_login(user)
    assert (
        reverse("proposals:review_send", args=[full.pk])
        in Page(client.get(url).text).links()
    )


def test_a_viewer_compares_systems_without_copy_buttons(client, full):
    client.force_login(member(full, "viewer"))
    url = reverse("proposals:compare_systems", args=[full.pk])
    page = Page(client.get(url).text)
    assert page.find(data_testid="systems-table")
    assert reverse("proposals:retarget_copy", args=[full.pk]) not in page.posts()
    client.force_login(full.owner)
    page = Page(client.get(url).text)
    assert reverse("proposals:retarget_copy", args=[full.pk]) in page.posts()


@pytest.mark.parametrize(
    ("language", "words"),
    [("de", "Sie sind Lesende(r) dieses Antrags"), ("fr", "Vous êtes lecteur")],
)
def test_the_banner_is_in_the_readers_language(client, full, language, words):
    client.force_login(member(full, "viewer"))
    url = reverse("proposals:step", args=[full.pk, "organisation"])
    response = client.get(url, headers={"Accept-Language": language})
    page = Page(response.text)
    [banner] = page.find(data_testid="viewer-banner")
    assert words in "".join(banner.text) and "Olga Owner" in "".join(banner.text)
