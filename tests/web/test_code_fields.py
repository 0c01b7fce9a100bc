"""A code entry's fields travel between the database and the engine without a
hand-kept list in the adapter (README, "Adding a field")."""

from dataclasses import replace

import pytest

from proposals import assess, domain
from proposals.domain.formatshape import CODE
from tests.factories import CodeEntryFactory, ProposalFactory

pytestmark = pytest.mark.django_db

# A value of every text and choice field, read from the format (so a field added
# there is tried here too): a choice's last option, else a text of its own.
TEXTS = {
    field.name: field.choices[-1] if field.choices else f"the {field.name}"
    for field in CODE.fields
    if field.name in assess.CODE_TEXTS
}


def test_the_adapter_carries_every_field_of_a_code_entry_in_the_format():
    """Each key of a code entry in the JSON format is copied by one of the
    adapter's three ways (as it is, as lines, as a number): a key of another kind
    would need one more, and this fails until it has it."""
    carried = {*assess.CODE_TEXTS, "references", *assess.ESTIMATE_NUMBERS}
    assert carried == {field.name for field in CODE.fields}
    assert {"role", "name", "version", "description", "model_use"} <= set(TEXTS)


def test_a_code_entry_reaches_the_engine_with_every_text_field():
    proposal = ProposalFactory()
    CodeEntryFactory(proposal=proposal, **TEXTS)
    (code,) = assess.proposal_to_domain(proposal).codes
    assert {name: getattr(code, name) for name in TEXTS} == TEXTS


def test_an_imported_code_entry_keeps_every_text_field():
    source = replace(
        domain.Proposal(), title="Codes", codes=(domain.CodeEntry(**TEXTS),)
    )
    (row,) = assess.document_rows(source, systems={}).codes
    assert {name: getattr(row, name) for name in TEXTS} == TEXTS
