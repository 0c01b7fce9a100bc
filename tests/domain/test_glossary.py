"""The glossary and the calls at a glance are consistent with the rest of the domain."""

import dataclasses

import pytest

from proposals.domain import calls, glossary, tiers
from proposals.domain.fields import FIELDS
from proposals.domain.terms import default_terms


def test_every_field_term_has_a_glossary_entry():
    named = {field.term for field in FIELDS if field.term}
    assert named <= set(glossary.TERM_BY_SLUG)
    assert {"mfu", "communication-overhead", "walltime", "gpu", "throughput"} <= named


def test_terms_are_defined_once_and_point_at_existing_terms():
    slugs = [term.slug for term in glossary.TERMS]
    assert len(slugs) == len(set(slugs))
    for term in glossary.TERMS:
        assert term.short and term.text
        for other in term.see:
            assert glossary.term(other) is not term
    with pytest.raises(KeyError):
        glossary.term("flops")


def test_call_ranges_follow_the_call_terms():
    terms = default_terms()
    family = terms[tiers.INDUSTRIAL]
    modes = tuple(
        dataclasses.replace(m, max_hours=6000) if m.slug == tiers.PLAYGROUND else m
        for m in family.modes
    )
    changed = {**terms, tiers.INDUSTRIAL: dataclasses.replace(family, modes=modes)}
    assert calls.hours_range(tiers.PLAYGROUND, changed) == "up to 6,000 GPU-hours"
    assert calls.hours_range(tiers.FAST_LANE, changed) == (
        "more than 6,000, up to 50,000 GPU-hours"
    )


def test_the_three_calls_cover_every_tier_in_order():
    summary = calls.calls()
    assert [call.tier for call in summary] == list(tiers.TIERS)
    # Every boundary value lands in the call whose range names it.
    assert "up to 5,000" in summary[0].hours
    assert "more than 5,000, up to 50,000" in summary[1].hours
    assert summary[2].hours == "more than 50,000 GPU-hours"
    assert [call.gpus for call in summary][:2] == [
        "typically up to 8 GPUs per job",
        "typically up to 64 GPUs per job",
    ]
