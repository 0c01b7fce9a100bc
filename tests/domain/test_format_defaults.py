"""Keys added to ``aifactory-proposal/1`` after its release: a file without them still
imports (with the key's default), exports write them, and the schema says so."""

import dataclasses
import json
from pathlib import Path

import pytest

from proposals.domain import formatshape, jsonformat
from proposals.domain.formatschema import schema

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures/examples/lumi-fast-lane.json"


@pytest.fixture
def added_key(monkeypatch):
    """The selection section with one more key, as a later change would add it."""
    added = formatshape.Field("container_image", "string", default="")
    selection = dataclasses.replace(
        formatshape.SELECTION, fields=(*formatshape.SELECTION.fields, added)
    )
    original = selection.build

    def build(container_image="", **values):
        return (original(**values), container_image)

    shape = dataclasses.replace(selection, build=build)
    fields = tuple(
        dataclasses.replace(f, shape=shape) if f.name == "selection" else f
        for f in formatshape.PROPOSAL.fields
    )
    monkeypatch.setattr(
        jsonformat, "PROPOSAL", dataclasses.replace(formatshape.PROPOSAL, fields=fields)
    )
    return added


def test_a_file_without_an_added_key_still_imports(added_key):
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert "container_image" not in document["selection"]
    proposal = jsonformat.parse(document)
    selection, image = proposal.selection
    assert image == "" and selection.total_gpu_hours == 18176


def test_the_added_key_is_read_when_given(added_key):
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["selection"]["container_image"] = "lumi-pytorch"
    assert jsonformat.parse(document).selection[1] == "lumi-pytorch"


def test_a_first_release_key_is_still_required():
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    del document["selection"]["libraries"]
    with pytest.raises(jsonformat.FormatError) as error:
        jsonformat.parse(document)
    assert ("selection.libraries", "is required") in error.value.problems


def test_every_key_of_the_first_release_is_required_in_the_schema():
    required = set(schema()["$defs"]["Selection"]["required"])
    assert {f.name for f in formatshape.SELECTION.fields if f.required} == required
