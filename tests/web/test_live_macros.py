"""The live regions' Jinja2 macros (proposals/jinja2/proposals/live/) write what the
Django partials they replaced wrote: the same elements, attributes and text (as
parsed HTML), in English and in German, for the regions of a full proposal, a blank
one, one with a value refused, and the staff page's. The old partials are read from
the commit before the change (skipped where the checkout has no history)."""

import subprocess
from types import SimpleNamespace

import pytest
from django.template import Context, Engine
from django.template.backends.django import get_installed_libraries
from django.test import Client
from django.urls import reverse
from django.utils import translation

from proposals.templatetags import fragments
from proposals.wizard.regions import (
    BadgesInputs,
    Region,
    finding_links,
    presence_region,
)
from proposals.wizard.steps import STEPS
from tests.web.test_regions import page_regions, proposals, staff_regions  # noqa: F401
from tests.web.test_wizard_tags import _same

pytestmark = pytest.mark.django_db
#: The tags the old partials load (cutoff_tags is gone: live/aside.html).
OLD_TAGS = "tests.web.old_page_tags"

#: The last commit with the regions as Django partials.
BEFORE = "fff6bfa9cdc88d0be2c7848d74f7a5760fd28aba"

SIDEBAR = "templates/proposals/_sidebar.html"
WIZARD = "templates/proposals/wizard.html"
#: Each macro's old template: its file and, for a partial, the partial's name.
OLD = {
    "proposals/live/sidebar.html#tier": (SIDEBAR, "tier"),
    "proposals/live/sidebar.html#totals": (SIDEBAR, "totals"),
    "proposals/live/sidebar.html#findings": (SIDEBAR, "findings"),
    "proposals/live/sidebar.html#chart": (SIDEBAR, "chart"),
    "proposals/live/sidebar.html#energy": (SIDEBAR, "energy"),
    "proposals/live/sidebar.html#compute": (
        "templates/proposals/_compute_estimate.html",
        None,
    ),
    "proposals/live/sidebar.html#calendar": (
        "templates/proposals/_calendar.html",
        None,
    ),
    "proposals/live/bar.html#live_bar": ("templates/proposals/_live_bar.html", None),
    "proposals/live/wizard.html#step_badges": (WIZARD, "step_badges"),
    "proposals/live/wizard.html#progress_summary": (WIZARD, "progress_summary"),
    "proposals/live/wizard.html#presence": (
        "templates/proposals/regions/presence.html",
        None,
    ),
    "proposals/live/wizard.html#review_panel": (
        "templates/proposals/review_wizard_panel.html",
        None,
    ),
    "proposals/live/totals.html#jobs_total": (
        "templates/proposals/_jobs_total.html",
        None,
    ),
    "proposals/live/totals.html#schedule_total": (
        "templates/proposals/_schedule_total.html",
        None,
    ),
}


def old_source(path: str) -> str:
    shown = subprocess.run(
        ["git", "show", f"{BEFORE}:{path}"], capture_output=True, text=True
    )
    if shown.returncode:
        pytest.skip(f"no {path} at {BEFORE} in this checkout")
    return shown.stdout


def old_template(template: str) -> str:
    """The old partial as a template of its own: its file's loads, its
    ``partialdef`` and the partial rendered."""
    path, partial = OLD[template]
    source = old_source(path)
    if partial is None:
        return source
    loads = "{% load i18n wizard_tags partials cutoff_tags %}"
    start = source.index(f"{{% partialdef {partial} %}}")
    end = source.index(f"{{% endpartialdef {partial} %}}")
    body = source[start:end] + f"{{% endpartialdef {partial} %}}"
    return f"{loads}{body}{{% partial {partial} %}}"


def _badges(state, refused, counts) -> Region:
    return Region(
        "badges-codes",
        "proposals/live/wizard.html#step_badges",
        BadgesInputs("codes", state, refused, counts),
    )


#: Branches the test's pages do not take: others on the proposal, a step complete,
#: one not started with things to do.
BRANCHES = [
    presence_region(
        [
            SimpleNamespace(name="Ann <b>", step="codes"),
            SimpleNamespace(name="Bo", step="scalability"),
        ],
        STEPS,
        "scalability",
    ),
    _badges(SimpleNamespace(complete=True, started=True), 0, {"error": 0}),
    _badges(SimpleNamespace(complete=False, started=False), 2, {"todo": 3}),
    _badges(None, 1, {"error": 2, "warning": 1, "todo": 1}),
]


def render_old(template: str, region, oob: bool) -> str:
    values = {**region.context(), "oob": oob}
    source = old_template(template)
    if "{% finding_items findings %}" in source:
        # The list's items: the rows' macro (compared with the old loop in
        # test_wizard_tables.py), with the links the old tag made.
        inputs = region.inputs
        items = finding_links(
            inputs.findings,
            inputs.staff_view,
            inputs.proposal.pk,
            inputs.request_base,
            inputs.step,
        )
        values["old_items"] = fragments.fragment("finding_items")(items)
        source = source.replace("{% finding_items findings %}", "{{ old_items }}")
    if "{% scaling_rows scaling_points %}" in source:
        values["old_rows"] = fragments.fragment("scaling_rows")(
            region.inputs.scaling_points
        )
        source = source.replace("{% scaling_rows scaling_points %}", "{{ old_rows }}")
    engine = Engine(
        libraries={**get_installed_libraries(), "cutoff_tags": OLD_TAGS},
        debug=False,
        string_if_invalid="",
    )
    request = SimpleNamespace(resolver_match=None)
    return engine.from_string(source).render(Context({**values, "request": request}))


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_macros_write_what_the_partials_wrote(
    user_client,
    proposals,  # noqa: F811
    staff_user,
    language,
):
    every = [r for p in proposals for r in page_regions(user_client, p)]
    response = user_client.get(
        reverse("proposals:step", args=[proposals[0].pk, "scalability"])
    )
    every += response.context["page"].row_regions
    staff = Client()
    staff.force_login(staff_user)
    every += staff_regions(staff, proposals[0]) + BRANCHES
    compared = set()
    with translation.override(language):
        for region in every:
            if region.template not in OLD:
                continue  # the rows' macros: test_wizard_tags.py
            for oob in (False, True):
                new = fragments.macro(region.template)(**region.context(), oob=oob)
                _same(new, render_old(region.template, region, oob))
            compared.add(region.template)
    assert compared == set(OLD)
