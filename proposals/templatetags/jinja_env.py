"""The Jinja2 environment of the ``jinja2`` template engine (``TEMPLATES`` in
settings): the macros' (``fragments.environment``) with the functions the wizard's
step page calls (``wizard_page``, ``wizard_rows``), kept apart so that the modules
the macros need do not import the page's."""

from jinja2 import Environment

from proposals.templatetags import fragments, wizard_page, wizard_rows


def environment(**options) -> Environment:
    env = fragments.environment(**options)
    env.globals.update(
        wizard_page.GLOBALS,
        table_rows=wizard_rows.table_rows,
        code_entries=wizard_rows.code_entries,
    )
    env.filters.update(wizard_page.FILTERS)
    return env
