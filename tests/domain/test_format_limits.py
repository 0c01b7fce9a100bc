"""What the format refuses beyond its types: limits, odd characters, repeated keys,
unknown countries; every refusal names its path (and the limit)."""

import json

import pytest

from proposals.domain import FormatError, limits, loads, read
from tests.import_data import BASE, largest, text, with_rows


def refusal(data: str | bytes | dict) -> dict[str, str]:
    if isinstance(data, dict):
        data = json.dumps(data)
    with pytest.raises(FormatError) as info:
        read(data)
    return dict(info.value.problems)


def test_a_nul_character_is_refused_with_its_path():
    data = with_rows({"codes": 4})
    data["codes"][3]["name"] = "name\u0000x"
    assert refusal(data) == {"codes[3].name": "contains a NUL character"}


def test_a_lone_surrogate_is_refused_with_its_path():
    raw = json.dumps(BASE).replace('"Nordlicht Vision Oy"', '"Nordlicht \\ud800"')
    assert "surrogate" in refusal(raw)["organisation.name"]


def test_a_repeated_key_is_refused_not_last_wins():
    raw = json.dumps(BASE).replace(
        '"title": "Defect', '"title": "first", "title": "Defect', 1
    )
    assert refusal(raw) == {"title": "appears more than once in this object"}
    raw = json.dumps(BASE).replace('"gpus": 8', '"gpus": 8, "gpus": 9', 1)
    assert "appears more than once" in refusal(raw)["scalability.measurements[1].gpus"]


@pytest.mark.parametrize("code", ["XX", "de", "DEU", 7])
def test_a_country_the_wizard_does_not_offer_is_refused(code):
    data = with_rows({})
    data["organisation"]["country"] = code
    assert "country the wizard offers" in refusal(data)["organisation.country"]


@pytest.mark.parametrize("code", ["", "DE", "NO", "GB", "US"])
def test_countries_the_wizard_offers_are_accepted(code):
    data = with_rows({})
    data["organisation"]["country"] = code
    assert read(json.dumps(data)).organisation.country == code


def test_text_over_the_wizard_limit_is_refused_naming_the_limit():
    data = with_rows({})
    data["scalability"]["narrative"] = "x" * limits.NARRATIVE_CHARS
    read(json.dumps(data))  # exactly at the limit
    data["scalability"]["narrative"] += "x"
    message = refusal(data)["scalability.narrative"]
    assert f"at most {limits.NARRATIVE_CHARS}" in message


@pytest.mark.parametrize("table", sorted(limits.MAX_ROWS))
def test_one_row_over_a_table_limit_is_refused_naming_the_limit(table):
    most = limits.MAX_ROWS[table]
    data = with_rows({**limits.MAX_ROWS, table: most + 1})
    path = table if table == "codes" else f"scalability.{table}"
    assert refusal(data) == {path: f"has {most + 1} rows; at most {most} are allowed"}


def test_the_largest_allowed_file_is_accepted():
    proposal = read(text(largest()))
    assert len(proposal.scalability.jobs) == limits.MAX_ROWS["jobs"]


def test_nesting_deeper_than_the_format_is_refused():
    data = with_rows({})
    data["codes"][0]["references"] = [["a"]]
    assert "nested too deeply" in refusal(data)["codes[0].references[0]"]
    assert "nested too deeply" in refusal("[" * 100_000 + "]" * 100_000)["$"]


def test_a_byte_order_mark_is_accepted_and_size_is_limited():
    data = text(with_rows({}))
    assert read(b"\xef\xbb\xbf" + data) == read(data) == loads(data.decode())
    assert read("\ufeff" + data.decode()) == read(data)
    big = data + b" " * limits.MAX_DOCUMENT_BYTES
    assert "at most 2 MB" in refusal(big)["$"]


def test_references_are_lines_within_their_limit():
    data = with_rows({})
    data["codes"][0]["references"] = ["r" * 2000, "s" * 2000]
    assert "at most 4000" in refusal(data)["codes[0].references"]
    data["codes"][0]["references"] = ["  "]
    assert "one non-empty line" in refusal(data)["codes[0].references[0]"]
