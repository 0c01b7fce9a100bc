"""What a field holds: its key in the JSON format and its attribute in the domain
type, declared once beside the field's words (``FieldSpec.value``).

The code card's fields are declared this way: :data:`.codeentry.CodeEntry` (the
domain type) and the format's ``codes[]`` keys (:data:`.formatshape.CODE`) are both
built from the vocabulary's ``codes`` rows, so a field added to the code card needs
no line in either.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, make_dataclass

REQUIRED = object()  # marks a key every file must have

# The attribute type and the blank value of each JSON kind in the domain type.
_TYPES = {
    "string": (str, ""),
    "enum": (str, ""),
    "strings": (tuple[str, ...], ()),
    "number": (float, 0.0),
    "integer": (int, 0),
    "boolean": (bool, False),
}


@dataclass(frozen=True)
class Value:
    """A field's JSON kind (string, enum, strings, number, integer, boolean), its
    limits and description in the format, and its defaults: ``default`` is the
    format's, for keys added to version 1 after its release (a file without the key
    still imports; exports always write it); ``initial`` is the domain type's when the
    format has none (a blank draft's value)."""

    kind: str
    nullable: bool = False
    choices: tuple[str, ...] = ()
    max_length: int | None = None  # characters (strings: all items, one per line)
    description: str = ""
    default: object = REQUIRED
    initial: object = REQUIRED

    @property
    def python_type(self) -> object:
        kind = _TYPES[self.kind][0]
        return kind | None if self.nullable else kind

    @property
    def blank(self) -> object:
        """The domain type's default: the format's default, else ``initial``, else
        ``None`` for a nullable key, else the kind's empty value."""
        for value in (self.default, self.initial):
            if value is not REQUIRED:
                return value
        return None if self.nullable else _TYPES[self.kind][1]


def text(max_length: int, **kwargs) -> Value:
    """A string of at most ``max_length`` characters."""
    return Value("string", max_length=max_length, **kwargs)


def lines(max_length: int, **kwargs) -> Value:
    """Non-empty lines (a JSON array of strings), ``max_length`` characters in all."""
    return Value("strings", max_length=max_length, **kwargs)


def choice(choices: Iterable[str], **kwargs) -> Value:
    """One of ``choices``."""
    return Value("enum", choices=tuple(choices), **kwargs)


def number(**kwargs) -> Value:
    """An optional number (``null`` when not given)."""
    return Value("number", nullable=True, **kwargs)


def entry_type(name: str, specs: Iterable, doc: str, module: str) -> type:
    """A frozen dataclass with one attribute per field spec (in order), typed and
    defaulted by its ``value``: the domain type of a table's row. A spec without a
    value is an error, not a missing attribute."""
    attributes = []
    for spec in specs:
        if spec.value is None:
            raise TypeError(f"{spec.key} declares no value (FieldSpec.value)")
        attributes.append((spec.name, spec.value.python_type, spec.value.blank))
    attributes = [(n, t, field(default=blank)) for n, t, blank in attributes]
    cls = make_dataclass(name, attributes, frozen=True)
    cls.__doc__ = doc
    cls.__module__ = module  # where it is defined, for pickle and repr
    return cls
