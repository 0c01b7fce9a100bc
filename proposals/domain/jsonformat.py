"""The JSON format ``aifactory-proposal/1``: parse, dump and its JSON Schema.

One declarative description of the format (``FORMAT``) drives all three, so parser,
writer and schema cannot disagree. Every key of the first release is required
(optional values are ``null``); keys added since carry a default and may be left out,
so older files still import. Unknown keys are refused, and :func:`parse` reports
every problem with its JSON path (``scalability.jobs[2].gpus``; ``$`` is the whole
document) in one :class:`FormatError`. :func:`dumps` is deterministic: fixed key
order, two-space indent, UTF-8 characters kept, whole numbers written as integers
and a trailing newline, so export -> import -> export is byte-identical.

The format declares how much a document may hold (``limits``): rows per table,
characters per text field (the wizard's own limits), nesting depth and size; and the
range of every number (``bounds``, the table the wizard's fields read, so a file
holds no number the wizard would refuse). Every number within its bound is exactly
a binary double, so reading it as a float and writing it back changes nothing. Text
may not contain NUL characters or lone surrogates, an object may not repeat a key,
and a country is one the wizard offers. Value checks that are advice rather than
format (months after the duration, a plan that does not add up, ...) are left to
the findings.
"""

from __future__ import annotations

import json
import math

from . import limits
from .bounds import BOUNDS
from .countries import selectable_codes
from .formatschema import schema, schema_text  # noqa: F401 (re-exported)
from .formatshape import (  # noqa: F401 (re-exported)
    FORMAT,
    FORMAT_TAG,
    PROPOSAL,
    SCALABILITY,
    Field,
    Shape,
)
from .i18n import gettext
from .numbers import grouped, json_number
from .team import has_address
from .types import (
    Proposal,
)


class FormatError(ValueError):
    """The document is not valid ``aifactory-proposal/1``.

    ``problems`` lists ``(json_path, message)`` for every problem found.
    """

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("\n".join(f"{path}: {msg}" for path, msg in self.problems))


_MISSING = object()


def _out_of_range(value: float, field: Field) -> str:
    """Why ``value`` is refused for ``field``: its bound, in the person's numbers,
    with the reason of the end it passed."""
    bound = field.bound
    assert bound is not None  # only a number with a bound is out of its range
    values = {
        "low": grouped(bound.low, bound.places),
        "high": grouped(bound.high, bound.places),
        "why": bound.why_low if value < bound.low else bound.why_high,
    }
    if not math.isfinite(value):
        return gettext("must be a finite number from {low} to {high}").format(**values)
    if field.zero_is_blank:
        return gettext(
            "must be 0 (a blank cell) or from {low} to {high}: {why}"
        ).format(**values)
    return gettext("must be from {low} to {high}: {why}").format(**values)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (PostgreSQL refuses both), or ``None``."""
    if "\x00" in text:
        return gettext("contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return gettext("contains a lone surrogate (an invalid character)")
    return None


def _key(key: str) -> str:
    """A key as it may appear in a problem's path (odd characters escaped)."""
    return key if _text_problem(key) is None else json.dumps(key)


class _Object(dict):
    """A decoded JSON object that remembers the keys it was given more than once."""

    repeated: tuple[str, ...] = ()


