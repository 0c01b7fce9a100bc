"""Numbers: normalisation shared by the JSON format and the assessment output, and
numbers as people type them (parsing and printing in an explicit number format)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


def json_number(
    value: float | int | None, digits: int | None = 6
) -> float | int | None:
    """Round to ``digits`` decimals (``None``: keep) and return whole values as int.

    Keeps output stable across platforms and makes ``4.0`` and ``4`` print alike.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    rounded = float(value) if digits is None else round(float(value), digits)
    if rounded.is_integer():
        return int(rounded)
    return rounded


# How every page, export and message shows a number that is not there.
MISSING = "—"


def grouped(
    value: float | int | None, decimals: int = 2, missing: str = MISSING
) -> str:
    """A number as people read it: ``18176`` -> ``18,176``, ``0.1`` -> ``0.1``, at
    most ``decimals`` places and no trailing zeros; ``missing`` for none (or for a
    value that is not a finite number)."""
    if value is None or isinstance(value, bool):
        return missing
    try:
        number = float(value)
    except (TypeError, ValueError):
        return missing
    if not math.isfinite(number):
        return missing
    if number.is_integer():
        return f"{int(number):,}"
    text = f"{number:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


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


# --- Numbers as people write them --------------------------------------------------
#
# An applicant writes eighteen thousand as ``18176``, ``18,176``, ``18 176`` or
# ``18.176`` depending on where they learnt to write numbers. The wizard reads a typed
# number in the applicant's explicit number format (a per-user setting); where the
# other convention would read the same text differently, the field says how it was
# read. Text with anything but digits, separators and a sign is refused, never
# truncated.

# Spaces people (and their keyboards and word processors) put between digit groups:
# space, no-break space, narrow no-break space, thin space.
SPACES = " \u00a0\u202f\u2009"
MINUS_SIGNS = "-\u2212"


@dataclass(frozen=True)
class NumberFormat:
    """How one group of people writes numbers: the decimal mark, the marks accepted
    between groups of three digits, and the one printed between them."""

    name: str
    label: str
    decimal: str
    groups: str
    group_display: str

    @property
    def other(self) -> str:
        """The mark the other convention uses for decimals."""
        return "," if self.decimal == "." else "."

    @property
    def example(self) -> str:
        return format_number(Decimal("1234.5"), self)


NUMBER_FORMATS: tuple[NumberFormat, ...] = (
    NumberFormat("en", "1,234.5 (English)", ".", "," + SPACES, ","),
    NumberFormat(
        "de", "1.234,5 (German, Dutch, Italian, Spanish …)", ",", "." + SPACES, "."
    ),
    NumberFormat(
        "fi",
        "1 234,5 (Finnish, French, Swedish, Polish …)",
        ",",
        "." + SPACES,
        "\u00a0",
    ),
)
NUMBER_FORMAT_BY_NAME = {fmt.name: fmt for fmt in NUMBER_FORMATS}
DEFAULT_NUMBER_FORMAT = "en"

# The primary language of a browser (``de`` of ``de-AT``) -> the format its people use.
_LANGUAGE_FORMATS = {
    "en": "en",
    "ga": "en",
    "mt": "en",
    "he": "en",
    "ja": "en",
    "zh": "en",
    "ko": "en",
    "de": "de",
    "nl": "de",
    "it": "de",
    "es": "de",
    "da": "de",
    "el": "de",
    "id": "de",
    "tr": "de",
    "ro": "de",
    "hr": "de",
    "sl": "de",
    "sr": "de",
    "is": "de",
    "fi": "fi",
    "fr": "fi",
    "sv": "fi",
    "nb": "fi",
    "nn": "fi",
    "no": "fi",
    "pl": "fi",
    "cs": "fi",
    "sk": "fi",
    "hu": "fi",
    "et": "fi",
    "lv": "fi",
    "lt": "fi",
    "bg": "fi",
    "uk": "fi",
    "ru": "fi",
    "pt": "fi",
}


def format_for_languages(languages) -> NumberFormat:
    """The number format of the first language (in preference order, e.g. from a
    browser's Accept-Language) whose convention we know; English otherwise."""
    for language in languages:
        primary = str(language).split("-")[0].split("_")[0].lower()
        if primary in _LANGUAGE_FORMATS:
            return NUMBER_FORMAT_BY_NAME[_LANGUAGE_FORMATS[primary]]
    return NUMBER_FORMAT_BY_NAME[DEFAULT_NUMBER_FORMAT]


def format_number(value, fmt: NumberFormat, *, grouping: bool = True) -> str:
    """``value`` written in ``fmt`` (``18,176.5`` / ``18.176,5`` / ``18 176,5``),
    without exponent and without trailing decimal zeros."""
    number = Decimal(value)
    sign = "-" if number < 0 else ""
    text = format(abs(number).normalize(), "f")
    whole, _, decimals = text.partition(".")
    if grouping:
        parts = []
        while len(whole) > 3:
            parts.insert(0, whole[-3:])
            whole = whole[:-3]
        whole = fmt.group_display.join([whole, *parts])
    return sign + whole + (fmt.decimal + decimals if decimals else "")


class NumberError(ValueError):
    """Typed text that is not a number; the message says what to type instead."""


@dataclass(frozen=True)
class Reading:
    """A typed number: its value, and whether the text could have meant another
    value in the other convention (then the field says how it was read)."""

    value: Decimal
    ambiguous: bool


_ALLOWED = re.compile(rf"^[0-9.,{SPACES}]*$")


def _read(text: str, decimal: str, groups: str) -> Decimal | None:
    """``text`` (no sign) with ``decimal`` as the decimal mark and any of ``groups``
    between groups of three digits, or ``None`` when it is not written that way."""
    whole, mark, decimals = text.partition(decimal)
    if mark and (not decimals.isdigit() or decimal in decimals):
        return None
    if not whole:
        return Decimal("0." + decimals) if mark else None
    chunks = re.split(f"[{re.escape(groups)}]", whole)
    if not all(chunk.isdigit() for chunk in chunks):
        return None
    if len(chunks) > 1 and (
        len(chunks[0]) > 3
        or chunks[0].startswith("0")
        or any(len(chunk) != 3 for chunk in chunks[1:])
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
    body = raw
    sign = 1
    if body and body[0] in MINUS_SIGNS + "+":
        sign = -1 if body[0] in MINUS_SIGNS else 1
        body = body[1:].lstrip(SPACES)
    if not body or not _ALLOWED.match(body):
        raise NumberError(
            f"“{raw}” is not a number: use digits only, written like {fmt.example}."
        )
    primary = _read(body, fmt.decimal, fmt.groups)
    other = _read(body, fmt.other, fmt.decimal + SPACES)
    if primary is not None and _fits(primary, places):
        value = primary
        ambiguous = other is not None and other != primary and _fits(other, places)
    elif other is not None and _fits(other, places):
        value, ambiguous = other, True
    elif primary is not None or other is not None:
        if places == 0:
            raise NumberError("Enter a whole number.")
        raise NumberError(f"Enter at most {places} decimal places.")
    else:
        raise NumberError(
            f"“{raw}” is not a number as you write them ({fmt.example}): "
            "check the separators."
        )
    return Reading(sign * value if value else value, ambiguous)
