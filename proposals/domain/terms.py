"""Call terms: what each call family and each of its modes (tiers) asks for.

The tier bounds, the allowed durations, the unit of the request, the evidence a mode
requires and the typical access time are data, each fact with its source and the date
it was checked. The defaults are ``fixtures/call_terms.json``; a data migration copies
them into the database, where administrators maintain them, and ``proposals.assess``
hands them back to the engine as plain values (``load_terms``), like the catalogue.
Nothing in the engine repeats a figure from here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from types import MappingProxyType

from .countries import status_label
from .i18n import Labels, gettext, gettext_noop, join_or, ngettext, reading
from .numbers import active_format, grouped

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "call_terms.json"
# Units of a request or a bill; one vocabulary for the call terms and the catalogue.
UNITS = Labels(
    {
        "gpu_hours": gettext_noop("GPU-hours"),
        "node_hours": gettext_noop("node-hours"),
        "core_hours": gettext_noop("core-hours"),
    }
)
REQUEST_UNITS = Labels({k: UNITS.english(k) for k in ("gpu_hours", "node_hours")})


UNVERIFIED = "Unverified"


def unverified(source: str) -> bool:
    """Whether a source text says no public document was found for the fact (it
    starts with "Unverified")."""
    return (source or "").strip().lower().startswith(UNVERIFIED.lower())


# A figure given roughly: "about 6-month allocations", "approximately 12 months",
# "~6 months".
APPROXIMATE = re.compile(
    r"\b(?:about|approximately|approx\.|around|roughly|circa|some)\s+\d|~\s?\d", re.I
)


@dataclass(frozen=True)
class FactSource:
    """Where a fact comes from (URL or document title) and when it was checked. A
    fact no public document was found for says so: its source starts with
    "Unverified" (the admin and ``docs/rules.md`` show it beside the fact)."""

    source: str
    checked: str  # ISO date, YYYY-MM-DD

    @property
    def verified(self) -> bool:
        return not unverified(self.source)

    @property
    def approximate(self) -> bool:
        """Whether the source gives the figure only roughly ("about 6-month
        allocations"): a request that differs from it is a note, not a warning."""
        return bool(APPROXIMATE.search(self.source or ""))


@dataclass(frozen=True)
class ModeTerms:
    """One mode (tier) of a call family.

    ``max_hours`` is the inclusive upper bound of the request (``None``: none); the
    tier of a request is the first mode, in ``position`` order, whose bound it does
    not exceed. ``min_hours`` is the lowest request the call states for the mode; a
    request between two modes' bounds is flagged (TIER-6)."""

    family: str
    slug: str
    position: int = 0
    min_hours: float | None = None
    max_hours: float | None = None
    request_unit: str = "gpu_hours"
    max_gpus_per_job: int | None = None  # guidance, not a hard limit
    durations_months: tuple[int, ...] = ()
    tests_description_required: bool = False
    job_plan_required: bool = False
    scaling_data_required: bool = False
    schedule_required: bool = False
    extrapolation_allowed: bool = True
    max_extrapolation_factor: float | None = None
    max_projection_band: float | None = None  # fraction: 0.15 is 15 points
    access_working_days: int | None = None
    # The desk's own target for answering (working days; None: none, its reason
    # recorded under ``sources["target_working_days"]``).
    target_working_days: int | None = None
    review: str = ""
    sources: Mapping[str, FactSource] = field(default_factory=dict)

    def source(self, fact: str) -> FactSource | None:
        """The source of ``fact`` (a field name), if recorded."""
        return self.sources.get(fact)


#: The call terms' own sentences (``fixtures/call_terms.json``) for the catalogue:
#: the rules show them through ``gettext`` (:func:`terms_text`), so a page in German
#: reads them in German; a sentence the desk rewrites in the admin is shown as typed.
TERMS_TEXTS = (
    gettext_noop(
        "This family asks for a separate project scope and plan document, uploaded "
        "in the portal next to the form; prepare it alongside these sections."
    ),
    gettext_noop(
        "companies are eligible only as partners of a collaborative EU project"
    ),
    gettext_noop("technical review"),
    gettext_noop("peer review"),
    gettext_noop("technical and peer review, two cut-offs a month"),
)


def terms_text(text: str) -> str:
    """One of the call terms' sentences in the active language (as stored when the
    catalogue does not have it)."""
    return gettext(text) if text else text


@dataclass(frozen=True)
class FamilyTerms:
    """A call family: who may apply and its modes.

    ``tiered``: the modes are tiers chosen by the requested hours (Playground, Fast
    Lane, Large Scale); otherwise the family has one mode, whatever the hours.
    ``conditional_kinds`` may apply only under ``conditional_note``'s condition."""

    slug: str
    label: str
    tiered: bool = True
    eligible_kinds: tuple[str, ...] = ()
    conditional_kinds: tuple[str, ...] = ()
    conditional_note: str = ""
    vat_required: bool = False
    eligible_country_statuses: tuple[str, ...] = ()
    no_ongoing_project: bool = False
    small_job_max_gpus: int | None = None
    document_reminder: str = ""
    sources: Mapping[str, FactSource] = field(default_factory=dict)
    modes: tuple[ModeTerms, ...] = ()

    def mode(self, slug: str | None) -> ModeTerms | None:
        """The mode called ``slug``."""
        return next((m for m in self.modes if m.slug == slug), None)

    def mode_for_hours(self, hours: float | None) -> ModeTerms | None:
        """The mode a request of ``hours`` falls into (``None`` without a positive
        total in a tiered family; the single mode in a family without tiers)."""
        if not self.tiered:
            return self.modes[0] if self.modes else None
        if hours is None or not hours > 0:
            return None
        for mode in self.modes:
            if mode.max_hours is None or hours <= mode.max_hours:
                return mode
        return self.modes[-1] if self.modes else None

    def placeholders(self) -> dict[str, str]:
        """Figures for help texts: ``{playground_max}``, ``{fast_lane_min}``, ...,
        and the family's country lists (``{industrial_innovation_countries}``)."""
        labels = [status_label(s) for s in self.eligible_country_statuses]
        values = {f"{self.slug}_countries": join_or(labels) or gettext("any country")}
        for m in self.modes:
            for name in ("min_hours", "max_hours", "max_gpus_per_job"):
                value = getattr(m, name)
                key = f"{m.slug}_{name.replace('_hours', '')}"
                values[key] = "" if value is None else grouped(value, 0)
            values[f"{m.slug}_durations"] = months(m.durations_months)
            values[f"{m.slug}_unit"] = (
                unit_label(m.request_unit) if m.request_unit in REQUEST_UNITS else ""
            )
            values[f"{m.slug}_request"] = request_terms(m)
        return values


CallTerms = Mapping[str, FamilyTerms]


def unit_label(unit: str) -> str:
    """A unit (a key of UNITS) as people read it, in the active language."""
    return UNITS.get(unit, unit)


def request_terms(mode: ModeTerms) -> str:
    """What the mode counts and grants, for the request's help ("" for a mode in
    GPU-hours without bounds)."""
    unit = unit_label(mode.request_unit)
    low, high = mode.min_hours, mode.max_hours
    parts = []
    if mode.request_unit != "gpu_hours":
        parts.append(
            gettext(
                "This call counts {unit}: the wizard converts the GPU-hours with the "
                "target system's GPUs per node."
            ).format(unit=unit)
        )
    if low is not None and high is not None:
        parts.append(
            gettext("It grants {low} to {high} {unit} per project.").format(
                low=grouped(low, 0), high=grouped(high, 0), unit=unit
            )
        )
    elif low is not None:
        parts.append(
            gettext("It grants at least {low} {unit} per project.").format(
                low=grouped(low, 0), unit=unit
            )
        )
    elif high is not None:
        parts.append(
            gettext("It grants up to {high} {unit} per project.").format(
                high=grouped(high, 0), unit=unit
            )
        )
    return " ".join(parts)


def months(durations: Iterable[int]) -> str:
    """``(1, 2, 3)`` as "1, 2 or 3 months"."""
    items = [grouped(d) for d in durations]
    if not items:
        return ""
    count = 1 if items == ["1"] else 2
    return ngettext("{durations} month", "{durations} months", count).format(
        durations=join_or(items)
    )


def _sources(data: Mapping | None) -> dict[str, FactSource]:
    return {
        key: FactSource(
            source=str(value["source"]), checked=str(value.get("checked", ""))
        )
        for key, value in (data or {}).items()
        if isinstance(value, Mapping) and value.get("source")
    }


def _mode(family: str, row: Mapping) -> ModeTerms:
    known = set(ModeTerms.__dataclass_fields__) - {"family", "sources"}
    values = {k: v for k, v in row.items() if k in known}
    values["durations_months"] = tuple(values.get("durations_months") or ())
    return ModeTerms(family=family, sources=_sources(row.get("sources")), **values)


def family_from_dict(row: Mapping) -> FamilyTerms:
    """Build a family from a ``fixtures/call_terms.json`` row (modes inside)."""
    known = set(FamilyTerms.__dataclass_fields__) - {"sources", "modes"}
    values = {k: v for k, v in row.items() if k in known}
    for key in ("eligible_kinds", "conditional_kinds", "eligible_country_statuses"):
        values[key] = tuple(values.get(key) or ())
    modes = sorted(
        (_mode(row["slug"], m) for m in row.get("modes") or ()),
        key=lambda m: m.position,
    )
    return FamilyTerms(
        sources=_sources(row.get("sources")), modes=tuple(modes), **values
    )


def load_terms(source: str | Path | Iterable[Mapping]) -> dict[str, FamilyTerms]:
    """The call terms keyed by family slug, from a JSON file or a list of rows."""
    if isinstance(source, str | Path):
        rows = json.loads(Path(source).read_text(encoding="utf-8"))
    else:
        rows = source
    families = (family_from_dict(row) for row in rows)
    return {family.slug: family for family in families}


@cache
def default_terms() -> dict[str, FamilyTerms]:
    """The terms of ``fixtures/call_terms.json`` (the two guides' figures)."""
    return load_terms(DEFAULT_FILE)


class UnknownCallFamily(LookupError):
    """A proposal's call family has no terms: the code's families
    (``types.CALL_FAMILY_LABELS``) and the call terms (admin rows) disagree."""


def family_terms(terms: CallTerms | None, slug: str) -> FamilyTerms:
    """The family ``slug`` from ``terms`` (no terms at all: the shipped defaults).

    A family without terms is an error, never another family's terms: the families
    are defined in code (``types.CALL_FAMILY_LABELS``) and each needs its row of
    terms with at least one mode (admin, "Call families"; ``family_mismatch``).
    """
    source = terms or default_terms()
    found = source.get(slug)
    if found is None:
        raise UnknownCallFamily(
            f"The call family {slug!r} has no call terms (known: "
            f"{', '.join(sorted(source)) or 'none'}). Give it its terms and modes "
            "in the admin (Call families; the shipped ones are in "
            "fixtures/call_terms.json); `python manage.py check --database default` "
            "lists every mismatch."
        )
    return found


def family_mismatch(terms: CallTerms, families: Mapping[str, str]) -> list[str]:
    """What differs between the call families the code defines (``families``: slug
    -> label, ``types.CALL_FAMILY_LABELS``) and the call ``terms``: a family
    without terms or without modes, terms of a family the code does not know, a
    label that differs. Empty when they agree."""
    found = []
    for slug, label in families.items():
        family = terms.get(slug)
        if family is None:
            found.append(f"call family {slug!r} ({label}) has no call terms")
        elif not family.modes:
            found.append(f"call family {slug!r} has no modes")
        elif family.label != label:
            found.append(
                f"call family {slug!r} is labelled {family.label!r} in the call "
                f"terms and {label!r} in the code"
            )
    for slug in terms:
        if slug not in families:
            found.append(
                f"call terms for {slug!r}, a call family the code does not define"
            )
    return found


# Help-text figures by (terms, language, number format): the same few maps are
# asked for at every autosave that shows a field's help. The terms are kept in the
# value, so an identity reused by other terms is never taken for theirs.
_FIGURES: dict[tuple, tuple[CallTerms, Mapping[str, str]]] = {}
_MOST_FIGURES = 64


def figures(terms: CallTerms | None = None) -> Mapping[str, str]:
    """Every family's help-text figures (``FamilyTerms.placeholders``) in one
    read-only map, in the active language and number format."""
    terms = terms or default_terms()
    key = (id(terms), reading(), active_format())
    found = _FIGURES.get(key)
    if found is not None and found[0] is terms:
        return found[1]
    out: dict[str, str] = {}
    for family in terms.values():
        out.update(family.placeholders())
    if len(_FIGURES) >= _MOST_FIGURES:
        _FIGURES.clear()
    _FIGURES[key] = (terms, MappingProxyType(out))
    return _FIGURES[key][1]


def problems(row: Mapping) -> list[str]:
    """What is wrong with one family row (for the admin): every fact needs a source
    and an ISO check date, bounds must increase from mode to mode."""
    found = []
    for where, sources in [("family", row.get("sources"))] + [
        (f"mode {m.get('slug')}", m.get("sources")) for m in row.get("modes") or ()
    ]:
        for fact, value in (sources or {}).items():
            if not isinstance(value, Mapping) or not str(value.get("source", "")):
                found.append(f"{where}: “{fact}” has no source")
                continue
            try:
                date.fromisoformat(str(value.get("checked", "")))
            except ValueError:
                found.append(f"{where}: “{fact}” needs a check date (YYYY-MM-DD)")
    return found
