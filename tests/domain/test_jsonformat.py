"""The JSON format: lossless round trip and every problem reported with its path."""

import copy
import json

import pytest

from proposals.domain import FormatError, Proposal, dump, dumps, loads, parse

from .builders import EXAMPLES, ROOT

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_examples_round_trip_byte_identical(path):
    text = path.read_text(encoding="utf-8")
    assert dumps(loads(text)) == text, "a key was added or changed: make format-files"


def test_blank_draft_round_trips():
    text = dumps(Proposal())
    assert loads(text) == Proposal()
    assert dumps(loads(text)) == text


def test_dump_writes_whole_numbers_as_integers_and_keeps_fractions():
    data = dump(loads((EXAMPLES / "bsc-fast-lane.json").read_text()))
    assert data["selection"]["total_gpu_hours"] == 12000
    assert isinstance(data["selection"]["total_gpu_hours"], int)
    assert data["selection"]["transfer_out_tb"] == 0.5
    assert list(data)[0] == "format" and list(data)[-1] == "optimisation"


def test_non_ascii_text_is_kept():
    text = dumps(Proposal(title="Jülich – ±5%"))
    assert "Jülich – ±5%" in text and text.endswith("}\n")


def base():
    return json.loads((EXAMPLES / "lumi-fast-lane.json").read_text())


def problems(data):
    with pytest.raises(FormatError) as info:
        parse(data)
    return dict(info.value.problems)


def test_every_problem_is_reported_with_its_path():
    data = base()
    data["format"] = "aifactory-proposal/2"
    data["selection"]["total_gpu_hours"] = "18176"
    data["selection"]["max_gpus_per_job"] = 3.5
    del data["organisation"]["vat_number"]
    data["scalability"]["jobs"][2]["gpus"] = None
    data["codes"][0]["references"] = ["ok", 7]
    data["scalability"]["measurements"][1]["code"] = 9
    data["experience"]["colour"] = "blue"
    data["call_family"] = "academia"
    found = problems(data)
    assert set(found) == {
        "format",
        "selection.total_gpu_hours",
        "selection.max_gpus_per_job",
        "organisation.vat_number",
        "scalability.jobs[2].gpus",
        "codes[0].references[1]",
        "experience.colour",
        "call_family",
    }
    assert "aifactory-proposal/1" in found["format"]
    assert found["selection.max_gpus_per_job"] == "must be a whole number"
    assert found["organisation.vat_number"] == "is required"


def test_code_index_checked_once_the_rest_is_valid():
    data = base()
    data["scalability"]["measurements"][1]["code"] = 9
    assert problems(data) == {
        "scalability.measurements[1].code": "must be null or the index of a code "
        "entry (0 to 1)"
    }


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: d.__setitem__("codes", {}), "codes"),
        (lambda d: d["scalability"].__setitem__("jobs", [1]), "scalability.jobs[0]"),
        (
            lambda d: d["organisation"].__setitem__("ongoing_eurohpc_project", 0),
            "organisation.ongoing_eurohpc_project",
        ),
        (
            lambda d: d["selection"].__setitem__("storage_tb", True),
            "selection.storage_tb",
        ),
        (
            lambda d: d["scalability"]["measurements"][0].__setitem__(
                "throughput", 1e300
            ),
            "scalability.measurements[0].throughput",
        ),
    ],
)
def test_wrong_types(mutate, path):
    data = base()
    mutate(data)
    assert path in problems(data)


def test_not_an_object_and_not_json():
    assert problems([]) == {"$": "must be an object"}
    with pytest.raises(FormatError) as info:
        loads("{ nope")
    assert info.value.problems[0][0] == "$"
    assert "not valid JSON" in str(info.value)
    with pytest.raises(FormatError):
        loads('{"format": NaN}')


def test_whole_float_accepted_for_integer_fields():
    data = base()
    data["scalability"]["jobs"][0]["gpus"] = 8.0
    assert parse(data).scalability.jobs[0].gpus == 8


def test_parse_does_not_mutate_its_input():
    data = base()
    before = copy.deepcopy(data)
    parse(data)
    assert data == before


def test_committed_schema_is_generated():
    from proposals.domain.jsonformat import schema_text

    committed = (ROOT / "docs" / "proposal-format.schema.json").read_text()
    assert committed == schema_text(), "the format changed: make format-files"
