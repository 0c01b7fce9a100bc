"""The glossary and the calls at a glance are consistent with the rest of the domain."""

import pytest

from proposals.domain import calls, glossary, tiers
from proposals.domain.fields import FIELDS


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


def test_call_ranges_follow_the_tier_bounds(monkeypatch):
    monkeypatch.setattr(calls, "_UPPER", {tiers.PLAYGROUND: 6000})
    monkeypatch.setattr(calls, "_LOWER", {tiers.FAST_LANE: 6000})
    assert calls.hours_range(tiers.PLAYGROUND) == "up to 6,000 GPU-hours"
    assert calls.hours_range(tiers.FAST_LANE) == "more than 6,000 GPU-hours"


def test_the_three_calls_cover_every_tier_in_order():
    summary = calls.calls()
    assert [call.tier for call in summary] == list(tiers.TIERS)
    # Every boundary value lands in the call whose range names it.
    assert "up to 5,000" in summary[0].hours
    assert tiers.tier_for_hours(tiers.PLAYGROUND_MAX_HOURS) == tiers.PLAYGROUND
    assert "more than 5,000, up to 50,000" in summary[1].hours
    assert tiers.tier_for_hours(tiers.FAST_LANE_MAX_HOURS) == tiers.FAST_LANE
    assert summary[2].hours == "more than 50,000 GPU-hours"
    assert [call.gpus for call in summary][:2] == [
        "typically up to 8 GPUs per job",
        "typically up to 64 GPUs per job",
    ]
