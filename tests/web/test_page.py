"""The wizard page as one object (proposals/wizard/page.py): the page's Jinja2
templates read ``page`` and nothing else of the view's, and a part the page does not
have, or a name the templates do not have, fails the render instead of showing
nothing (the environment's undefined is strict)."""

import re
from functools import cached_property
from pathlib import Path

import pytest
from django.conf import settings
from django.template import engines
from django.urls import reverse
from jinja2 import StrictUndefined, UndefinedError, meta

from proposals.wizard.page import Page, UnknownPart
from tests.web.test_live import page_data

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}

#: The wizard page's templates: the page, its form, the steps, the answers, and
#: the macros they import.
WIZARD = Path(settings.BASE_DIR, "proposals", "jinja2", "proposals", "wizard")
#: What Django's Jinja2 backend adds to the context the view gives.
BACKEND = {"request", "csrf_input", "csrf_token"}
BOUND = re.compile(r"\{%-?\s*set (\w+)")
IMPORTED = re.compile(r"\{%-? from \S+ import ([\w, ]+?)\s*-?%\}")


def _env():
    return engines["jinja2"].env


def test_the_wizard_templates_read_the_page_and_nothing_else():
    """Read from the templates themselves (every branch, Jinja2's own analysis): a
    name a wizard template reads is ``page``, what the backend adds (the request,
    the CSRF input), one of the environment's globals, or one the template binds
    itself (Jinja2's analysis counts a name set in a branch, or imported above a
    block, as read); a macro reads its arguments."""
    env = _env()
    templates = sorted(WIZARD.rglob("*.html"))
    assert {p.name for p in templates} >= {"page.html", "step_form.html", "rows.html"}
    for path in templates:
        text = path.read_text()
        reads = meta.find_undeclared_variables(env.parse(text))
        bound = set(BOUND.findall(text)) | {"_trans"}  # _trans: {% trans x=f() %}
        for names in IMPORTED.findall(text):
            bound |= {name.strip() for name in names.split(",")}
        unknown = reads - {"page"} - BACKEND - set(env.globals) - bound
        assert not unknown, (path.name, unknown)
    assert env.undefined is StrictUndefined


def test_a_name_the_templates_do_not_have_fails_the_render(user_client, proposal):
    page = _page(user_client, proposal)
    form = _env().get_template("proposals/wizard/step_form.html")
    with pytest.raises(UndefinedError):  # the CSRF input is the backend's
        form.render({"page": page})
    with pytest.raises(UndefinedError):
        _render("{{ findings_by_step }}", page)  # a name of the old context
    assert "wizard-form" in form.render({"page": page, "csrf_input": ""})


@pytest.mark.parametrize("step", ["selection", "codes", "scalability", "review"])
def test_the_view_answers_with_the_page_alone(user_client, proposal, step):
    url = reverse("proposals:step", args=[proposal.pk, step])
    response = user_client.get(url)
    assert response.status_code == 200
    # A Jinja2 page: Django's Jinja2 backend adds the request and its CSRF token
    # to the context it is given; the view gives the page alone.
    assert set(response.context_data) - BACKEND == {"page"}
    assert isinstance(response.context_data["page"], Page)
    autosave = user_client.post(url, page_data(proposal, step), headers=HX)
    assert autosave.status_code == 200
    # The answer is a Jinja2 template: Django's Jinja2 backend adds the request and
    # its CSRF token to the context it is given; the view gives the page alone.
    given = set(autosave.context_data) - {"request", "csrf_input", "csrf_token"}
    assert given == {"page"}


def _page(client, proposal) -> Page:
    url = reverse("proposals:step", args=[proposal.pk, "selection"])
    return client.get(url).context_data["page"]


def _render(text: str, page) -> str:
    return _env().from_string(text).render(page=page)


def test_a_part_the_page_does_not_have_fails_the_render(user_client, proposal):
    page = _page(user_client, proposal)
    with pytest.raises(UnknownPart):
        _render("{{ page.no_such_part }}", page)
    with pytest.raises(UnknownPart):  # misspelt: ``conflicts``
        _render("{% if page.conflict %}x{% endif %}", page)
    with pytest.raises(UnknownPart):
        _render("{{ page.findings_by_step }}", page)  # a name of the old context
    with pytest.raises(UnknownPart):
        page.answer(conflict=[])
    # The parts a GET has no answer for are declared, and empty.
    assert _render("[{{ page.focus }}|{{ page.conflicts|length }}]", page) == "[|0]"
    assert _render("{{ page.step.slug }} {{ page.can_edit }}", page) == (
        "selection True"
    )


class Broken(Page):
    @cached_property
    def findings(self):
        return None.by_step  # an AttributeError inside a part


def test_a_part_that_fails_is_not_taken_for_a_missing_one(user_client, proposal):
    """An AttributeError raised while computing a part fails the render (Django
    would show a missing variable as nothing; Jinja2 takes the part for a missing
    one, which its strict undefined refuses)."""
    page = _page(user_client, proposal)
    broken = Broken(page.proposal, page.step, page.forms, page.person)
    with pytest.raises(AttributeError, match="by_step"):
        broken.findings  # noqa: B018
    with pytest.raises(UndefinedError, match="findings"):
        _render("{{ page.findings.by_step }}", broken)
