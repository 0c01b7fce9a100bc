"""Numbers: normalisation shared by the JSON format and the assessment output, and
numbers as people write and read them: the one reader (``parse_number``) and
printer (``format_number``, ``grouped``) of the project, in a CLDR number format
(Babel) passed in or activated for the request or e-mail (``using``)."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

import babel
import babel.localedata

from .countries import sort_key
from .i18n import gettext, ngettext


def json_number(
    value: float | int | None, digits: int | None = 6
) -> float | int | None:
    """Round to ``digits`` decimals (``None``: keep) and return whole values as int.

    Keeps output stable across platforms and makes ``4.0`` and ``4`` print alike.
    A whole float beyond 2^53 (the FLOPs of a large training run, 3.79e25) stays a
    float: as an integer it would print 26 digits of which the last ten are binary
    noise, not figures; ``json.dumps`` writes it as ``3.79e+25``, which reads back
    to the same double. No value a person types is that large (``domain.bounds``).
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    rounded = float(value) if digits is None else round(float(value), digits)
    if rounded.is_integer() and abs(rounded) <= EXACT_INTEGERS:
        return int(rounded)
    return rounded


EXACT_INTEGERS = 2**53
"""Every whole number up to this is exactly a binary double; 2^53 + 1 is not."""


# How every page, export and message shows a number that is not there.
MISSING = "—"


def grouped(
    value: float | int | Decimal | None,
    decimals: int = 2,
    missing: str = MISSING,
    fmt: NumberFormat | None = None,
    *,
    trim: bool = True,
) -> str:
    """A number as people read it, in ``fmt`` (default: the :func:`active_format`):
    ``18176`` -> ``18,176`` / ``18.176`` / ``18 176``, ``0.1`` -> ``0.1`` / ``0,1``,
    at most ``decimals`` places and no trailing zeros (``trim=False``: exactly
    ``decimals`` places, ``1.50``); ``missing`` for none (or for a value that is not
    a finite number)."""
    if value is None or isinstance(value, bool):
        return missing
    try:
        number = float(value)
    except (TypeError, ValueError):
        return missing
    if not math.isfinite(number):
        return missing
    fmt = fmt or active_format()
    if trim and number.is_integer():
        return fmt.write(str(int(number)), "")
    text = f"{number:.{decimals}f}"
    if trim:
        text = text.rstrip("0").rstrip(".") if "." in text else text
        if text in ("-0", "", "0"):
            return "0"
    elif text.startswith("-") and not text.strip("-0."):
        text = text[1:]
    whole, _, fraction = text.partition(".")
    return fmt.write(whole, fraction)


def num(value, decimals: int | str = 2) -> str:
    """The one number printer of messages, pages and exports: :func:`grouped` in the
    active format (``18176`` -> ``18,176``), at most ``decimals`` places; ``—`` for
    nothing, and for ``""`` (a template's missing value)."""
    if isinstance(value, str) and value == "":
        return MISSING
    return grouped(value, int(decimals))


def hours(value: float | int | None, missing: str = MISSING) -> str:
    """GPU-hours (or node-hours) as people read an estimate: whole hours from 10 up
    (``77,467``), two significant figures below (``0.2``, ``0.023``, ``4.6``), so a
    small fine-tune never shows as ``0``."""
    if value is None or isinstance(value, bool):
        return missing
    try:
        number = float(value)
    except (TypeError, ValueError):
        return missing
    if not math.isfinite(number):
        return missing
    if number == 0 or abs(number) >= 9.5:
        return grouped(round(number), 0, missing)
    digits = 1 - math.floor(math.log10(abs(number)))  # two significant figures
    return grouped(round(number, digits), max(digits, 0), missing)


def ratio(value: float) -> str:
    """A ratio such as "1.05x" (``1,05x`` in German): two decimals below 100, whole
    and grouped above (``63,753x``, not ``63752.61x``)."""
    if abs(value) >= 100:
        return f"{grouped(round(value), 0)}x"
    return f"{grouped(value, 2, trim=False)}x"


def percent(
    fraction: float | None,
    decimals: int = 0,
    missing: str = MISSING,
    fmt: NumberFormat | None = None,
) -> str:
    """A fraction as a percentage in ``fmt`` (default: the active format), exactly
    ``decimals`` places: ``0.953`` -> ``95%`` / ``95 %`` (German, French) /
    ``%95`` (Turkish); ``percent(0.0123, 1)`` -> ``1.2%`` / ``1,2 %``."""
    if fraction is None or isinstance(fraction, bool):
        return missing
    return points(float(fraction) * 100, decimals, missing, fmt, trim=False)


