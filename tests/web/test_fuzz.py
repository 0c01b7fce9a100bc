"""Fuzzing the two ways text reaches the engine: the JSON format's parser and the
wizard's POST. Whatever arrives, the answer is a result or a refusal that names the
field, never a crash (issue 12: "no 500 from any input")."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proposals.domain import jsonformat
from proposals.domain.fields import FIELDS, section_fields
from tests.properties import examples, long_property
from tests.web.test_exports import EXAMPLES
from tests.web.test_wizard import HX, step_url

EXAMPLE = json.loads((EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8"))
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=()), max_size=40)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
)
VALUES = st.one_of(st.none(), st.booleans(), TEXT, NUMBERS, st.lists(TEXT, max_size=3))
PATHS = st.sampled_from(
    [spec.path for spec in FIELDS if spec.table is None and "." in spec.path]
)


def _with(document: dict, path: str, value) -> dict:
    copy = json.loads(json.dumps(document))
    target = copy
    *parents, last = path.split(".")
    for key in parents:
        target = target[key]
    target[last] = value
    return copy


@settings(max_examples=300, deadline=None)
@given(path=PATHS, value=VALUES)
def test_the_parser_answers_any_value_with_a_proposal_or_a_named_refusal(path, value):
    try:
        document = json.dumps(_with(EXAMPLE, path, value), allow_nan=True)
    except ValueError:
        return
    try:
        jsonformat.loads(document)
    except jsonformat.FormatError as error:
        assert error.problems
        for where, message in error.problems:
            assert where and message
            # A refusal of the changed value names its path.
        assert any(
            where.startswith(path) or where == "$" for where, _ in error.problems
        )


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200) | TEXT.map(str.encode))
def test_the_parser_answers_any_bytes_with_a_proposal_or_a_refusal(raw):
    try:
        jsonformat.read(raw)
    except jsonformat.FormatError as error:
        assert error.problems


@pytest.mark.django_db
@long_property  # 60 examples in CI, 15 in ``make test`` (tests/properties.py)
@settings(
    max_examples=examples(60, bounded=15),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    step=st.sampled_from(["organisation", "selection", "scalability", "optimisation"]),
    values=st.lists(st.one_of(TEXT, NUMBERS.map(str)), min_size=1, max_size=30),
)
def test_the_wizard_answers_any_text_without_a_server_error(
    user_client, proposal, step, values
):
    names = [spec.name for spec in section_fields(step)]
    data = {"autosave": "1"}
    for name, value in zip(names, values, strict=False):
        data[name] = value
    response = user_client.post(step_url(proposal, step), data, headers=HX)
    assert response.status_code < 500