def _pairs(pairs: list[tuple[str, object]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        repeated = []
        for key, _ in pairs:
            if key in seen:
                repeated.append(key)
            seen.add(key)
        obj.repeated = tuple(repeated)
    return obj


class _Parser:
    """Collects every problem while building the domain objects."""

    def __init__(self):
        self.problems: list[tuple[str, str]] = []

    def fail(self, path: str, message: str):
        self.problems.append((path or "$", message))
        return _MISSING

    def number(self, value, field: Field, path: str):
        """A number within the field's bound (``domain.bounds``, which the wizard
        reads too); ``0`` also where it stands for a blank table cell."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return self.fail(path, gettext("must be a number"))
        bound = field.bound
        # The range first: an integer of more than 308 digits has no float.
        if bound is None:
            if not math.isfinite(value):
                return self.fail(path, gettext("must be a finite number"))
        elif not (bound.admits(value) or (field.zero_is_blank and value == 0)):
            return self.fail(path, _out_of_range(value, field))
        if field.kind == "integer":
            if not float(value).is_integer():
                return self.fail(path, gettext("must be a whole number"))
            return int(value)
        return float(value)

    def text(self, value, field: Field, path: str):
        if not isinstance(value, str):
            return self.fail(path, gettext("must be a string"))
        problem = _text_problem(value)
        if problem:
            return self.fail(path, problem)
        if field.max_length is not None and len(value) > field.max_length:
            return self.fail(
                path,
                gettext(
                    "is {length} characters long; at most {most} are allowed"
                ).format(length=len(value), most=field.max_length),
            )
        return value

    def strings(self, value, field: Field, path: str):
        if not isinstance(value, list):
            return self.fail(path, gettext("must be a list of strings"))
        before = len(self.problems)
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if not isinstance(item, str):
                self.fail(where, gettext("must be a string"))
            elif problem := _text_problem(item):
                self.fail(where, problem)
            elif not item.strip() or "\n" in item or "\r" in item:
                self.fail(
                    where,
                    gettext("a reference is one non-empty line (a link or a citation)"),
                )
        if len(self.problems) > before:
            return _MISSING
        length = len("\n".join(value))
        if field.max_length is not None and length > field.max_length:
            return self.fail(
                path,
                gettext(
                    "has {length} characters in all; at most {most} are allowed"
                ).format(length=length, most=field.max_length),
            )
        return tuple(value)

    def names(self, value, field: Field, path: str):
        """A list of people's names: each one line of text, none an address."""
        if not isinstance(value, list):
            return self.fail(path, gettext("must be a list of names"))
        if field.max_items is not None and len(value) > field.max_items:
            return self.fail(
                path,
                gettext("has {count} names; at most {most} are allowed").format(
                    count=len(value), most=field.max_items
                ),
            )
        before = len(self.problems)
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if not isinstance(item, str):
                self.fail(where, gettext("must be a string"))
            elif problem := _text_problem(item):
                self.fail(where, problem)
            elif not item.strip() or "\n" in item or "\r" in item:
                self.fail(where, gettext("a name is one non-empty line"))
            elif field.max_length is not None and len(item) > field.max_length:
                self.fail(
                    where,
                    gettext(
                        "is {length} characters long; at most {most} are allowed"
                    ).format(length=len(item), most=field.max_length),
                )
            elif has_address(item):
                self.fail(
                    where,
                    gettext(
                        "looks like an e-mail address: the team is listed by "
                        "names only, never by addresses"
                    ),
                )
        if len(self.problems) > before:
            return _MISSING
        return tuple(value)

    def value(self, value, field: Field, path: str):
        if value is None:
            return (
                None if field.nullable else self.fail(path, gettext("must not be null"))
            )
        kind = field.kind
        if kind in ("integer", "number"):
            return self.number(value, field, path)
        if kind == "boolean":
            return (
                value
                if isinstance(value, bool)
                else self.fail(path, gettext("must be true or false"))
            )
        if kind == "string":
            return self.text(value, field, path)
        if kind == "enum":
            if isinstance(value, str) and value in field.choices:
                return value
            allowed = ", ".join(f'"{c}"' for c in field.choices)
            return self.fail(
                path, gettext("must be one of {allowed}").format(allowed=allowed)
            )
        if kind == "country":
            if isinstance(value, str) and (value == "" or value in selectable_codes()):
                return value
            return self.fail(
                path,
                gettext(
                    "must be the two-letter code of a country the wizard offers "
                    '(ISO 3166-1 alpha-2, such as "DE"), or ""'
                ),
            )
        if kind == "strings":
            return self.strings(value, field, path)
        if kind == "names":
            return self.names(value, field, path)
        if kind == "object":
            return self.object(value, field.nested, path)
        if not isinstance(value, list):
            return self.fail(path, gettext("must be a list"))
        if field.max_items is not None and len(value) > field.max_items:
            return self.fail(
                path,
                gettext("has {rows} rows; at most {most} are allowed").format(
                    rows=len(value), most=field.max_items
                ),
            )
        items = [
            self.object(item, field.nested, f"{path}[{i}]")
            for i, item in enumerate(value)
        ]
        return _MISSING if _MISSING in items else tuple(items)

    def object(self, data, shape: Shape, path: str):
        if not isinstance(data, dict):
            return self.fail(path, gettext("must be an object"))
        for key in getattr(data, "repeated", ()):
            self.fail(
                _join(path, _key(key)), gettext("appears more than once in this object")
            )
        names = {f.name for f in shape.fields}
        for key in data:
            if key not in names:
                self.fail(
                    _join(path, _key(str(key))),
                    gettext("is not a field of this format"),
                )
        values = {}
        for field in shape.fields:
            child = _join(path, field.name)
            raw = data.get(field.name, _MISSING)
            if raw is _MISSING and not field.required:
                values[field.name] = field.default
            elif raw is _MISSING:
                values[field.name] = self.fail(child, gettext("is required"))
            else:
                values[field.name] = self.value(raw, field, child)
        if _MISSING in values.values():
            return _MISSING
        return values if shape is PROPOSAL else shape.build(**values)


def _too_deep(data: object) -> list[tuple[str, str]]:
    """The outermost objects or lists nested deeper than ``limits.MAX_DEPTH``."""
    problems = []
    stack = [(data, "", 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, dict):
            children = [(_join(path, _key(str(k))), v) for k, v in node.items()]
        elif isinstance(node, list):
            children = [(f"{path}[{i}]", v) for i, v in enumerate(node)]
        else:
            continue
        if depth > limits.MAX_DEPTH:
            problems.append(
                (
                    path or "$",
                    gettext(
                        "is nested too deeply: at most {most} levels of objects and "
                        "lists are allowed"
                    ).format(most=limits.MAX_DEPTH),
                )
            )
            continue
        stack.extend((value, where, depth + 1) for where, value in reversed(children))
    return problems


def parse(data: object) -> Proposal:
    """Validate a decoded JSON document and return the domain proposal.

    Raises :class:`FormatError` listing every problem with its JSON path.
    """
    too_deep = _too_deep(data)
    if too_deep:
        raise FormatError(too_deep)
    parser = _Parser()
    values = parser.object(data, PROPOSAL, "")
    if values is not _MISSING:
        codes = len(values["codes"])
        for i, m in enumerate(values["scalability"].measurements):
            if m.code is not None and not 0 <= m.code < codes:
                parser.fail(
                    f"scalability.measurements[{i}].code",
                    gettext(
                        "must be null or the index of a code entry (0 to {last})"
                    ).format(last=codes - 1)
                    if codes
                    else gettext("must be null: there are no code entries"),
                )
    if parser.problems:
        raise FormatError(parser.problems)
    values.pop("format")
    values["optimisation_narrative"] = values.pop("optimisation")
    return Proposal(**values)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not allowed in this format")


_LONGEST_INTEGER = max(len(str(int(b.high))) for b in BOUNDS.values())


def _integer(digits: str) -> int | float:
    """A JSON integer. One with more digits than the largest bound is read as an
    infinity, so that it is refused with its path like any number out of range
    (``int()`` itself refuses more than 4,300 digits, and anything past 308 has no
    float)."""
    if len(digits.lstrip("-")) > _LONGEST_INTEGER:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


def loads(text: str | bytes) -> Proposal:
    """Decode JSON text and :func:`parse` it; bad JSON is a ``FormatError`` at ``$``.

    A repeated key is refused (not silently last-wins), as are NaN and Infinity."""
    try:
        data = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=_integer,
            object_pairs_hook=_pairs,
        )
    except RecursionError:
        raise FormatError(
            [
                (
                    "$",
                    gettext("is nested too deeply: at most {most} levels").format(
                        most=limits.MAX_DEPTH
                    ),
                )
            ]
        ) from None
    except ValueError as exc:
        raise FormatError(
            [("$", gettext("not valid JSON: {error}").format(error=exc))]
        ) from None
    return parse(data)


def read(data: bytes | str) -> Proposal:
    """Read a whole file: at most ``limits.MAX_DOCUMENT_BYTES``, UTF-8 with or
    without a byte-order mark, then :func:`loads`. Every way in (upload, command
    line) reads files with this function, so they accept the same files."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > limits.MAX_DOCUMENT_BYTES:
        most = limits.MAX_DOCUMENT_BYTES / 1024 / 1024
        raise FormatError(
            [
                (
                    "$",
                    gettext(
                        "the file is {size} bytes; at most {most} MB are allowed"
                    ).format(size=grouped(len(data), 0), most=grouped(most, 6)),
                )
            ]
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(
            [("$", gettext("not UTF-8 text: {reason}").format(reason=exc.reason))]
        ) from None
    return loads(text)


def _dump_value(value, field: Field):
    if field.kind in ("integer", "number"):
        return json_number(value, None)
    if field.kind in ("strings", "names"):
        return list(value)
    if field.kind == "object":
        return _dump_object(value, field.nested)
    if field.kind == "array":
        return [_dump_object(item, field.nested) for item in value]
    return value


def _dump_object(instance, shape: Shape) -> dict:
    return {f.name: _dump_value(getattr(instance, f.name), f) for f in shape.fields}


def dump(proposal: Proposal) -> dict:
    """Return the proposal as a JSON-ready dict in the format's key order."""
    out: dict[str, object] = {"format": FORMAT_TAG}
    for field in PROPOSAL.fields[1:]:
        if field.name == "optimisation":
            out["optimisation"] = {"narrative": proposal.optimisation_narrative}
        elif field.name == "team":
            if proposal.team:  # a proposal of one person lists no team
                out["team"] = _dump_value(proposal.team, field)
        else:
            out[field.name] = _dump_value(getattr(proposal, field.name), field)
    return out


def dumps(proposal: Proposal) -> str:
    """Serialise deterministically (indent 2, UTF-8 kept, trailing newline)."""
    return json.dumps(dump(proposal), indent=2, ensure_ascii=False) + "\n"
