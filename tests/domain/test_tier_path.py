"""Severities and examples that follow the guides' wording for the tier (issue 15).

Each case cites the guide text it rests on (fixtures: the guides' own examples).
"""

import pytest

from proposals.domain.field_examples import LUMI, MN5
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.types import Job

from .builders import edit, example, findings

PLAY = "playground"  # 2,000 GPU-hours on LUMI-G
LUMI_FL = "lumi-fast-lane"
MANY = "bsc-many-small-jobs"

# LUMI guide, e. Optimization of the work proposed: "Use this field to tell us about
# tests or optimizations you plan on conducting, if any." Its Playground examples
# ("We will learn to use PyTorch DDP ...", "We will use this project to port our
# existing codebase ...") name what is learnt or ported, with no figures.
OPT_CASES = [
    # (example, optimisation text, expected severities of OPT-1)
    (PLAY, "", {"info"}),
    (PLAY, "We will get to know the system.", {"info"}),
    (
        PLAY,
        "We will learn to train on several GPUs with PyTorch DDP and try batch sizes.",
        set(),
    ),
    (PLAY, "We will port our code base to the AMD GPUs of LUMI-G.", set()),
    # Fast Lane: "Describe concrete optimization actions ... (quantify if possible)".
    (LUMI_FL, "", {"error"}),
    (LUMI_FL, "We will port our code base to the AMD GPUs.", {"warning"}),
    (LUMI_FL, "Pre-sharded data loading, from 30% of step time to under 10%.", set()),
]


@pytest.mark.parametrize("name, text, severities", OPT_CASES)
def test_opt_1_follows_the_tier(name, text, severities):
    found = findings(edit(example(name), optimisation_narrative=text), "OPT-1")
    assert {f.severity for f in found} == severities


def test_opt_1_in_playground_says_it_is_optional():
    (finding,) = findings(edit(example(PLAY), optimisation_narrative=""), "OPT-1")
    assert "Optional in Playground" in finding.message


# LUMI guide, call table: Playground "Resource and job allocation plan required: ❌";
# a plan that is given should still add up, but it is not what decides the request.
@pytest.mark.parametrize("name, severity", [(PLAY, "warning"), (LUMI_FL, "error")])
def test_scal_3_job_plan_total_follows_the_tier(name, severity):
    proposal = example(name)
    proposal = edit(
        proposal,
        scalability__jobs=(Job(title="Porting tests", gpus=4, hours=2, count=10),),
        selection__total_gpu_hours=proposal.selection.total_gpu_hours + 1000,
    )
    assert {f.severity for f in findings(proposal, "SCAL-3")} == {severity}


# LUMI guide, Playground: "Detailed scaling data is not required"; the runtime
# stability of a representative job is asked of many small jobs in Fast Lane and
# Large Scale ("We have tested a representative job; runtime is stable (±5%)").
def test_scal_18_asks_no_stability_figure_in_playground():
    many = dict(
        scalability__workload="many_small_jobs",
        scalability__runtime_stability_pct=None,
    )
    assert findings(edit(example(PLAY), **many), "SCAL-18") == []
    assert findings(edit(example(MANY), **many), "SCAL-18") != []


def texts(key, tier, system):
    return [e.text for e in FIELD_BY_KEY[key].examples_for(tier, system)]


def test_playground_examples_are_the_guides_two_kinds_in_the_system_s_words():
    spec = FIELD_BY_KEY["scalability_narrative"]
    lumi = spec.examples_for("playground", LUMI)
    assert [e.lead for e in lumi] == [
        "If you have tested already",
        "If you have not tested yet",
    ]
    assert all("MI250X" in e.text for e in lumi)
    mn5 = texts("scalability_narrative", "playground", MN5)
    assert len(mn5) == 2 and all("H100" in t for t in mn5)
    assert not any("LUMI" in t or "MI250X" in t for t in mn5)
    # Another system: the Playground examples without a system's name.
    other = texts("scalability_narrative", "playground", "vega-gpu")
    assert len(other) == 2 and not any("LUMI" in t or "H100" in t for t in other)
    # Never the Fast Lane example (FSDP on 4, 8 and 16 GPUs) in Playground.
    assert not any("FSDP" in t for t in [e.text for e in lumi] + mn5 + other)


@pytest.mark.parametrize(
    "key, tier, system, word",
    [
        ("scalability_narrative", "fast_lane", LUMI, "MI250X"),
        ("scalability_narrative", "fast_lane", MN5, "H100"),
        ("optimisation_narrative", "playground", LUMI, "LUMI-G"),
        ("optimisation_narrative", "playground", MN5, "NCCL"),
        ("codes.description", None, LUMI, "LUMI AI Factory container"),
        ("codes.description", None, MN5, "MareNostrum 5"),
    ],
)
def test_examples_follow_tier_and_system(key, tier, system, word):
    assert any(word in t for t in texts(key, tier, system))


def test_without_a_variant_the_general_example_stands():
    spec = FIELD_BY_KEY["codes.description"]
    (general,) = spec.examples_for(None, "vega-gpu")
    assert general.text == spec.example and "LUMI" not in general.text
    assert FIELD_BY_KEY["storage_tb"].examples_for("playground", LUMI)[0].text == "5"
    assert FIELD_BY_KEY["auxiliary_services"].examples_for(None) != ()
    assert FIELD_BY_KEY["organisation_name"].examples_for("fast_lane", LUMI) == ()


SYSTEM_HELP = ["total_gpu_hours", "extra_cpu_hours", "auxiliary_services"]


@pytest.mark.parametrize(
    "key, system, present",
    [
        ("total_gpu_hours", LUMI, "MI250X, that is two GCDs"),
        ("total_gpu_hours", MN5, "one GPU is one H100"),
        ("stack_demonstrated_on_target", LUMI, "MI250X GPUs with ROCm"),
        ("stack_demonstrated_on_target", MN5, "NVIDIA H100"),
        # LUMI guide: AI Factory projects "by default also receive 1,000 CPU hours
        # that can be used on LUMI-C"; "any project with access to LUMI-G also has
        # access to the LUMI-K Kubernetes platform".
        ("extra_cpu_hours", LUMI, "1,000 CPU-hours on LUMI-C"),
        ("auxiliary_services", LUMI, "LUMI-K"),
    ],
)
def test_help_names_the_system_it_is_about(key, system, present):
    assert present in FIELD_BY_KEY[key].help_for("fast_lane", system=system)


@pytest.mark.parametrize("key", [*SYSTEM_HELP, "stack_demonstrated_on_target"])
@pytest.mark.parametrize("system", [MN5, "vega-gpu", None])
def test_help_for_another_system_says_nothing_of_lumi(key, system):
    for tier in (None, "playground", "fast_lane", "large_scale"):
        assert "LUMI" not in FIELD_BY_KEY[key].help_for(tier, system=system)
    assert "LUMI" not in FIELD_BY_KEY[key].example
