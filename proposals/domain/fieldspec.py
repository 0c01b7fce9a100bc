"""The shape of one field of the proposal (see :mod:`.fields`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from . import numbers, terms
from .i18n import Translated, gettext
from .sections import TABLE_BY_KIND
from .values import Value


@dataclass(frozen=True)
class Example:
    """An example answer, for one tier and one system when they are given (``""``:
    any). ``lead`` says what kind of example it is ("Tested already"), read in the
    active language; the example ``text`` stays English: it is an answer as written
    for the portal."""

    text: str
    tier: str = ""
    system: str = ""
    lead: str = Translated(default="")

    def fits(self, tier: str | None, system: str | None) -> bool:
        return self.tier in ("", tier) and self.system in ("", system)


@dataclass(frozen=True)
class FieldSpec:
    """One field. ``table`` is the table kind of a row field (``None`` for the
    proposal's own fields); ``path`` is the JSON path (relative to the row for a row
    field). ``short`` is the table-header form of the label; ``{gpus}`` in it stands
    for the GPU unit the applicant types in ("GPUs" or "GCDs"). ``term`` names the
    glossary entry that headers and help link to.

    The words people read (``label``, ``short``, ``help``, the tier help, ``unit``)
    are :class:`~.i18n.Translated`: read in the active language, stored in English
    (``i18n.english(spec, "label")``). Examples stay English: they are answers as
    written for the portal."""

    name: str
    path: str
    section: str
    label: str = Translated()
    short: str = Translated(default="")
    help: str = Translated(default="")
    example: str = ""
    unit: str = Translated(default="")
    table: str | None = None
    gpu_count: bool = False
    # Column width class in tables: num, pct, month, unit, code (or "" to fill).
    width: str = ""
    playground: str = Translated(default="")
    fast_lane: str = Translated(default="")
    large_scale: str = Translated(default="")
    #: The help in a family whose one mode the hours do not choose (AI for Science
    #: and Collaborative EU Projects), where the general help speaks of the tiers.
    untiered: str = Translated(default="")
    # The glossary entry (``glossary.TERMS`` slug) that explains the field's word.
    term: str = ""
    # Example answers fitted to a tier and a system (see :meth:`examples_for`).
    examples: tuple[Example, ...] = ()
    # An example per country of incorporation (ISO code -> example), instead of
    # ``example``: the VAT number's (:mod:`.vat_examples`).
    by_country: Callable[[str | None], str] | None = None
    # A sentence of help that holds on one system only: (cluster slug, sentence).
    on_system: tuple[tuple[str, str], ...] = ()
    # What the field holds in the JSON format and the domain type (the code card's
    # fields: ``values.entry_type``, ``formatshape.CODE``).
    value: Value | None = None

    @property
    def key(self) -> str:
        """``total_gpu_hours`` or ``jobs.gpus``: unique among all fields."""
        return f"{self.table}.{self.name}" if self.table else self.name

    @property
    def header(self) -> str:
        """The label for a table header (the short form, unit word "GPUs")."""
        return (self.short or self.label).replace("{gpus}", gettext("GPUs"))

    def help_for(
        self,
        tier: str | None,
        figures: Mapping[str, str] | None = None,
        system: str | None = None,
        tiered: bool = True,
    ) -> str:
        """The advice for ``tier`` when there is tier-specific advice, else (in a
        family that is not ``tiered``, with its own advice) the family's, else
        general, with the call terms' ``figures`` filled in (``{playground_max}`` ...;
        default: the shipped terms), then what holds on ``system`` (a cluster slug)
        only."""
        text = (
            (getattr(self, tier, "") if tier else "")
            or ("" if tiered else self.untiered)
            or self.help
        )
        local = next(
            (gettext(line) for slug, line in self.on_system if slug == system), ""
        )
        if local:
            text = f"{text} {local}" if text else local
        return fill(text, terms.figures() if figures is None else figures).strip()

    def examples_for(
        self, tier: str | None, system: str | None = None, country: str | None = None
    ) -> tuple[Example, ...]:
        """The examples that fit ``tier`` and ``system`` (a cluster slug), the most
        specific kind first found: for this tier and system, for this tier, for this
        system, for any; else the general ``example``. An applicant on LUMI reads LUMI words,
        one on MareNostrum reads MareNostrum words. A field with examples by country
        shows the one of ``country`` (the organisation's), none without it."""
        if self.by_country is not None:
            example = self.by_country(country)
            return (Example(example),) if example else ()
        fitting = [e for e in self.examples if e.fits(tier, system)]
        for rank in ((True, True), (True, False), (False, True), (False, False)):
            chosen = tuple(e for e in fitting if (bool(e.tier), bool(e.system)) == rank)
            if chosen:
                return chosen
        return (Example(as_read(self.example)),) if self.example else ()


_PLAIN_NUMBER = re.compile(r"\d+(\.\d+)?")


def as_read(example: str) -> str:
    """An example that is a plain number (``0.2``) as the reader writes numbers
    (``0,2``): it shows what to type. Words are left as written."""
    if not _PLAIN_NUMBER.fullmatch(example):
        return example
    return numbers.format_number(Decimal(example), numbers.active_format())


PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(text: str, figures: Mapping[str, str]) -> str:
    """Replace ``{name}`` by ``figures[name]``; unknown names stay as written."""
    return PLACEHOLDER.sub(lambda m: figures.get(m[1], m[0]), text)


def scalar(name, path, section, label, **kwargs) -> FieldSpec:
    """A field of the proposal itself."""
    return FieldSpec(name=name, path=path, section=section, label=label, **kwargs)


def row(table, name, label, **kwargs) -> FieldSpec:
    """A column of one of the repeatable tables."""
    return FieldSpec(
        name=name,
        path=name,
        section=TABLE_BY_KIND[table].section,
        label=label,
        table=table,
        **kwargs,
    )