def points(
    value: float | None,
    decimals: int = 1,
    missing: str = MISSING,
    fmt: NumberFormat | None = None,
    *,
    trim: bool = True,
) -> str:
    """A value already in percent (an MFU of ``38``) as a percentage in ``fmt``
    (default: the active format): ``38%`` / ``38 %``; at most ``decimals`` places
    (``trim=False``: exactly), ``missing`` for none. The one place the percent sign
    is put: where CLDR puts it for the format's locale."""
    fmt = fmt or active_format()
    text = grouped(value, decimals, missing, fmt, trim=trim)
    if text == missing:
        return missing
    before, after = fmt.percent_affixes
    sign = ""
    if text.startswith(fmt.minus):
        sign, text = fmt.minus, text[len(fmt.minus) :]
    return f"{sign}{before}{text}{after}"


# --- Numbers as people write them --------------------------------------------------
#
# An applicant writes eighteen thousand as ``18176``, ``18,176``, ``18 176``,
# ``18.176`` or ``18'176`` depending on where they learnt to write numbers. A number
# format is a CLDR locale (through Babel): its decimal mark, group mark, grouping
# sizes and minus sign, for every locale whose digits are the Latin ones. The wizard
# reads a typed number in the applicant's format (a per-user setting) and prints every
# number in it; where the other convention would read the same text differently, the
# field says how it was read. Text with anything but digits, separators and a sign is
# refused, never truncated.

# Spaces people (and their keyboards and word processors) put between digit groups:
# space, no-break space, narrow no-break space, thin space.
SPACES = " \u00a0\u202f\u2009"
# The apostrophes Swiss and Liechtenstein people write between groups (1'234, 1’234).
APOSTROPHES = "'\u2019"
MINUS_SIGNS = "-\u2212"
# Direction marks CLDR puts before a minus sign (Arabic, Hebrew, Urdu, ...).
_BIDI_MARKS = "\u200e\u200f\u061c"


@dataclass(frozen=True)
class NumberFormat:
    """How one group of people writes numbers (a CLDR locale): the decimal mark, the
    marks accepted between digit groups, the one printed between them, the grouping
    sizes (last group, then the others: 3, 3 or Indian 3, 2) and the minus sign."""

    name: str
    label: str
    decimal: str
    groups: str
    group_display: str
    minus: str = "-"
    primary: int = 3
    secondary: int = 3
    # What CLDR writes before and after a percentage's number: ("", "%") in English,
    # ("", "\u00a0%") in German and French, ("%", "") in Turkish.
    percent_affixes: tuple[str, str] = ("", "%")

    @property
    def other(self) -> str:
        """The mark the other convention uses for decimals."""
        return "," if self.decimal == "." else "."

    @property
    def example(self) -> str:
        return format_number(Decimal("1234.5"), self)

    def write(self, whole: str, fraction: str, *, grouping: bool = True) -> str:
        """Digits (``whole`` possibly with a leading ``-``) written in this format."""
        sign = ""
        if whole.startswith("-"):
            sign, whole = self.minus, whole[1:]
        if grouping and len(whole) > self.primary:
            parts = [whole[-self.primary :]]
            whole = whole[: -self.primary]
            while len(whole) > self.secondary:
                parts.append(whole[-self.secondary :])
                whole = whole[: -self.secondary]
            parts.append(whole)
            whole = self.group_display.join(reversed(parts))
        return sign + whole + (self.decimal + fraction if fraction else "")


def _accepted_groups(decimal: str, group: str) -> str:
    """The marks read between digit groups for a locale whose group mark is
    ``group``: that mark, every space, both apostrophes where it is one, and the
    point where the decimal mark is a comma (``18.176`` in Finland or France)."""
    marks = group + SPACES
    if group in APOSTROPHES:
        marks += APOSTROPHES
    if decimal == ",":
        marks += "."
    return "".join(dict.fromkeys(mark for mark in marks if mark != decimal))


