"""Interface text in the person's language, for the pure domain (no Django import).

The domain marks its strings with functions named as Django's ``makemessages``
(xgettext) extracts them, so one catalogue holds the domain's and the web's text:

- ``gettext(text)``, translated when called, in the activated language: for text
  built while assessing (rule messages). Write it as
  ``gettext("{hours} GPU-hours is a {tier} request").format(hours=..., tier=...)``,
  never as an f-string (xgettext cannot read one).
- ``ngettext(singular, plural, n)``: the same with a count.
- ``pgettext(context, text)``: the same with a disambiguating context.
- ``gettext_noop(text)``: marks a constant made at import (labels, titles, help);
  it stays English in the domain and the web layer translates it where it is shown
  (``{% translate label %}`` in a template, ``gettext(label)`` in Python).

The web layer installs Django's functions once (``install``, from the app's
``ready``); until then, and in the pure domain tests, text stays English. The
portal text and the JSON are made under ``translation.override("en")``.
"""

from __future__ import annotations

from collections.abc import Callable

_gettext: Callable[[str], str] = lambda text: text  # noqa: E731
_ngettext: Callable[[str, str, int], str] = lambda one, many, n: one if n == 1 else many  # noqa: E731
_pgettext: Callable[[str, str], str] = lambda context, text: text  # noqa: E731


def install(
    gettext_fn: Callable[[str], str],
    ngettext_fn: Callable[[str, str, int], str],
    pgettext_fn: Callable[[str, str], str],
) -> None:
    """Route the domain's text through the web layer's translation functions."""
    global _gettext, _ngettext, _pgettext
    _gettext, _ngettext, _pgettext = gettext_fn, ngettext_fn, pgettext_fn


def gettext(text: str) -> str:
    """``text`` in the activated language."""
    return _gettext(text)


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` for ``n``, in the activated language."""
    return _ngettext(singular, plural, n)


def pgettext(context: str, text: str) -> str:
    """``text`` (in ``context``) in the activated language."""
    return _pgettext(context, text)


def gettext_noop(text: str) -> str:
    """Mark ``text`` for the catalogue; it is translated where it is shown."""
    return text
