"""The wizard's widgets and row cells are written in Python (no template per cell):
the same HTML as Django's own widget templates, the same ids, names and ARIA wiring."""

import pytest
from django import forms
from django.template import Context, Template

from proposals.forms import JobTypeForm, MeasurementForm
from proposals.templatetags import wizard_tags
from tests.factories import CodeEntryFactory, JobTypeFactory, ScalingMeasurementFactory


class Everything(forms.Form):
    text = forms.CharField(widget=forms.TextInput(attrs={"inputmode": "decimal"}))
    number = forms.IntegerField(required=False)
    area = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
    choice = forms.ChoiceField(
        choices=[("", "—"), ("1", "A & B"), ("2", "<two>"), ("x", 'say "x"')]
    )
    grouped = forms.ChoiceField(choices=[("G", [("1", "one"), ("2", "two")])])


ATTRS = {"class": "form-control", "aria-describedby": "fb-x", "aria-label": "A <b>"}


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"text": 'a "quoted" <v>', "number": "7", "area": "x\ny", "choice": "2"},
        {"text": "", "number": "", "area": "", "choice": "x", "grouped": "2"},
        {"choice": "nope"},
    ],
)
def test_widgets_render_as_django_renders_them(data):
    form = Everything(data, prefix="row-3")
    for name in form.fields:
        field = form[name]
        assert wizard_tags.as_widget(field, ATTRS) == field.as_widget(attrs=ATTRS)


@pytest.mark.django_db
def test_row_cells_keep_ids_names_and_aria(proposal):
    code = CodeEntryFactory(proposal=proposal, name="trainer")
    rows = [
        (JobTypeForm, JobTypeFactory(proposal=proposal, title="Eval & test"), {}),
        (
            MeasurementForm,
            ScalingMeasurementFactory(proposal=proposal, code=code),
            {"codes": [code]},
        ),
    ]
    for form_class, row, kwargs in rows:
        form = form_class(instance=row, prefix=f"r-{row.pk}", **kwargs)
        html = Template(
            "{% load wizard_tags %}{% row_cells form specs %}{% row_feedback form specs %}"
        ).render(Context({"form": form, "specs": _specs(form)}))
        for name, field in form.fields.items():
            bound = form[name]
            expected = bound.as_widget(
                attrs={
                    "class": wizard_tags._widget_class(field.widget)
                    + " "
                    + wizard_tags._widget_class(field.widget)
                    + "-sm",
                    "aria-describedby": f"fb-{bound.auto_id}",
                    "aria-label": bound.label,
                }
            )
            assert expected in html
            assert f'id="fb-{bound.auto_id}"' in html
            assert f'data-anchor="{bound.auto_id}"' in html


def _specs(form):
    from proposals.domain.fields import columns

    return [spec for spec in columns(form.table) if spec.name in form.fields]
