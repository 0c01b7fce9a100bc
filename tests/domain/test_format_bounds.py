"""The bounds of the numbers are one table (``domain.bounds``, issue 32): the JSON
format's loader and schema and the table of bounds in ``docs/proposal-format.md`` read
it, and every value within a bound is carried exactly by a JSON float."""

import json
import math
from decimal import Decimal

import pytest

from proposals.domain import FormatError, dumps, loads
from proposals.domain.bounds import BOUNDS
from proposals.domain.formatschema import schema
from proposals.domain.formatshape import PROPOSAL
from proposals.domain.numbers import EXACT_INTEGERS, json_number
from proposals.domain.reference import FORMAT_DOC, _bounded_fields, format_doc

from .builders import EXAMPLES

FIELDS = dict(_bounded_fields(PROPOSAL, ""))


def key_of(path: str) -> str:
    """``scalability.jobs[].gpus`` -> ``jobs.gpus``; ``selection.x`` -> ``x``."""
    head, _, name = path.rpartition(".")
    if head.endswith("[]"):
        return f"{head[:-2].rpartition('.')[2]}.{name}"
    return name


def test_every_bound_is_a_number_of_the_format_and_every_number_has_one():
    assert sorted(key_of(path) for path in FIELDS) == sorted(BOUNDS)
    assert all(FIELDS[path].bound is BOUNDS[key_of(path)] for path in FIELDS)


@pytest.mark.parametrize("key", sorted(BOUNDS))
def test_every_value_of_a_bound_is_exact_in_a_json_float(key):
    bound = BOUNDS[key]
    assert bound.exact_in_json, key
    # The largest value with the bound's decimals survives float and JSON.
    step = Decimal(1).scaleb(-bound.places)
    for value in (bound.low, bound.high, Decimal(bound.high) - step):
        text = json.dumps(json_number(float(value), None))
        assert Decimal(text) == Decimal(value), (key, value, text)


def test_the_bounds_fit_the_largest_published_training_runs():
    """Llama 3.1 405B: 405 B parameters, 15.6 T tokens, 30.84 M H100 GPU-hours
    (Meta's model card); Llama 4 Scout ~40 T tokens; Kimi K2 1.04 T parameters."""
    assert BOUNDS["codes.model_parameters"].high >= 10 * 1.04e12
    assert BOUNDS["codes.training_tokens"].high >= 10 * 40e12
    # The same FLOPs on an A100 (312 TFLOP/s) at Meta's 34 % MFU, with a margin.
    a100_hours = 6 * 405e9 * 15.6e12 / (312e12 * 0.34 * 3600)
    assert BOUNDS["total_gpu_hours"].high >= 5 * a100_hours
    assert BOUNDS["schedule.gpu_hours"].high == BOUNDS["total_gpu_hours"].high


def _properties(node_path: str) -> dict:
    doc = schema()
    head, _, name = node_path.rpartition(".")
    shapes = {
        "selection": "Selection",
        "codes[]": "CodeEntry",
        "scalability": "Scalability",
        "scalability.measurements[]": "Measurement",
        "scalability.jobs[]": "Job",
        "scalability.schedule[]": "UsagePeriod",
    }
    return doc["$defs"][shapes[head]]["properties"][name]


@pytest.mark.parametrize("path", sorted(FIELDS))
def test_the_schema_declares_each_bound(path):
    node, bound = _properties(path), FIELDS[path].bound
    assert Decimal(str(node["maximum"])) == bound.high
    if FIELDS[path].zero_is_blank:
        blank, low = node["anyOf"]
        assert blank == {"const": 0}
    else:
        low = node
    assert Decimal(str(low["minimum"])) == bound.low


def test_the_docs_table_of_bounds_is_generated_from_the_table():
    committed = FORMAT_DOC.read_text(encoding="utf-8")
    assert committed == format_doc(committed), (
        "run: python -m proposals.domain.reference --format-doc"
    )
    assert "| `codes[].training_tokens` | 1 | 1,000,000,000,000,000 | 0 |" in committed


def _example() -> dict:
    return json.loads((EXAMPLES / "bsc-large-scale.json").read_text("utf-8"))


def _refusal(data) -> dict[str, str]:
    with pytest.raises(FormatError) as excinfo:
        loads(json.dumps(data))
    return dict(excinfo.value.problems)


def test_the_loader_takes_both_ends_of_a_bound_and_refuses_beyond():
    data = _example()
    high = BOUNDS["codes.training_tokens"].high
    data["codes"][0]["training_tokens"] = int(high)
    assert loads(json.dumps(data)).codes[0].training_tokens == high
    data["codes"][0]["training_tokens"] = int(high) + 1
    assert _refusal(data) == {
        "codes[0].training_tokens": "must be from 1 to 1,000,000,000,000,000: far "
        "above the largest published training run"
    }
    data = _example()
    data["scalability"]["jobs"][0]["hours"] = 0.001
    assert _refusal(data) == {
        "scalability.jobs[0].hours": "must be 0 (a blank cell) or from 0.01 to "
        "10,000: a job runs for some time"
    }


def test_an_integer_beyond_every_bound_is_refused_as_not_finite():
    text = (EXAMPLES / "bsc-large-scale.json").read_text("utf-8")
    huge = text.replace('"max_gpus_per_job": 128', f'"max_gpus_per_job": {"9" * 17}')
    with pytest.raises(FormatError) as excinfo:
        loads(huge)
    assert excinfo.value.problems == [
        (
            "selection.max_gpus_per_job",
            "must be a finite number from 1 to 100,000",
        )
    ]


def test_a_whole_number_up_to_2_53_is_written_exactly_and_larger_as_a_float():
    assert json_number(float(EXACT_INTEGERS)) == EXACT_INTEGERS
    assert isinstance(json_number(float(EXACT_INTEGERS)), int)
    flops = 6 * 405e9 * 15.6e12
    assert isinstance(json_number(flops), float)
    assert json.dumps(json_number(flops)) == "3.7908e+25"
    assert json.loads(json.dumps(json_number(flops))) == flops
    assert math.isclose(flops, 3.7908e25)


def test_the_foundation_model_example_round_trips_byte_for_byte():
    text = (EXAMPLES / "foundation-model.json").read_text("utf-8")
    proposal = loads(text)
    assert proposal.codes[0].training_tokens == 15_600_000_000_000
    assert dumps(proposal) == text
