"""Which template engine can write the wizard's table rows (issue 35, item 3: "one
engine for the wizard page, whichever ``make bench`` shows can hold the targets").

The demo's measurements table (every row's inputs, a code select among them) is
written four ways, each measured in the same alternated rounds:

- the wizard's way today: what every row of a column shares worked out once per
  table (``fragments.Control``), each row's cells written by one Jinja2 macro;
- the same shared work, the cells written by a Django template (the macro's markup
  in the Django template language, below);
- Django's form renderer through Jinja2 (``django.forms.renderers.Jinja2``): each
  bound field renders its own widget, as a page whose rows are plain bound fields
  would, before any markup around the inputs;
- Django's form renderer through Django templates (the default).

Printed as time per row and as ratios to the wizard's way. No target: the figures
decide which engine the wizard page's rows can be written in without losing the step
page's ten-times-the-rows target (``test_bench_step_page.py``).
"""

import pytest
from django.core.management import call_command
from django.forms.renderers import DjangoTemplates, Jinja2
from django.template import engines

from proposals import selectors
from proposals.models import Proposal
from proposals.templatetags.fragments import Control, fragment
from proposals.templatetags.wizard_page import cell
from proposals.wizard.steps import ENGLISH, STEP_BY_SLUG, stored_forms
from tests.bench.conftest import Spread, report, rounds_ms

pytestmark = pytest.mark.django_db

# ``rows/control.html``'s macro for cells without a column, in the Django template
# language: the same inputs from the same shared attributes.
SHARED = (
    ' id="{{ id }}" aria-describedby="fb-{{ id }}"'
    "{% if invalid %}{{ c.invalid }}{% else %}{{ c.attrs }}{% endif %}>"
)
CELLS_IN_DJANGO_TEMPLATES = (
    "{% for column, c, name, id, value, invalid, html in cells %}\n"
    "{% if c is None %}{{ html }}"
    '{% elif c.kind == "input" %}\n<input name="{{ name }}"'
    '{% if value is not None %} value="{{ value }}"{% endif %}' + SHARED + "\n"
    '{% elif c.kind == "select" %}\n<select name="{{ name }}"'
    + SHARED
    + "\n{{ value }}\n</select>"
    '{% else %}\n<textarea name="{{ name }}"'
    + SHARED
    + "\n{{ value }}</textarea>{% endif %}{% endfor %}"
)


def measurement_forms():
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    pk = Proposal.objects.get(owner__username="demo", title__icontains="Iberian").pk
    proposal = selectors.proposal_with_children(Proposal.objects.filter(pk=pk)).get()
    step_forms = stored_forms(proposal, STEP_BY_SLUG["scalability"], ENGLISH)
    return [entry.form for entry in step_forms.tables["measurements"]]


def test_a_tables_rows_in_each_engine(catalogue):
    forms = measurement_forms()
    names = list(forms[0].fields)
    first = forms[0]
    controls = {
        name: Control(first.fields[name], first, size="sm", label=first[name].label)
        for name in names
    }
    macro = fragment("control")
    django_cells = engines["django"].from_string(CELLS_IN_DJANGO_TEMPLATES)

    def cells(form):
        return [(None, *cell(form, name, controls[name], None)) for name in names]

    def wizard():
        return "".join(str(macro(cells(form))) for form in forms)

    def django_template():
        return "".join(django_cells.render({"cells": cells(form)}) for form in forms)

    def renderer(engine):
        def rows():
            for form in forms:
                form.renderer = engine
            return "".join(form[name].as_widget() for form in forms for name in names)

        return rows

    # The same inputs each way (Django's renderer writes the widget's own classes).
    for way in (wizard, django_template):
        written = way()
        assert written.count("<select") == len(forms)
        assert all(f'name="{form.prefix}-{names[0]}"' in written for form in forms)
    times = rounds_ms(
        {
            "wizard": wizard,
            "django template": django_template,
            "form renderer, Jinja2": renderer(Jinja2()),
            "form renderer, Django templates": renderer(DjangoTemplates()),
        },
        repeat=9,
    )
    rows = len(forms)

    def per_row(name):
        spread = Spread(tuple(ms * 1000 / rows for ms in times[name]))
        return spread.shown(".0f", unit=" us")

    report(
        f"A table's rows in each engine ({rows} measurements, {len(names)} inputs each)",
        [
            ("controls shared per table + Jinja2 macro, per row", per_row("wizard")),
            (
                "controls shared per table + Django template, per row",
                f"{per_row('django template')}; "
                + Spread.ratio(times, "django template", "wizard").shown(".1f"),
            ),
            (
                "Django's form renderer, Jinja2, inputs only, per row",
                f"{per_row('form renderer, Jinja2')}; "
                + Spread.ratio(times, "form renderer, Jinja2", "wizard").shown(".1f"),
            ),
            (
                "Django's form renderer, Django templates, inputs only, per row",
                f"{per_row('form renderer, Django templates')}; "
                + Spread.ratio(
                    times, "form renderer, Django templates", "wizard"
                ).shown(".1f"),
            ),
        ],
    )
