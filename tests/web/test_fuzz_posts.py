"""A hypothesis run over every way a person's POST reaches the server (issue 20):
the wizard's steps, the row buttons, the "copy for another system" form and the JSON
import. Whatever is posted, the answer is a page or a refusal, never a server error
(the test client re-raises a view's exception, so a 500 fails the test). Each test
is bounded to a few dozen examples (a quarter of them outside CI:
tests/properties.py); run it with ``DATABASE_URL`` on PostgreSQL too,
where a NUL in a query is an error rather than a miss."""

import json

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proposals.domain.fields import columns, section_fields
from proposals.domain.sections import STEP_SLUGS, tables_of
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)
from tests.properties import examples, long_property
from tests.web.test_import_json import IMPORT, example, upload
from tests.web.test_wizard import HX

pytestmark = pytest.mark.django_db


def fuzz(full: int):
    """A long property run: ``full`` examples under --long-properties (CI), a
    quarter of them (at least 10) in ``make test`` (tests/properties.py)."""
    bounded = settings(
        max_examples=examples(full, bounded=max(10, full // 4)),
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
        ],
    )

    def decorate(test):
        return long_property(bounded(test))

    return decorate


# What the fuzz run of issue 20 found, and its relatives.
NASTY = [
    "[" * 50_000,
    "{" * 50_000,
    '{"a":' * 5_000,
    "9" * 400,
    "-" + "9" * 5_000,
    "1e999",
    "NaN",
    "-Infinity",
    "\x00",
    "lumi-g\x00",
    "²",
    "١٢",
    " ",
    "",
    "[]",
    "{}",
    '{"title": 1}',
    '{"x": null}',
    "0" * 30,
    "1" * 5_000,
]
# Any text a browser can send (lone surrogates cannot be encoded in UTF-8).
TEXT = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=30),
    st.sampled_from(NASTY),
)
CONTROLS = [
    "bases",
    "goto",
    "save",
    "keep",
    "autosave",
    "gpu_unit",
    "regions",
]


@pytest.fixture
def full(proposal):
    """A proposal with a row of every table, and those rows' ids by kind (fixed for
    the run, so that examples do not depend on what earlier ones deleted)."""
    CodeEntryFactory(proposal=proposal)
    ScalingMeasurementFactory(proposal=proposal)
    JobTypeFactory(proposal=proposal)
    UsageMonthFactory(proposal=proposal)
    rows = {
        table.kind: [
            *getattr(proposal, table.kind).values_list("pk", flat=True),
            9_999_999,  # nobody's row
        ]
        for step in STEP_SLUGS
        for table in tables_of(step)
    }
    return proposal, rows


def _input_names(rows, step: str) -> list[str]:
    names = [spec.name for spec in section_fields(step)]
    for table in tables_of(step):
        for pk in rows[table.kind]:
            names += [f"{table.kind}-{pk}-{spec.name}" for spec in columns(table.kind)]
    return names


def _posted(draw, names: list[str]) -> dict[str, str]:
    keys = st.sampled_from(names + CONTROLS) | st.text(max_size=12)
    return draw(st.dictionaries(keys, TEXT, max_size=12))


@fuzz(80)
@given(data=st.data())
def test_the_wizard_answers_any_post_without_a_server_error(user_client, full, data):
    proposal, rows = full
    step = data.draw(st.sampled_from(STEP_SLUGS))
    posted = _posted(data.draw, _input_names(rows, step))
    headers = data.draw(st.sampled_from([{}, HX]))
    url = reverse("proposals:step", args=[proposal.pk, step])
    response = user_client.post(url, posted, headers=headers)
    assert response.status_code < 500


@fuzz(60)
@given(data=st.data())
def test_the_row_buttons_answer_any_post_without_a_server_error(
    user_client, full, data
):
    proposal, rows = full
    step = data.draw(st.sampled_from([s for s in STEP_SLUGS if tables_of(s)]))
    kind = data.draw(st.sampled_from([t.kind for t in tables_of(step)]))
    operation = data.draw(st.sampled_from(["add", "delete", "up", "down"]))
    kwargs = {"pk": proposal.pk, "step": step, "kind": kind, "operation": operation}
    if operation != "add":
        kwargs["row"] = data.draw(st.sampled_from(rows[kind]))
    posted = _posted(data.draw, _input_names(rows, step))
    headers = data.draw(st.sampled_from([{}, HX]))
    response = user_client.post(
        reverse("proposals:row", kwargs=kwargs), posted, headers=headers
    )
    assert response.status_code < 500


@fuzz(40)
@given(system=TEXT, extra=st.dictionaries(st.text(max_size=8), TEXT, max_size=3))
def test_the_retarget_form_answers_any_post_without_a_server_error(
    user_client, proposal, system, extra
):
    url = reverse("proposals:retarget_copy", args=[proposal.pk])
    response = user_client.post(url, {**extra, "system": system})
    assert response.status_code < 500


EXAMPLE = json.loads(example("lumi-fast-lane"))


def _paths(value, path=""):
    """Every JSON path of ``value`` (``scalability.jobs.0.gpus``), leaves and all."""
    yield path
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in children:
        yield from _paths(child, f"{path}.{key}" if path else str(key))


PATHS = [path for path in _paths(EXAMPLE) if path]
JSON_VALUES = st.one_of(
    TEXT,
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.booleans(),
    st.lists(TEXT, max_size=2),
    st.dictionaries(TEXT, TEXT, max_size=2),
)


def _document_with(path: str, value) -> str:
    document = json.loads(json.dumps(EXAMPLE))
    *parents, last = path.split(".")
    target = document
    for key in parents:
        target = target[int(key) if isinstance(target, list) else key]
    target[int(last) if isinstance(target, list) else last] = value
    return json.dumps(document)


def _raw(text: str) -> str:
    """A nasty value spliced in where a value goes, unquoted (``[[[[``, ``9…9``)."""
    return example("lumi-fast-lane").replace("18176", text, 1)


DOCUMENTS = st.one_of(
    st.builds(_document_with, st.sampled_from(PATHS), JSON_VALUES),
    st.sampled_from(NASTY).map(_raw),
    st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
)


@fuzz(60)
@given(document=DOCUMENTS, revision=st.booleans())
def test_the_json_import_answers_any_file_without_a_server_error(
    user_client, proposal, document, revision
):
    url = (
        reverse("proposals:import_json_revision", args=[proposal.pk])
        if revision
        else IMPORT
    )
    data = document.encode("utf-8", "surrogatepass")
    response = user_client.post(url, {"file": upload(data)})
    assert response.status_code < 500
