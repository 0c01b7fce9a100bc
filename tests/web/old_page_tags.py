"""The Django tags the wizard's templates loaded before the page moved to Jinja2
(``wizard_tags``, ``wizard_rows``, ``cutoff_tags``, ``planning_tags`` at 13a759e),
over the functions the Jinja2 page calls: the old templates, read from git, render
with them (test_wizard_page_engines.py), and the tests of the rows' and fields'
HTML write their old loops with them (test_wizard_tags.py, test_wizard_tables.py).
Each reads the template's context where the old tag did and passes its values on."""

import atexit
import io
import shutil
import subprocess
import tarfile
import tempfile
from functools import cache
from pathlib import Path

import pytest
from django import template
from django.template import Engine, engines
from django.template.backends.django import get_installed_libraries

from proposals.routing import cutoff_shown
from proposals.templatetags import planning_tags, wizard_page, wizard_rows
from proposals.templatetags.fragments import render_region
from proposals.templatetags.glossary_tags import term_link
from proposals.templatetags.wizard_tags import register as filters

#: The last commit with the wizard's page in Django templates.
BEFORE = "13a759e"
OLD_LIBRARIES = (
    "wizard_tags",
    "wizard_rows",
    "cutoff_tags",
    "planning_tags",
    "regions",
)

register = template.Library()
register.filters.update(filters.filters)
register.filter("is_checkbox", wizard_page.is_checkbox)
register.filter("is_radio", wizard_page.is_radio)
register.simple_tag(wizard_page.widget, name="widget")
register.simple_tag(wizard_page.table_room, name="table_room")
register.simple_tag(planning_tags.kit_counts, name="kit_counts")
register.simple_tag(planning_tags.kit_last, name="kit_last")


@register.filter
def bound(form, name):
    return form[name]


@register.filter
def row_prefix(row, kind):
    return f"{kind}-{row.pk}"


@register.simple_tag(takes_context=True)
def column_header(context, spec):
    class Tips:
        def __call__(self, slug, text):
            return term_link(context, slug, text)

    return wizard_page.column_header(context["page"], spec, Tips())


@register.simple_tag(takes_context=True)
def field_feedback(context, field, compact=False, oob=False):
    return wizard_page.field_feedback(context["page"], field, compact, oob)


@register.simple_tag(takes_context=True)
def field_history(context, field):
    return wizard_page.field_history(context["page"], field)


@register.simple_tag(takes_context=True)
def row_cells(context, form, specs):
    return wizard_page.row_cells(context["page"], form, specs)


@register.simple_tag(takes_context=True)
def row_feedback(context, form, specs):
    return wizard_page.row_feedback(context["page"], form, specs)


@register.simple_tag(takes_context=True)
def row_actions(context, kind, row, first=False, last=False):
    return wizard_page.row_actions(context["page"], kind, row, first, last)


@register.simple_tag(takes_context=True)
def form_errors(context, form):
    return wizard_page.form_errors(form, context.get("oob"))


@register.simple_tag(takes_context=True)
def wizard_field(context, field):
    return wizard_page.wizard_field(
        context["page"],
        field,
        context.get("addon"),
        context.get("compact"),
        context.get("oob"),
    )


@register.simple_tag(takes_context=True)
def table_rows(context, kind, computed="", empty=""):
    page = context["page"]
    return wizard_rows.table_rows(page, kind, computed, empty, context.get("oob"))


@register.simple_tag(takes_context=True)
def code_entries(context, summary="", empty=""):
    page = context["page"]
    return wizard_rows.code_entries(page, summary, empty, context.get("oob"))


@register.simple_tag(takes_context=True)
def region(context, region, oob=None):
    return render_region(region, context.get("oob") if oob is None else oob)


@register.inclusion_tag("proposals/_next_cutoff.html", takes_context=True)
def next_cutoff(context):
    proposal = context.get("proposal")
    return {"shown": cutoff_shown(proposal), "proposal": proposal}


@register.simple_tag(takes_context=True)
def last_paste_count(context, proposal, kind):
    return planning_tags.paste_count(context.get("request"), proposal, kind)


@register.simple_tag(takes_context=True)
def last_logs_count(context, proposal):
    return planning_tags.logs_count(context.get("request"), proposal)


@cache
def old_engine() -> Engine | None:
    """Django's engine over the templates at BEFORE (``None`` where the checkout has
    no history), with the old tags from this module."""
    archive = subprocess.run(
        ["git", "archive", BEFORE, "templates"], capture_output=True
    )
    if archive.returncode:
        return None
    root = Path(tempfile.mkdtemp(prefix="old-templates-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(root, filter="data")
    loaders = [
        "django.template.loaders.filesystem.Loader",
        "django.template.loaders.app_directories.Loader",
    ]
    return Engine(
        dirs=[str(root / "templates")],
        loaders=[
            (
                "template_partials.loader.Loader",
                [("django.template.loaders.cached.Loader", loaders)],
            )
        ],
        context_processors=engines["django"].engine.context_processors,
        libraries={
            **get_installed_libraries(),
            **dict.fromkeys(OLD_LIBRARIES, __name__),
        },
    )


def engine_or_skip() -> Engine:
    engine = old_engine()
    if engine is None:
        pytest.skip(f"no templates at {BEFORE} in this checkout")
    return engine


def old_template(source: str):
    """``Template(source)`` with the old tags and the old templates to include."""
    return engine_or_skip().from_string(source)
