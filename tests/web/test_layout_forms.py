"""Every step's form is derived from its layout (``proposals/wizard/steps.py``): a
step with a layout has a form that edits exactly the layout's fields, whether
``proposals.forms`` declares one for it or not; a step without one has no form. No
hand-kept list of forms to forget when a layout is added."""

import pytest

from proposals.domain import layouts
from proposals.domain.layouts import Cell, Group, Layout
from proposals.domain.sections import STEPS as SECTION_STEPS
from proposals.domain.sections import TABLE_KINDS
from proposals.forms import WizardStepForm, field_names
from proposals.wizard.steps import STEPS, TABLE_FORMS, forms_from_layouts


@pytest.mark.parametrize("step", STEPS, ids=lambda step: step.slug)
def test_each_step_form_edits_its_layout_fields(step):
    if step.layout is None:
        assert step.form_class is None
        return
    assert issubclass(step.form_class, WizardStepForm)
    assert step.form_class.step == step.slug
    assert list(step.form_class._meta.fields) == field_names(step.slug)


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_each_table_form_edits_its_row_layout_fields(kind):
    form_class = TABLE_FORMS[kind]
    assert form_class.table == kind
    assert list(form_class._meta.fields) == field_names(kind, table=True)


def test_a_step_given_a_layout_gets_a_form_without_a_list_to_edit(monkeypatch):
    """The code-details step has no form of its own: a layout for it is enough."""
    assert {s.slug for s in SECTION_STEPS} >= {"codes"}
    layout = Layout((Group("overview", ((Cell("title"),),)),))
    monkeypatch.setitem(layouts.STEP_LAYOUTS, "codes", layout)
    by_step, _by_table = forms_from_layouts()
    form_class = by_step["codes"]
    assert form_class is not None and form_class.step == "codes"
    assert list(form_class._meta.fields) == ["title"]
    assert list(form_class().fields) == ["title"]
