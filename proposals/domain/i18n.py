"""Interface text in the person's language, for the pure domain (no Django import).

The domain marks its strings with functions named as Django's ``makemessages``
(xgettext) extracts them, so one catalogue holds the domain's and the web's text:

- ``gettext(text)``, translated when called, in the activated language: for text
  built while assessing (rule messages). Write it as
  ``gettext("{hours} GPU-hours is a {tier} request").format(hours=..., tier=...)``,
  never as an f-string (xgettext cannot read one).
- ``ngettext(singular, plural, n)``: the same with a count.
- ``pgettext(context, text)``: the same with a disambiguating context.
- ``gettext_noop(text)``: marks a constant made at import (labels, titles, help)
  for the catalogue; it stays English where it is stored.

Constants made at import are shown translated by ONE mechanism, in the domain, so
no consumer (form, template, export, finding) needs to translate them: the
dataclass that holds them declares the attribute as :class:`Translated`::

    @dataclass(frozen=True)
    class Section:
        slug: str
        title: str = Translated()      # required field
        short: str = Translated(default="")    # with a default

    Section("review", gettext_noop("Review"), gettext_noop("Review"))

The instance keeps the English text (``english(section, "title")``: for keys,
comparisons, the JSON and the portal text); reading ``section.title`` gives it
in the language active at that moment (English with none active, or under
``override("en-gb")``). A module-level dict of labels is a :class:`Labels` mapping
(``OUTCOMES = Labels({FEASIBLE: gettext_noop("Feasible")})``): reading a value gives
it in the active language, ``OUTCOMES.english(key)`` the stored English. A single
constant is marked with ``gettext_noop`` and read through ``gettext(text)`` where
it is used. Never translate at import, and never cache a translated text (``@cache``
keeps the first request's language): cache the English and translate when read
(``paste_columns.Target`` keeps its field spec and reads ``spec.header`` each time).
Django's model fields and form classes freeze labels when they are imported, so the
wizard's forms take each field's label and the domain's choices per instance
(``proposals/forms/base.py``).

Write whole sentences: one msgid per sentence with its values as ``{names}`` (the
translator may reorder them), a separate sentence per variant rather than glued
fragments, lists joined by :func:`join_and` / :func:`join_or`. Numbers inside go
through ``numbers.grouped`` (the person's number format), never ``f"{n:,}"``; the
guides' figures quoted in help keep their values. A text with a literal ``%``
followed by a letter (``76% of``) gets a ``# xgettext:no-python-format`` comment on
the line before it, or msgfmt takes it for a %-format.

The web layer installs Django's functions once (``install``, from the app's
``ready``); until then, and in the pure domain tests, text stays English. The
portal text and the JSON are made under ``translation.override("en-gb")``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

_gettext: Callable[[str], str] = lambda text: text  # noqa: E731
_ngettext: Callable[[str, str, int], str] = lambda one, many, n: one if n == 1 else many  # noqa: E731
_pgettext: Callable[[str, str], str] = lambda context, text: text  # noqa: E731


_language: Callable[[], str | None] = lambda: None  # noqa: E731
# Texts read in a language, by (language, English), with the count of a plural and
# the context of a ``pgettext``: Django's gettext walks a chain of catalogues
# (about 20 µs a call), and a label is read many times a request.
_constants: dict[tuple, str] = {}
_MOST_CONSTANTS = 20_000  # bounded all the same: forgotten whole when full


def install(
    gettext_fn: Callable[[str], str],
    ngettext_fn: Callable[[str, str, int], str],
    pgettext_fn: Callable[[str, str], str],
    language_fn: Callable[[], str | None] | None = None,
) -> None:
    """Route the domain's text through the web layer's translation functions;
    ``language_fn`` names the active language (the key of the constants' memo)."""
    global _gettext, _ngettext, _pgettext, _language
    _gettext, _ngettext, _pgettext = gettext_fn, ngettext_fn, pgettext_fn
    _language = language_fn or (lambda: None)
    forget()


def active_language() -> str | None:
    """The language active now (``"de"``, ``"en-gb"``), ``None`` before the web
    layer installs its functions."""
    return _language()


def reading() -> tuple[int, str | None]:
    """What the domain's texts read in now, as a key for memos of translated
    texts: the catalogues' generation (see :func:`forget`) and the active
    language, or ``"source"`` inside :func:`in_english`."""
    return _generation, "source" if _ENGLISH.get() else _language()


# Counts the changes of catalogues: a memo keyed by :func:`reading` misses after one.
_generation = 0


def forget() -> None:
    """Forget the constants read so far (when the catalogues change: a setting in
    a test, a new install)."""
    global _generation
    _generation += 1
    _constants.clear()


# Set inside :func:`in_english`: every text stays the English it is written in.
_ENGLISH: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "english", default=False
)


