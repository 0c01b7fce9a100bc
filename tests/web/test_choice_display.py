"""The models' ``get_<field>_display`` of enum choices (models/choices.py) answer as
Django's own method does, in every language, for every stored value and for a
value that is none of them."""

import pytest
from django.db.models import Model
from django.utils import translation

from proposals.models import (
    Proposal,
    ProposalRevision,
    StatusChange,
    TechnicalAssessment,
)

CASES = [
    (Proposal, "status"),
    (ProposalRevision, "tier"),
    (StatusChange, "from_status"),
    (StatusChange, "to_status"),
    (TechnicalAssessment, "outcome"),
]


@pytest.mark.parametrize("language", ["en-gb", "de", "fr", "it", "es"])
@pytest.mark.parametrize(("model", "name"), CASES)
def test_the_label_is_djangos(model, name, language):
    field = model._meta.get_field(name)
    assert f"get_{name}_display" in model.__dict__  # ours, kept by Django
    values = [value for value, _label in field.choices] + ["not-a-choice", ""]
    with translation.override(language):
        for value in values:
            instance = model(**{field.attname: value})
            ours = getattr(instance, f"get_{name}_display")()
            djangos = Model._get_FIELD_display(instance, field)
            assert ours == djangos and type(ours) is type(djangos), value


def test_a_translated_label_is_written_in_the_reader_language():
    change = StatusChange(from_status="submitted", to_status="changes_requested")
    with translation.override("en-gb"):
        english = change.get_to_status_display()
    with translation.override("de"):
        german = change.get_to_status_display()
    assert english != german
