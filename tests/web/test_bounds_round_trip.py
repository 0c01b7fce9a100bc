"""Every value the wizard accepts in a bounded number field survives the draft's own
backup: typed into the wizard's field, stored, exported as JSON, checked as every
way in checks a file (the upload page, ``import_proposal`` and ``assess``), imported
and exported again, it is the same value and the same bytes (issue 32). The bounds
come from one table (``domain.bounds``); a field whose bound the JSON format, the
import or ``assess`` reads differently, or a value a float cannot carry, fails here.
"""

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proposals import services
from proposals.assess import with_children
from proposals.domain.bounds import BOUNDS
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, format_number
from proposals.exports import jsonio
from proposals.forms.fields import NumberField
from proposals.models import Proposal
from tests.commands.test_commands import run
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)

pytestmark = pytest.mark.django_db

ROWS = {
    "codes": CodeEntryFactory,
    "measurements": ScalingMeasurementFactory,
    "jobs": JobTypeFactory,
    "schedule": UsageMonthFactory,
}
# The person's number format: the portal's and one with a decimal comma.
FORMATS = [NUMBER_FORMAT_BY_NAME["en"], NUMBER_FORMAT_BY_NAME["de"]]


def typed(key: str):
    """Text a person types into the field of ``key`` that the wizard accepts, from
    the ends of its bound to anything between, with the decimals it allows."""
    bound = BOUNDS[key]
    values = st.one_of(
        st.sampled_from([Decimal(bound.low), Decimal(bound.high)]),
        st.decimals(
            min_value=bound.low,
            max_value=bound.high,
            places=bound.places,
            allow_nan=False,
            allow_infinity=False,
        ),
    )
    return st.tuples(values, st.sampled_from(FORMATS)).map(
        lambda pair: (format_number(pair[0], pair[1]), pair[1])
    )


def wizard_value(key: str, text: str, fmt):
    """The value the wizard's own field makes of ``text`` (it refuses what is out
    of bounds)."""
    field = NumberField(bound=BOUNDS[key], number_format=fmt, required=False)
    return field.clean(text)


def draft_with(owner, key: str, value) -> Proposal:
    """A saved draft holding ``value`` in the field of ``key``, validated as the
    wizard's forms validate it (the model's validators and checks)."""
    table, _, name = key.rpartition(".")
    spec = FIELD_BY_KEY[key]
    proposal = ProposalFactory(owner=owner)
    if not table:
        setattr(proposal, spec.name, value)
        proposal.full_clean(exclude=["owner", "system"])
        proposal.save()
        return proposal
    extra = {}
    if key == "schedule.from_month":
        extra["to_month"] = value  # a row may not end before it starts
    row = ROWS[table].build(proposal=proposal, **{spec.name: value, **extra})
    row.full_clean(exclude=["proposal", "code"])
    row.save()
    return proposal


def stored(proposal: Proposal, key: str):
    table, _, name = key.rpartition(".")
    spec = FIELD_BY_KEY[key]
    if not table:
        return getattr(proposal, spec.name)
    return getattr(getattr(proposal, table).get(), spec.name)


def export(proposal: Proposal) -> str:
    return jsonio.export_text(
        with_children(Proposal.objects.filter(pk=proposal.pk)).get()
    )


@pytest.mark.parametrize("key", sorted(BOUNDS))
def test_every_value_the_wizard_accepts_survives_export_and_import(key, user, tmp_path):
    @settings(
        max_examples=12,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(typing=typed(key))
    def round_trip(typing):
        text, fmt = typing
        value = wizard_value(key, text, fmt)  # raises if the wizard refused it
        draft = draft_with(user, key, value)
        text_out = export(draft)
        # Every way in: the upload page and import_proposal check it like this ...
        document = jsonio.check_file(text_out)
        imported = services.proposal_import(owner=user, document=document)
        assert stored(imported, key) == Decimal(value), key
        assert export(imported) == text_out
        # ... and assess reads the same file.
        path = tmp_path / "draft.json"
        path.write_text(text_out, encoding="utf-8")
        code, _, err = run("assess", str(path))
        assert code in (0, 1), err

    round_trip()
