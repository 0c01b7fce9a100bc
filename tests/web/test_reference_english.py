"""The generated rule reference and JSON schema are English whatever language a
request left active (they are documentation, committed under docs/)."""

from django.utils import translation

from proposals.domain.formatschema import schema_text
from proposals.domain.reference import markdown
from proposals.domain.terms import UNITS


def test_the_rule_reference_and_schema_stay_english_under_german():
    english_md, english_schema = markdown(), schema_text()
    with translation.override("de"):
        assert UNITS["node_hours"] != "node-hours"  # German is really active
        assert markdown() == english_md
        assert schema_text() == english_schema