@contextlib.contextmanager
def in_english():
    """Inside the block, the domain's text is its English source whatever language
    the web layer has active: for what is English by definition (the generated rule
    reference, the JSON schema)."""
    token = _ENGLISH.set(True)
    try:
        yield
    finally:
        _ENGLISH.reset(token)


def _remembered(key: tuple, translate: Callable[[], str]) -> str:
    """What ``translate()`` gives for ``key`` (the active language first), made
    once per key until the memo is full or the catalogues change."""
    found = _constants.get(key)
    if found is None:
        if len(_constants) >= _MOST_CONSTANTS:
            _constants.clear()
        found = _constants[key] = translate()
    return found


def _constant(text: str) -> str:
    """A constant made at import (a :class:`Translated` attribute, a
    :class:`Labels` value) in the active language, remembered per language."""
    if _ENGLISH.get():
        return text
    key = (_language(), text)
    found = _constants.get(key)  # the common case, without a call to _remembered
    return _remembered(key, lambda: _gettext(text)) if found is None else found


def gettext(text: str) -> str:
    """``text`` in the activated language (remembered per language: the domain's
    msgids are literals, a bounded set)."""
    return _constant(text)


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` for ``n``, in the activated language."""
    if _ENGLISH.get():
        return singular if n == 1 else plural
    key = (_language(), singular, plural, n)  # the count picks the plural form
    return _remembered(key, lambda: _ngettext(singular, plural, n))


def pgettext(context: str, text: str) -> str:
    """``text`` (in ``context``) in the activated language."""
    if _ENGLISH.get():
        return text
    return _remembered((_language(), context, text), lambda: _pgettext(context, text))


def gettext_noop(text: str) -> str:
    """Mark ``text`` for the catalogue; it is translated where it is shown."""
    return text


_REQUIRED = object()


class TranslatedText:
    """A text attribute of a dataclass, stored in English and read translated.

    A data descriptor used as the dataclass field's default (``Translated()`` for a
    required field, ``Translated(default="")`` for an optional one): the dataclass
    ``__init__`` stores the English text in the instance's ``__dict__``; reading the
    attribute returns ``gettext(text)`` in the active language (empty text stays
    empty). :func:`english` reads what is stored."""

    def __init__(self, default: str | object = _REQUIRED) -> None:
        self.default = default
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> str:
        if obj is None:
            if self.default is _REQUIRED:
                # dataclasses read a class attribute as the field's default: none.
                raise AttributeError(self.name)
            return self.default  # type: ignore[return-value]
        text = obj.__dict__[self.name]
        return _constant(text) if text else text

    def __set__(self, obj: object, value: str) -> None:
        obj.__dict__[self.name] = value


if TYPE_CHECKING:
    # To the type checker (mypy, `make typecheck`) a Translated attribute is what it
    # is to the dataclass at run time: a field of its annotated type (``str``),
    # required unless ``default=`` is given. Seen as a plain default, a descriptor
    # would neither match ``str`` nor be required.
    from dataclasses import field as Translated
else:
    Translated = TranslatedText


class Labels(Mapping[str, str]):
    """Labels by key, stored in English (marked with ``gettext_noop``) and read in
    the active language: ``labels[key]``, ``labels.get(key)``, ``labels.items()``."""

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        self._english = dict(items)

    def __getitem__(self, key: str) -> str:
        return _constant(self._english[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._english)

    def __len__(self) -> int:
        return len(self._english)

    def english(self, key: str) -> str:
        """The stored English label of ``key``."""
        return self._english[key]


def english(obj: object, name: str) -> str:
    """The English text stored for ``obj``'s :class:`Translated` attribute ``name``
    (what keys, comparisons, the JSON and the portal use)."""
    return obj.__dict__[name]


def join_and(items: list[str]) -> str:
    """``["a", "b", "c"]`` as "a, b and c" in the active language."""
    return _join(items, gettext("{items} and {last}"))


def join_or(items: list[str]) -> str:
    """``["a", "b", "c"]`` as "a, b or c" in the active language."""
    return _join(items, gettext("{items} or {last}"))


def _join(items: list[str], pattern: str) -> str:
    items = list(items)
    if len(items) < 2:
        return items[0] if items else ""
    return pattern.format(items=gettext(", ").join(items[:-1]), last=items[-1])
