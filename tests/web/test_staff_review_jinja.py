"""The staff review page in Jinja2 (issue 34: its time) writes what the Django
page it replaced wrote: the same elements, attributes and text (as parsed HTML),
for a proposal with threads, internal notes, assessments and history, handled by
the reader, by a colleague and by nobody, a revision shown, a refused assessment, a
canned reply inserted, an ended and a deleted proposal, in English and in German.
The old templates are read from the commit before the change (skipped where the
checkout has no history) and rendered with the same view's context."""

import re
import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.template.backends.django import DjangoTemplates, get_installed_libraries
from django.test import RequestFactory
from django.utils import timezone, translation

from proposals import services
from proposals.domain import technical_review
from proposals.domain.team import organisation_key
from proposals.models import Proposal, StaffConflict
from proposals.routing import cutoff_shown
from proposals.views import staff as staff_views
from tests.factories import StaffUserFactory
from tests.web.old_page_tags import OLD_LIBRARIES
from tests.web.test_wizard_tags import _same

pytestmark = pytest.mark.django_db

#: The request's CSRF token, masked afresh each time it is written (by either engine).
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"|"X-CSRFToken": "[^"]*"')
#: The last commit with the page in Django templates.
BEFORE = "13a759e"


@pytest.fixture(scope="module")
def old_engine(tmp_path_factory) -> DjangoTemplates:
    """Django's engine over the templates as they were at ``BEFORE``; the sidebar's
    next cut-off is the old block too (its tag now writes the Jinja2 macro)."""
    archive = subprocess.run(
        ["git", "archive", BEFORE, "templates"], capture_output=True, check=False
    )
    if archive.returncode:
        pytest.skip(f"no {BEFORE} in this checkout")
    root = tmp_path_factory.mktemp("old")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(root, filter="data")
    sidebar = root / "templates/proposals/_sidebar.html"
    sidebar.write_text(
        sidebar.read_text().replace(
            "{% next_cutoff %}",
            '{% include "proposals/_next_cutoff.html" with shown=old_cutoff %}',
        )
    )
    (engine,) = [e for e in settings.TEMPLATES if e["BACKEND"].endswith("Django")] or [
        settings.TEMPLATES[0]
    ]
    return DjangoTemplates(
        {
            "NAME": "old",
            "DIRS": [Path(root) / "templates"],
            "APP_DIRS": False,
            # The tags the old templates load, over today's functions (the wizard's
            # page moved to Jinja2 too: tests/web/old_page_tags.py).
            "OPTIONS": {
                **engine["OPTIONS"],
                "libraries": {
                    **get_installed_libraries(),
                    **dict.fromkeys(OLD_LIBRARIES, "tests.web.old_page_tags"),
                },
            },
        }
    )


def _request(user, method="get", data=None, path="/"):
    request = getattr(RequestFactory(), method)(path, data or {})
    request.user = user
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def compare(old_engine, response, request, **extra):
    """The new page (``response``, not rendered yet) and the old templates with its
    context, compared as parsed HTML."""
    assert response.status_code in (200, 422)
    response.context_data.update(extra)
    context = dict(response.context_data)
    context["old_cutoff"] = cutoff_shown(context["proposal"])
    new = response.render().content.decode()
    old = old_engine.get_template("proposals/staff_review.html").render(
        context, request
    )
    assert "<h1" in new and new.count("</html>") == 1
    _same(TOKEN.sub("", new), TOKEN.sub("", old))
    return new


def page(old_engine, staff, proposal, *, language="en", query=None, **extra):
    with translation.override(language):
        request = _request(staff, data=query)
        response = staff_views.staff_review(request, pk=proposal.pk)
        return compare(old_engine, response, request, **extra)


@pytest.fixture
def discussed(submitted, user, staff_user):
    """Revision 1 handled by ``staff_user``: threads with replies and an internal
    note, an assessment with conditions, changes asked for, revision 2 sent."""
    proposal = submitted
    services.review_assign(proposal=proposal, user=staff_user, to=staff_user)
    question = services.comment_add(
        proposal=proposal,
        author=staff_user,
        section="general",
        body="Why <this>?\nSay.",
    )
    services.comment_add(
        proposal=proposal, author=user, section="general", body="So.", parent=question
    )
    services.comment_add(
        proposal=proposal,
        author=staff_user,
        section="scalability",
        body="Between us.",
        staff_only=True,
    )
    latest = proposal.review_state.latest_revision
    services.review_assess(
        proposal=proposal,
        user=staff_user,
        revision=latest,
        outcome=next(iter(technical_review.OUTCOMES)),
        items=technical_review.own_conditions(["Report the speedup & efficiency."]),
        text="Fine\nmostly.",
        request_changes=False,
    )
    services.review_set_status(
        proposal=proposal,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="One <thing>.",
    )
    services.review_submit(proposal=proposal, user=user, unchanged_ok=True)
    Proposal.objects.filter(pk=proposal.pk).update(organisation_name="Changed & Co")
    proposal.refresh_from_db()
    return proposal


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_discussed_proposal_handled_by_the_reader(
    old_engine, discussed, staff_user, language
):
    html = page(old_engine, staff_user, discussed, language=language)
    assert "Between us." in html and 'data-testid="assessment-r1"' in html
    # The history's revision and author are two words apart, not run together
    # ("(revision 1)by staff" before).
    history = html.split('data-testid="status-history"')[1].split("</ol>")[0]
    spans = re.findall(r"</span>(\s*)<span", history)
    assert spans and all(gap for gap in spans), history
    # The token masked once for the page's forms and once for the frame's, not
    # afresh for each of the page's dozen forms (each masking costs 32 draws).
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]*)"', html)
    assert len(tokens) > 10 and len(set(tokens)) <= 2


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_revision_shown_handled_by_a_colleague(
    old_engine, discussed, staff_user, language
):
    colleague = StaffUserFactory(username="colleague")
    conflicted = StaffUserFactory(username="conflicted")
    StaffConflict.objects.create(
        user=conflicted,
        key=organisation_key(discussed.organisation_name),
        organisation=discussed.organisation_name,
        declared_at=timezone.now(),
    )
    services.review_assign(proposal=discussed, user=staff_user, to=colleague)
    html = page(
        old_engine, staff_user, discussed, language=language, query={"revision": "1"}
    )
    assert 'data-testid="shown-revision"' in html


def test_an_unhandled_proposal_with_a_canned_reply_inserted(
    old_engine, submitted, staff_user
):
    prefill = {"section": "general", "body": "Dear <you>", "field": "", "problem": "x"}
    html = page(old_engine, staff_user, submitted, prefill=prefill)
    assert "Dear &lt;you&gt;" in html


def test_a_refused_assessment(old_engine, discussed, staff_user):
    data = {"outcome": "", "text": "x" * 5000, "own_condition": ["y" * 600]}
    request = _request(staff_user, "post", data)
    response = staff_views.staff_assess(request, pk=discussed.pk)
    assert response.status_code == 422
    html = compare(old_engine, response, request)
    assert 'id="assessment-problems"' in html


def test_an_ended_and_deleted_proposal(old_engine, discussed, staff_user):
    services.review_set_status(
        proposal=discussed,
        user=staff_user,
        to_status=Proposal.Status.CLOSED,
        note="No.",
    )
    Proposal.objects.filter(pk=discussed.pk).update(deleted_at=timezone.now())
    html = page(old_engine, staff_user, discussed, language="de")
    assert 'data-testid="ended"' in html and 'data-testid="deleted"' in html
