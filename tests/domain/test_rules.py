"""Every rule, firing and not firing, on edited copies of the guide examples."""

import pytest

from proposals.domain import Proposal, assess, rules
from proposals.domain.findings import sort_key

from .builders import catalogue, edit, example, findings
from .rule_cases import CASES, LARGE, LUMI, PLAY

SPEC_CODES = (
    [f"TIER-{i}" for i in range(1, 5)]
    + [f"ELIG-{i}" for i in range(1, 5)]
    + [f"SEL-{i}" for i in range(1, 4)]
    + [f"CODE-{i}" for i in range(1, 8)]
    + [f"SCAL-{i}" for i in range(1, 13)]
    + ["OPT-1"]
)


@pytest.mark.parametrize(
    "code, name, changes, field",
    CASES,
    ids=[f"{c[0]}-{'fires' if c[3] else 'quiet'}-{i}" for i, c in enumerate(CASES)],
)
def test_rule(code, name, changes, field):
    found = findings(edit(example(name), **changes), code)
    if field is None:
        assert found == []
    else:
        assert field in [f.field for f in found], found
        assert all(f.message.strip() for f in found)


def test_every_rule_has_a_firing_and_a_quiet_case():
    codes = {r.code for r in rules()}
    fired = {c[0] for c in CASES if c[3]}
    quiet = {c[0] for c in CASES if c[3] is None}
    # TIER-6 fires only with terms that leave a gap between tiers (the guides' do
    # not): its firing case is in test_terms.py.
    assert codes - {"TIER-1", "TIER-6"} <= fired
    assert codes - {"TIER-1"} <= quiet


def test_spec_rule_catalogue_is_complete():
    codes = {r.code for r in rules()}
    assert set(SPEC_CODES) <= codes


def test_tier_1_is_always_present_once():
    for proposal in (Proposal(), example(LUMI)):
        assert len(findings(proposal, "TIER-1")) == 1
    assert (
        "18,176 GPU-hours is a Fast Lane"
        in findings(example(LUMI), "TIER-1")[0].message
    )


@pytest.mark.parametrize(
    "name, code, severity",
    [(LARGE, "SCAL-10", "warning"), (PLAY, "SCAL-10", "info")],
)
def test_hardware_severity_depends_on_tier(name, code, severity):
    assert {f.severity for f in findings(example(name), code)} == {severity}


def test_vat_without_offline_validator_is_an_info_note():
    p = edit(
        example(LUMI), organisation__country="AM", organisation__vat_number="01234"
    )
    (finding,) = findings(p, "ELIG-2")
    assert finding.severity == "info" and "Armenia" in finding.message


def test_greek_vat_accepts_el_prefix_and_bare_digits():
    for vat in ("EL094259216", "094259216"):
        p = edit(
            example(LUMI), organisation__country="GR", organisation__vat_number=vat
        )
        assert findings(p, "ELIG-2") == []


def test_blank_draft_gets_findings_not_exceptions():
    a = assess(Proposal(), catalogue())
    assert a.tier is None and a.projection is None
    assert {"SEL-1", "CODE-1", "OPT-1"} <= {f.code for f in a.findings}


def test_findings_are_sorted_by_severity_code_field():
    found = findings(edit(example(LUMI), selection__system="", codes=()))
    assert found == sorted(found, key=sort_key)
    assert found[0].severity == "error" and found[-1].severity == "info"
