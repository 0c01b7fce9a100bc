"""Results the engine keeps between calls (the wizard assesses on every keystroke):
the same inputs give the very same result, different inputs their own, and an input
that cannot be a key is still computed."""

from proposals.domain.rulebook.selection import claims_dies_as_gpus
from proposals.domain.scaling import _fit_kept, _project, analyse, project
from proposals.domain.terms import FactSource, ModeTerms
from proposals.domain.types import Measurement


def series(*rows):
    measured = tuple(Measurement(gpus=g, throughput=t) for g, t in rows)
    return analyse(measured).series[0]


def test_a_projection_is_kept_for_the_same_measurements():
    data = series((4, 1200), (8, 2280), (16, 4225))
    first = project(data, 32, "fast_lane")
    again = project(series((4, 1200), (8, 2280), (16, 4225)), 32, "fast_lane")
    assert again is first
    assert first == _project(data, 32, "fast_lane")


def test_another_measurement_or_target_is_projected_afresh():
    first = project(series((4, 1200), (8, 2280), (16, 4225)), 32, "fast_lane")
    other = project(series((4, 1200), (8, 2280), (16, 4000)), 32, "fast_lane")
    assert other != first and other.efficiency_low < first.efficiency_low
    assert project(series((4, 1200), (8, 2280), (16, 4225)), 64, "fast_lane") != first


def test_the_fit_is_kept_for_the_terms_the_wizard_passes():
    """The tier's terms carry their sources (a mapping, not a key): the fit is kept
    all the same, and each tier's verdict on the extrapolation is its own."""
    sources = {"max_extrapolation_factor": FactSource("a guide", "2026-01-01")}
    terms = {"scaling_data_required": True, "sources": sources}
    strict = ModeTerms("f", "strict", max_extrapolation_factor=1.5, **terms)
    lenient = ModeTerms("f", "lenient", max_extrapolation_factor=4.0, **terms)
    data = series((4, 1100), (8, 2090), (16, 3900))  # no other test's
    before = _fit_kept.cache_info().hits
    first = project(data, 64, strict)
    second = project(series((4, 1100), (8, 2090), (16, 3900)), 64, lenient)
    assert _fit_kept.cache_info().hits == before + 1
    assert first.extrapolation_factor == second.extrapolation_factor == 4.0
    assert (first.extrapolation_allowed, second.extrapolation_allowed) == (False, True)
    assert first == _project(data, 64, strict) and second == _project(data, 64, lenient)


class Unhashable(str):
    __hash__ = None


def test_an_input_that_cannot_be_a_key_is_computed():
    data = series((4, 1200), (8, 2280), (16, 4225))
    assert project(data, 32, Unhashable("fast_lane")) == _project(data, 32, "fast_lane")


def test_the_dies_check_answers_alike_each_time():
    text = "We run on 16 GPUs (2 nodes)."
    assert claims_dies_as_gpus(text, 4, 8) is claims_dies_as_gpus(text, 4, 8) is True
    assert claims_dies_as_gpus("We run on 8 GPUs (2 nodes).", 4, 8) is False


def test_a_narrative_sentence_is_read_once_and_judged_at_each_call():
    """PLAN-4 reads each sentence once (its figures and pairs are a function of
    its text), and judges it against the tables at every call: the same text
    against other measurements gives their own contradictions."""
    from proposals.domain import assess
    from proposals.domain.narrative_figures import contradictions, reading

    from .builders import catalogue, example

    assessment = assess(example("lumi-fast-lane"), catalogue())
    text = "We reach 97 % efficiency at 32 GPUs. The speedup is 3.9x from 4 to 16 GPUs."

    def judged(analysis):
        return contradictions(
            text,
            analysis=analysis,
            projection=assessment.projection,
            plan=assessment.plan,
            requested_gpu_hours=None,
            target_gpus=32,
            gcds_per_gpu=2,
        )

    reading.cache_clear()
    first = judged(assessment.analysis)
    assert reading.cache_info().misses == 2  # two sentences
    assert judged(assessment.analysis) == first != []
    assert reading.cache_info().misses == 2 and reading.cache_info().hits == 2
    slower = analyse(
        (Measurement(gpus=4, throughput=1000), Measurement(gpus=16, throughput=3000))
    )
    assert judged(slower) != first


def test_a_code_description_is_counted_once():
    """CODE-7 counts a description's technical and motivation words once per text."""
    from proposals.domain.rulebook.codes import technical_and_motivation

    text = "PyTorch 2.3 with FSDP on 64 GPUs; our customers love the impact."
    technical_and_motivation.cache_clear()
    first = technical_and_motivation(text)
    assert technical_and_motivation(text) == first and first[0] >= 3
    assert technical_and_motivation.cache_info().hits == 1
