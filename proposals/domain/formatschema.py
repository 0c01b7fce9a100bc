"""The JSON Schema (draft 2020-12) of ``aifactory-proposal/1``, generated from the
format's declarative description, as committed in ``docs/proposal-format.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any

from . import i18n
from .countries import selectable_codes
from .formatshape import PROPOSAL, Field, Shape
from .numbers import json_number
from .team import ADDRESS_PATTERN


def _schema_for(field: Field) -> dict:
    kind = field.kind
    node: dict[str, Any]  # JSON Schema nodes
    item: dict[str, Any]
    if kind == "enum":
        node = {"enum": list(field.choices)}
    elif kind == "country":
        node = {"enum": ["", *sorted(selectable_codes())]}
    elif kind == "strings":
        item = {"type": "string", "pattern": "^[^\\r\\n]*\\S[^\\r\\n]*$"}
        node = {"type": "array", "items": item}
    elif kind == "names":
        item = {
            "type": "string",
            "pattern": "^[^\\r\\n]*\\S[^\\r\\n]*$",
            "maxLength": field.max_length,
            "not": {"pattern": ADDRESS_PATTERN},
        }
        node = {"type": "array", "items": item, "maxItems": field.max_items}
    elif kind == "object":
        node = {"$ref": f"#/$defs/{field.nested.title}"}
    elif kind == "array":
        node = {"type": "array", "items": {"$ref": f"#/$defs/{field.nested.title}"}}
        if field.max_items is not None:
            node["maxItems"] = field.max_items
    else:
        node = {"type": kind}
        if field.max_length is not None:
            node["maxLength"] = field.max_length
        if field.bound is not None:
            node.update(_range(field))
    if field.nullable:
        if "enum" in node:
            node["enum"].append(None)
        else:
            node = (
                {"anyOf": [node, {"type": "null"}]}
                if "$ref" in node
                else {**node, "type": [node["type"], "null"]}
            )
    if field.description:
        node["description"] = field.description
    if not field.required:
        node["default"] = (
            list(field.default) if isinstance(field.default, tuple) else field.default
        )
    return node


def _range(field: Field) -> dict:
    """``minimum`` and ``maximum`` from the field's bound (``domain.bounds``); a
    table cell may also be 0, which stands for the cell left blank."""
    assert field.bound is not None  # called for a field with a bound
    low, high = (
        json_number(float(end), None) for end in (field.bound.low, field.bound.high)
    )
    if field.zero_is_blank:
        return {"anyOf": [{"const": 0}, {"minimum": low}], "maximum": high}
    return {"minimum": low, "maximum": high}


def _shape_schema(shape: Shape) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [f.name for f in shape.fields if f.required],
        "properties": {f.name: _schema_for(f) for f in shape.fields},
    }


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of the format, generated from ``FORMAT``."""
    shapes = {}
    stack = [PROPOSAL]
    while stack:
        shape = stack.pop()
        for field in shape.fields:
            if field.shape is not None and field.shape.title not in shapes:
                shapes[field.shape.title] = field.shape
                stack.append(field.shape)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://aifactory-wizard.example/schemas/aifactory-proposal-1.json",
        "title": "AI Factory proposal (aifactory-proposal/1)",
        "description": "A whole proposal: organisation, AI Factory selection, code "
        "details, scalability data and optimisation plan. Every key is required; "
        "optional values are null.",
        **_shape_schema(PROPOSAL),
        "$defs": {title: _shape_schema(shapes[title]) for title in sorted(shapes)},
    }


def schema_text() -> str:
    """The schema as committed in ``docs/proposal-format.schema.json`` (English,
    whatever language is active)."""
    with i18n.in_english():
        return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"