@functools.lru_cache(maxsize=4096)  # bounded: names may come from requests
def _locale_format(name: str) -> NumberFormat | None:
    """The CLDR number format of locale ``name`` (``de_CH``), or ``None`` when CLDR
    does not know it or its digits are not the Latin ones."""
    try:
        locale = babel.Locale.parse(name)
    except (ValueError, TypeError, babel.UnknownLocaleError):
        return None
    if locale.default_numbering_system != "latn":
        return None
    symbols = locale.number_symbols["latn"]
    decimal, group = symbols["decimal"], symbols["group"]
    minus = symbols["minusSign"].strip(_BIDI_MARKS) or "-"
    if decimal not in ".," or minus not in MINUS_SIGNS:
        return None
    pattern = locale.decimal_formats[None]
    primary, secondary = pattern.grouping
    sign = symbols.get("percentSign", "%").strip(_BIDI_MARKS) or "%"
    percent_pattern = locale.percent_formats[None]
    affixes = tuple(
        affix.replace("%", sign)
        for affix in (percent_pattern.prefix[0], percent_pattern.suffix[0])
    )
    # English and the locale's own name; CLDR lacks one or both for a few locales
    # ("mhn"): the name that exists, else the locale's code, never "None".
    names = (locale.get_display_name("en"), locale.get_display_name(locale))
    label = " · ".join(dict.fromkeys(n for n in names if n)) or str(locale)
    fmt = NumberFormat(
        str(locale),
        label,
        decimal,
        _accepted_groups(decimal, group),
        group,
        minus,
        primary,
        secondary,
        affixes,
    )
    return replace(fmt, label=f"{fmt.label}: {fmt.write('1234', '5')}")


class _Formats(Mapping):
    """Every number format by locale name, read from CLDR when first asked for."""

    def __getitem__(self, name: str) -> NumberFormat:
        fmt = _locale_format(name) if isinstance(name, str) else None
        if fmt is None or fmt.name != name:
            raise KeyError(name)
        return fmt

    def __iter__(self):
        return iter(_format_names())

    def __len__(self) -> int:
        return len(_format_names())


@functools.lru_cache(maxsize=1)
def _format_names() -> tuple[str, ...]:
    return tuple(
        name
        for name in sorted(babel.localedata.locale_identifiers())
        if (fmt := _locale_format(name)) is not None and fmt.name == name
    )


NUMBER_FORMAT_BY_NAME: Mapping[str, NumberFormat] = _Formats()
DEFAULT_NUMBER_FORMAT = "en"
# The portal's own form, and the exports': ``18,176`` and ``0.2``.
PORTAL = NUMBER_FORMAT_BY_NAME["en"]


def number_formats(languages: Iterable[str] = ()) -> tuple[NumberFormat, ...]:
    """Every format CLDR knows (Latin digits): those of ``languages`` first (the
    person's: their setting, their browser's Accept-Language, ``de-CH``), then the
    others by name, case and accents ignored."""
    first = tuple(dict.fromkeys(f for f in map(_format_of, languages) if f))
    return first + tuple(f for f in _by_label() if f not in first)


@functools.lru_cache(maxsize=1)
def _by_label() -> tuple[NumberFormat, ...]:
    formats = (NUMBER_FORMAT_BY_NAME[name] for name in _format_names())
    return tuple(sorted(formats, key=_label_key))


def _label_key(fmt: NumberFormat) -> tuple:
    """By language name (case and accents ignored), the language's own format
    before its regions' ("German" before "German (Austria)")."""
    language = re.split(r" \(| · |: ", fmt.label, maxsplit=1)[0]
    return (sort_key(language), "_" in fmt.name, sort_key(fmt.label))


def _format_of(language: str) -> NumberFormat | None:
    """The format of ``language`` (``de-CH``, ``fr_BE``), if CLDR knows it."""
    try:
        name = str(babel.Locale.parse(str(language).replace("-", "_")))
    except (ValueError, TypeError, babel.UnknownLocaleError):
        return None
    return NUMBER_FORMAT_BY_NAME.get(name)


def format_for_languages(languages) -> NumberFormat:
    """The number format of the first language (in preference order, e.g. from a
    browser's Accept-Language: ``de-CH``) that CLDR knows; English otherwise."""
    return next((f for f in map(_format_of, languages) if f), PORTAL)


# The format numbers are printed in where none is given: activated for a request
# (its person's) or an e-mail (its recipient's), like Django activates a language.
# The domain stays free of Django: callers activate, the domain reads.
_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("number_format", default=None)


def active_format() -> NumberFormat:
    """The format activated by :func:`using` (resolved once if given lazily), or the
    portal's."""
    active = _ACTIVE.get()
    if active is None:
        return PORTAL
    if callable(active):
        active = active()
        _ACTIVE.set(active)
    return active


