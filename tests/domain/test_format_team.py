"""The JSON format's ``team``: names only, bounded, never an e-mail address."""

import json

import pytest

from proposals.domain import FormatError, Proposal, dumps, limits, loads, parse
from proposals.domain.jsonformat import schema
from proposals.domain.team import has_address, team_name

from .builders import EXAMPLES


def base():
    return json.loads((EXAMPLES / "lumi-fast-lane.json").read_text())


def problems(data):
    with pytest.raises(FormatError) as info:
        parse(data)
    return dict(info.value.problems)


def test_the_team_is_read_and_written_last_and_round_trips():
    data = base()
    data["team"] = ["Ann Owner", "Ed Itor"]
    proposal = parse(data)
    assert proposal.team == ("Ann Owner", "Ed Itor")
    text = dumps(proposal)
    assert list(json.loads(text))[-1] == "team"
    assert dumps(loads(text)) == text


def test_a_file_without_a_team_reads_as_none_and_writes_none():
    proposal = parse(base())
    assert proposal.team == ()
    assert "team" not in json.loads(dumps(proposal))
    assert "team" not in json.loads(dumps(Proposal()))


@pytest.mark.parametrize(
    "name",
    ["ann@example.eu", "Ann <ann@example.eu>", "Ann Owner (ann.owner@uni.example)"],
)
def test_a_name_that_looks_like_an_address_is_refused(name):
    data = base()
    data["team"] = ["Ann Owner", name]
    assert problems(data) == {
        "team[1]": "looks like an e-mail address: the team is listed by names "
        "only, never by addresses"
    }


def test_the_team_is_bounded_in_count_and_length():
    data = base()
    data["team"] = ["x" * (limits.TEAM_NAME_CHARS + 1), "", 7, "two\nlines"]
    assert problems(data) == {
        "team[0]": f"is {limits.TEAM_NAME_CHARS + 1} characters long; at most "
        f"{limits.TEAM_NAME_CHARS} are allowed",
        "team[1]": "a name is one non-empty line",
        "team[2]": "must be a string",
        "team[3]": "a name is one non-empty line",
    }
    data["team"] = ["A name"] * (limits.MAX_TEAM_NAMES + 1)
    assert problems(data) == {
        "team": f"has {limits.MAX_TEAM_NAMES + 1} names; at most "
        f"{limits.MAX_TEAM_NAMES} are allowed"
    }
    data["team"] = "Ann Owner"
    assert problems(data) == {"team": "must be a list of names"}


def test_the_schema_declares_the_team_optional_and_bounded():
    node = schema()["properties"]["team"]
    assert "team" not in schema()["required"]
    assert node["default"] == []
    assert node["maxItems"] == limits.MAX_TEAM_NAMES
    assert node["items"]["maxLength"] == limits.TEAM_NAME_CHARS
    assert node["items"]["not"]["pattern"]


def test_an_address_in_a_name_is_cut_to_its_local_part_for_the_export():
    assert team_name("vi.ewer@example.eu") == "vi.ewer"
    assert team_name("Ann  Owner") == "Ann Owner"
    assert not has_address(team_name("Ann <ann@example.eu>"))
    assert not has_address("Ann @ home") and has_address("ann@localhost")
