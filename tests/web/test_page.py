"""The wizard page as one object (proposals/wizard/page.py): the step's templates read
``page`` and nothing else of the view's, and a part the page does not have fails the
render instead of showing nothing."""

import dataclasses
import re
from functools import cached_property
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.template.loader import get_template
from django.urls import reverse

from proposals.wizard.page import Page, UnknownPart
from proposals.wizard.regions import BadgesInputs, ProgressInputs
from tests.web.test_live import page_data
from tests.web.test_regions import template_reads

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}

#: The templates of the wizard's step page, the step templates and what they include.
WIZARD_TEMPLATES = [
    "proposals/wizard.html",
    *(f"proposals/steps/{slug}.html" for slug in ("organisation", "selection")),
    *(f"proposals/steps/{slug}.html" for slug in ("codes", "scalability")),
    *(f"proposals/steps/{slug}.html" for slug in ("optimisation", "review")),
    "proposals/_group.html",
    "proposals/_cell.html",
    "proposals/_field.html",
    "proposals/_gpu_unit.html",
    "proposals/_add_button.html",
    "proposals/_paste.html",
    "proposals/_logs.html",
    "proposals/_export_links.html",
    "proposals/_scaling_kit_link.html",
]
INCLUDE_ARGS = re.compile(r"\{% include [^%]*? with ([^%]*?)%\}")
BOUND_AS = re.compile(r"\bas (\w+)\s*%\}")


def _text(name: str) -> str:
    return Path(settings.BASE_DIR, "templates", name).read_text()


def test_the_wizard_templates_read_the_page_and_nothing_else():
    """Read from the templates themselves (every branch): a name a wizard template
    reads is ``page``, ``oob`` (how a part is sent), a name it binds itself
    (``as x``) or one an include gives it; the region partials of ``wizard.html``
    read their inputs."""
    given = {
        name
        for template in WIZARD_TEMPLATES
        for args in INCLUDE_ARGS.findall(_text(template))
        for name in re.findall(r"(\w+)=", args)
    }
    regions = {
        field.name
        for inputs in (BadgesInputs, ProgressInputs)
        for field in dataclasses.fields(inputs)
    }
    for name in WIZARD_TEMPLATES:
        reads = template_reads(get_template(name).template.nodelist)
        # ``compact``: a parameter of _field.html (the table cells' compact block).
        allowed = {"page", "oob", "compact", "True", "False"} | given | regions
        allowed |= set(BOUND_AS.findall(_text(name)))
        assert reads <= allowed, (name, reads - allowed)


@pytest.mark.parametrize("step", ["selection", "codes", "scalability", "review"])
def test_the_view_answers_with_the_page_alone(user_client, proposal, step):
    url = reverse("proposals:step", args=[proposal.pk, step])
    response = user_client.get(url)
    assert response.status_code == 200
    assert set(response.context_data) == {"page"}
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
    return Template(text).render(Context({"page": page}))


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
    """An AttributeError raised while computing a part goes through as it is: Django
    would show a missing variable as nothing."""
    page = _page(user_client, proposal)
    broken = Broken(page.proposal, page.step, page.forms, page.person)
    with pytest.raises(AttributeError, match="by_step"):
        _render("{{ page.findings.by_step }}", broken)
