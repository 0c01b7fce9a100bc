"""The wizard's step page is written in Jinja2 (proposals/jinja2/proposals/wizard/)
and writes what the Django templates it replaced wrote: the same elements,
attributes and text (as parsed HTML: whitespace, attribute order and the escaping
of quotes aside), for every step of the demo's proposals and of a blank one and
one with a value refused, to an editor and to a viewer, in English and in German,
and in a row operation's answer. The old templates are read from the commit before
the change (skipped where the checkout has no history), with the old tags over the
functions the page calls now (old_page_tags.py)."""

import re
from difflib import unified_diff

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.template import RequestContext
from django.test import Client
from django.test.html import parse_html
from django.urls import reverse
from django.utils import timezone, translation

from proposals import localization
from proposals.models import Membership, Proposal
from proposals.wizard.steps import STEPS
from tests.web.old_page_tags import engine_or_skip
from tests.web.test_live import page_data
from tests.web.test_regions import proposals  # noqa: F401

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def old_templates():
    return engine_or_skip()


def render_old(engine, response, name="proposals/wizard.html") -> str:
    """``name`` at BEFORE, with the page the view answered with, as it was
    rendered: the same request, language, number format and time zone."""
    request = response.wsgi_request
    page = response.context_data["page"]
    template = engine.get_template(name)
    zone = request._time_zone
    with (
        translation.override(request.LANGUAGE_CODE),
        localization.activated(fmt=request._number_format, zone=zone),
    ):
        return template.render(RequestContext(request, {"page": page}))


def normal(html: str) -> str:
    html = re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]*', r"\1", str(html))
    return re.sub(r'("X-CSRFToken": &quot;|"X-CSRFToken": ")\w+', r"\1", html)


def same(new: str, old: str, where: str):
    new_tree, old_tree = parse_html(normal(new)), parse_html(normal(old))
    if new_tree != old_tree:
        lines = [
            re.sub(r"><", ">\n<", str(tree)).splitlines()
            for tree in (old_tree, new_tree)
        ]
        diff = "\n".join(list(unified_diff(*lines, "old", "new", lineterm=""))[:60])
        pytest.fail(f"{where}:\n{diff}")


def _client(user, language) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _get(client, proposal, step, language):
    url = reverse("proposals:step", args=[proposal.pk, step])
    with translation.override(language):
        response = client.get(url)
    assert response.status_code == 200
    return response


@pytest.fixture
def readers(user, proposals):  # noqa: F811
    """The demo's proposals and the test's, with their owner and a viewer each."""
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    demo = get_user_model().objects.get(username="demo")
    viewer = get_user_model().objects.create_user("viewer", "viewer@example.eu")
    pairs = [(p, demo) for p in Proposal.objects.filter(owner=demo)]
    pairs += [(p, user) for p in proposals]
    for proposal, _owner in pairs:
        Membership.objects.create(
            proposal=proposal, user=viewer, role="viewer", since=timezone.now()
        )
    return pairs, viewer


@pytest.mark.parametrize("language", ["en", "de"])
def test_every_step_page_is_what_the_django_templates_wrote(
    readers, old_templates, language
):
    pairs, viewer = readers
    with translation.override(language):
        viewing = _client(viewer, language)
        for proposal, owner in pairs:
            editing = _client(owner, language)
            for step in STEPS:
                for who, client in (("editor", editing), ("viewer", viewing)):
                    response = _get(client, proposal, step.slug, language)
                    where = f"{proposal.title} / {step.slug} / {who} / {language}"
                    new = response.content.decode()
                    same(new, render_old(old_templates, response), where)


@pytest.mark.parametrize("step", ["codes", "scalability"])
def test_a_row_operations_answer_is_what_the_partial_wrote(
    user_client,
    proposals,  # noqa: F811
    old_templates,
    step,
):
    full = proposals[0]
    kind = "codes" if step == "codes" else "jobs"
    url = reverse("proposals:row", args=[full.pk, step, kind, "add"])
    response = user_client.post(url, page_data(full, step), headers=HX)
    assert response.status_code == 200
    old = render_old(old_templates, response, "proposals/wizard.html#row_op_response")
    same(response.content.decode(), old, f"row answer {step}")
