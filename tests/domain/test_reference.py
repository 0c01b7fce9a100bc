"""The rule reference page is generated from the registry and cannot drift."""

from proposals.domain import rules
from proposals.domain.reference import markdown

from .builders import ROOT


def test_committed_rules_md_equals_generated_output():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == markdown(), (
        "run: python -m proposals.domain.reference > docs/rules.md"
    )


def test_every_rule_is_documented_with_title_and_description():
    page = markdown()
    for r in rules():
        assert f"| {r.code} |" in page
        assert r.title and len(r.description) > 20, r.code
