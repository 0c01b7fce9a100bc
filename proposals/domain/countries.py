"""Countries: every ISO 3166-1 name (pycountry), and which ones may apply.

The eligibility of a country (EU member, associated to which programmes, the
python-stdnum modules that check its VAT numbers, each with a source and a check
date) is data. A country is on several lists at once: Norway is associated to
Horizon 2020, Horizon Europe and the Digital Europe Programme, the United Kingdom to
Horizon Europe only; its ``status`` is its main one and ``associations`` the others,
and a call family's terms name the lists it accepts. EU territory listed on its own
in ISO 3166 (the outermost regions, TFEU art. 349 and 355(1), and Åland, art.
355(4)) is an EU member state's. The defaults are ``countries.json`` next to this
module, a data migration copies them into the database, administrators maintain
them there, and ``proposals.assess`` passes them to the engine as plain values
(``load_countries``).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pycountry
from babel import Locale, UnknownLocaleError

from .i18n import Labels, active_language, gettext_noop

DATA_FILE = Path(__file__).with_name("countries.json")
EU_MEMBER = "eu_member"
H2020_ASSOCIATED = "h2020_associated"
HORIZON_EUROPE_ASSOCIATED = "horizon_europe_associated"
DIGITAL_EUROPE_ASSOCIATED = "digital_europe_associated"
STATUS_LABELS = Labels(
    {
        EU_MEMBER: gettext_noop("EU member state"),
        H2020_ASSOCIATED: gettext_noop("associated to Horizon 2020"),
        HORIZON_EUROPE_ASSOCIATED: gettext_noop("associated to Horizon Europe"),
        DIGITAL_EUROPE_ASSOCIATED: gettext_noop("associated to Digital Europe"),
    }
)


def unverified(source: str) -> bool:
    """Whether a source text says no public document was found for the fact (it
    starts with "Unverified", as the call terms' sources do)."""
    return (source or "").strip().lower().startswith("unverified")


def status_label(status: str) -> str:
    """How people read a status (a key of STATUS_LABELS), in the active language."""
    return STATUS_LABELS.get(status, status)


@cache
def names() -> dict[str, str]:
    """Every ISO 3166-1 alpha-2 code with its usual English name ("Moldova", not
    "Moldova, Republic of")."""
    return {
        c.alpha_2: getattr(c, "common_name", None) or c.name
        for c in pycountry.countries
    }


@cache
def local_names(language: str | None) -> dict[str, str]:
    """:func:`names` as people read them in ``language`` (CLDR's, through Babel:
    "Kongo-Kinshasa", "République démocratique du Congo"); the English names for
    English, no language, or a code CLDR does not name. Same keys as :func:`names`:
    the codes stored stay the same in every language."""
    english = names()
    base = (language or "").split("-")[0].lower()
    if not base or base == "en":
        return english
    try:
        territories = Locale.parse(base).territories
    except (UnknownLocaleError, ValueError):
        return english
    return {code: territories.get(code) or text for code, text in english.items()}


def sort_key(text: str) -> str:
    """How a name sorts among others in any language: case and accents ignored
    ("Åland" with the A's, "Österreich" with the O's)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def name(code: str) -> str:
    """The country's name in the active language, or the code as given when it is
    not an ISO code."""
    return local_names(active_language()).get((code or "").strip().upper(), code)


@dataclass(frozen=True)
class Association:
    """A country's place on one more list (``status``: a key of STATUS_LABELS), from
    when, where that is stated and when it was checked."""

    status: str
    since: str = ""  # ISO date the association took effect, when known
    source: str = ""
    checked: str = ""


@dataclass(frozen=True)
class Country:
    """An eligible country: its main status, programme, the python-stdnum modules
    that check its VAT ids (tried in order; empty when no offline check exists),
    where the status comes from, and its other associations."""

    code: str
    status: str
    programme: str = ""
    vat_validators: tuple[str, ...] = ()
    source: str = ""
    checked: str = ""
    associations: tuple[Association, ...] = ()

    @property
    def name(self) -> str:
        return name(self.code)

    @property
    def statuses(self) -> frozenset[str]:
        """Every list the country is on: its main status and its associations."""
        return frozenset({self.status, *(a.status for a in self.associations)})

    @property
    def verified_statuses(self) -> frozenset[str]:
        """The lists a public document puts the country on (its source does not
        start with "Unverified")."""
        found = {self.status} if not unverified(self.source) else set()
        found |= {a.status for a in self.associations if not unverified(a.source)}
        return frozenset(found)

    def unverified_notes(self, statuses) -> list[str]:
        """What the data says is unverified about the country's place on any of
        ``statuses`` (the text after "Unverified:"), in the data's order."""
        rows = [(self.status, self.source)] + [
            (a.status, a.source) for a in self.associations
        ]
        return [
            source.strip()[len("unverified") :].lstrip(" :;,-").strip()
            for status, source in rows
            if status in statuses and unverified(source)
        ]


Countries = Mapping[str, Country]


def load_countries(rows: Iterable[Mapping]) -> dict[str, Country]:
    """Eligible countries keyed by code, from ``countries.json`` or database rows."""
    known = set(Country.__dataclass_fields__)
    out = {}
    for row in rows:
        values = {k: v for k, v in row.items() if k in known}
        values["vat_validators"] = tuple(values.get("vat_validators") or ())
        values["checked"] = "" if row.get("checked") is None else str(row["checked"])
        values["associations"] = tuple(
            Association(
                status=str(a.get("status", "")),
                since=str(a.get("since") or ""),
                source=str(a.get("source") or ""),
                checked=str(a.get("checked") or ""),
            )
            for a in values.get("associations") or ()
            if isinstance(a, Mapping)
        )
        out[row["code"]] = Country(**values)
    return out


@cache
def eligible_countries() -> dict[str, Country]:
    """The shipped eligibility data (``countries.json``) keyed by code."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return load_countries(data["countries"])


@cache
def selectable_codes() -> frozenset[str]:
    """Every country code the wizard and the JSON format accept: all of ISO 3166-1."""
    return frozenset(names())


def country(code: str, countries: Countries | None = None) -> Country | None:
    """The eligible country with ``code`` (case-insensitive) in ``countries``
    (default: the shipped data), else ``None``."""
    table = eligible_countries() if countries is None else countries
    return table.get((code or "").strip().upper())