@contextlib.contextmanager
def using(fmt: NumberFormat | Callable[[], NumberFormat]):
    """Print numbers in ``fmt`` (or what the callable returns when first needed)
    inside the ``with`` block."""
    token = _ACTIVE.set(fmt)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def format_number(value, fmt: NumberFormat, *, grouping: bool = True) -> str:
    """``value`` written in ``fmt`` (``18,176.5`` / ``18.176,5`` / ``18 176,5`` /
    ``18'176.5``), without exponent and without trailing decimal zeros."""
    number = Decimal(value)
    text = format(number.normalize(), "f")
    if text.startswith("-") and not number:
        text = text[1:]
    whole, _, decimals = text.partition(".")
    return fmt.write(whole, decimals, grouping=grouping)


class NumberError(ValueError):
    """Typed text that is not a number; the message says what to type instead."""


@dataclass(frozen=True)
class Reading:
    """A typed number: its value, and whether the text could have meant another
    value in the other convention (then the field says how it was read)."""

    value: Decimal
    ambiguous: bool


_ALLOWED = re.compile(rf"^[0-9.,{SPACES}{APOSTROPHES}]*$")


def _grouped_right(chunks: list[str], primary: int, secondary: int) -> bool:
    """Whether digit groups ``chunks`` (split at the group marks) are grouped as
    ``primary`` digits last and ``secondary`` digits before that."""
    first, *middle, last = chunks
    return (
        0 < len(first) <= secondary
        and not first.startswith("0")
        and len(last) == primary
        and all(len(chunk) == secondary for chunk in middle)
    )


def _read(
    text: str, decimal: str, groups: str, sizes: tuple[int, int] = (3, 3)
) -> Decimal | None:
    """``text`` (no sign) with ``decimal`` as the decimal mark and any of ``groups``
    between groups of digits (three, or the locale's ``sizes``), or ``None`` when it
    is not written that way."""
    whole, mark, decimals = text.partition(decimal)
    if mark and (not decimals.isdigit() or decimal in decimals):
        return None
    if not whole:
        return Decimal("0." + decimals) if mark else None
    chunks = re.split(f"[{re.escape(groups)}]", whole)
    if not all(chunk.isdigit() for chunk in chunks):
        return None
    if len(chunks) > 1 and not (
        _grouped_right(chunks, 3, 3) or _grouped_right(chunks, *sizes)
    ):
        return None
    try:
        return Decimal("".join(chunks) + ("." + decimals if mark else ""))
    except InvalidOperation:  # pragma: no cover - only digits reach here
        return None


def _fits(value: Decimal, places: int) -> bool:
    exponent = value.normalize().as_tuple().exponent
    return not isinstance(exponent, int) or -exponent <= places


def parse_number(text: str, fmt: NumberFormat, *, places: int) -> Reading:
    """Read ``text`` as a number written in ``fmt`` with at most ``places`` decimals.

    When ``fmt`` cannot read it, or reads it with more decimals than the field
    allows, the other convention is tried (``18.176`` GPU-hours in English is
    18,176); either way the reading is ``ambiguous`` when both conventions give
    different values that the field accepts. Raises :class:`NumberError`.
    """
    raw = text.strip()
    body = raw.strip(SPACES + _BIDI_MARKS)
    sign = 1
    if body and body[0] in MINUS_SIGNS + "+":
        sign = -1 if body[0] in MINUS_SIGNS else 1
        body = body[1:].lstrip(SPACES)
    if not body or not _ALLOWED.match(body):
        raise NumberError(
            gettext(
                "“{text}” is not a number: use digits only, written like {example}."
            ).format(text=raw, example=fmt.example)
        )
    primary = _read(body, fmt.decimal, fmt.groups, (fmt.primary, fmt.secondary))
    other = _read(body, fmt.other, fmt.decimal + SPACES)
    if primary is not None and _fits(primary, places):
        value = primary
        ambiguous = other is not None and other != primary and _fits(other, places)
    elif other is not None and _fits(other, places):
        value, ambiguous = other, True
    elif primary is not None or other is not None:
        if places == 0:
            raise NumberError(gettext("Enter a whole number."))
        raise NumberError(
            ngettext(
                "Enter at most {places} decimal place.",
                "Enter at most {places} decimal places.",
                places,
            ).format(places=places)
        )
    else:
        raise NumberError(
            gettext(
                "“{text}” is not a number as you write them ({example}): check the "
                "separators."
            ).format(text=raw, example=fmt.example)
        )
    return Reading(sign * value if value else value, ambiguous)
