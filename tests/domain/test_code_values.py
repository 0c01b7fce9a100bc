"""The code card's fields declare what they hold once (``FieldSpec.value``): the JSON
format's ``codes[]`` keys and the domain's ``CodeEntry`` are built from them."""

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from proposals.domain import CodeEntry, formatshape
from proposals.domain.codeentry import CODE_FIELDS
from proposals.domain.field_catalogue import FIELDS

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_field_is_a_key_and_an_attribute_in_page_order():
    names = [spec.name for spec in FIELDS if spec.table == "codes"]
    assert [f.name for f in formatshape.CODE.fields] == names
    assert [f.name for f in dataclasses.fields(CodeEntry)] == names
    assert formatshape.CODE.build is CodeEntry


def test_the_domain_type_keeps_its_shape():
    types = {f.name: (f.type, f.default) for f in dataclasses.fields(CodeEntry)}
    assert types["role"] == (str, "main")
    assert types["references"] == (tuple[str, ...], ())
    assert types["model_use"] == (str, "training")
    assert types["epochs"] == (float | None, None)
    entry = CodeEntry(name="Megatron-LM")
    assert (entry.role, entry.name, entry.references) == ("main", "Megatron-LM", ())
    assert dataclasses.is_dataclass(entry)
    assert CodeEntry.__module__ == "proposals.domain.codeentry"


def test_a_code_field_without_a_value_fails_loudly():
    spec = dataclasses.replace(CODE_FIELDS[1], value=None)
    try:
        formatshape.Field.of(spec)
    except TypeError as error:
        assert "codes.name" in str(error)
    else:
        raise AssertionError("a field without a value became a key")


# A new field declared in the vocabulary only (as the README's recipe adds one): it
# must reach the domain type, the parser, the writer and the schema.
ADDED_FIELD = textwrap.dedent(
    """
    import importlib
    import json
    from pathlib import Path

    from proposals.domain import field_catalogue, limits
    from proposals.domain.fieldspec import row
    from proposals.domain.values import text

    field_catalogue.FIELDS = (
        *field_catalogue.FIELDS,
        row(
            "codes",
            "probe_image",
            "Probe image",
            value=text(limits.LINE_CHARS, description="An OCI image.", default=""),
        ),
    )

    # Build again what the package built from the vocabulary at import.
    from proposals.domain import codeentry, formatschema, formatshape, jsonformat

    for module in (codeentry, formatshape, formatschema, jsonformat):
        importlib.reload(module)
    CodeEntry, dumps, loads = codeentry.CodeEntry, jsonformat.dumps, jsonformat.loads
    schema = formatschema.schema

    older = Path("fixtures/examples/lumi-fast-lane.json").read_text()
    proposal = loads(older)
    assert proposal.codes[0].probe_image == ""
    data = json.loads(dumps(proposal))
    data["codes"][0]["probe_image"] = "ghcr.io/x/y:1"
    again = loads(json.dumps(data))
    node = schema()["$defs"]["CodeEntry"]
    print(json.dumps({
        "attribute": CodeEntry().probe_image,
        "written": list(json.loads(dumps(proposal))["codes"][0])[-1],
        "read": again.codes[0].probe_image,
        "schema": node["properties"]["probe_image"],
        "required": "probe_image" in node["required"],
    }))
    """
)


def test_a_field_declared_in_the_vocabulary_reaches_type_format_and_schema():
    run = subprocess.run(
        [sys.executable, "-c", ADDED_FIELD],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["attribute"] == ""
    assert seen["written"] == "probe_image"
    assert seen["read"] == "ghcr.io/x/y:1"
    assert seen["schema"]["type"] == "string"
    assert seen["schema"]["default"] == ""
    assert seen["schema"]["maxLength"] == 200
    assert seen["schema"]["description"] == "An OCI image."
    assert seen["required"] is False
