"""Routes to EuroHPC AI compute and their cut-offs, as the router reads them:
the data types and their loading from ``fixtures/routes.json`` or database rows.
Each fact carries its source and check date, or says "Unverified"."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from .terms import FactSource

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "routes.json"


@dataclass(frozen=True)
class Route:
    """One way to EuroHPC AI compute. ``family``/``mode``: the wizard's call family
    and mode the route stands for (empty: a route the wizard has no form for; its
    own ``eligible_kinds``, ``eligible_country_statuses``, ``countries``, ``unit``
    and bounds apply)."""

    slug: str
    label: str
    position: int = 0
    family: str = ""
    mode: str = ""
    continuous: bool = False
    recurring: bool = False  # cut-offs recur: past the listed ones, the next is awaited
    url: str = ""
    who: str = ""
    evidence: str = ""
    evaluation: str = ""
    access: str = ""
    requires_experience: str = ""  # "", "some" or "proven"
    min_model_params: float | None = None
    countries: tuple[str, ...] = ()
    eligible_kinds: tuple[str, ...] = ()
    eligible_country_statuses: tuple[str, ...] = ()
    unit: str = "gpu_hours"
    min_request: float | None = None
    max_request: float | None = None
    systems: tuple[str, ...] = ()
    sources: Mapping[str, FactSource] = field(default_factory=dict)

    @property
    def startable(self) -> bool:
        """Whether the wizard can start a proposal on this route."""
        return bool(self.family)


@dataclass(frozen=True)
class Cutoff:
    """A published cut-off: its date, its time and zone as published (``time``
    ``None`` when only the date is published: the whole day counts)."""

    route: str
    date: date
    time: time | None = None
    zone: str = "Europe/Brussels"
    systems: tuple[str, ...] = ()
    source: str = ""
    checked: str = ""

    @property
    def moment(self) -> datetime:
        """When it closes, as an aware moment (end of the day without a time)."""
        zone = ZoneInfo(self.zone)
        if self.time is None:
            return datetime.combine(self.date + timedelta(days=1), time(0), zone)
        return datetime.combine(self.date, self.time, zone)

    @property
    def uid(self) -> str:
        """A stable identifier (the calendar feed's UID)."""
        return f"{self.route}-{self.date.isoformat()}"

    def days_from(self, now: datetime, zone: ZoneInfo) -> int:
        """Calendar days from ``now`` to the cut-off, both read in ``zone``."""
        local_now = now.astimezone(zone).date()
        if self.time is None:
            return (self.date - local_now).days
        return (self.moment.astimezone(zone).date() - local_now).days


def _sources(data) -> dict[str, FactSource]:
    return {
        key: FactSource(source=str(v["source"]), checked=str(v.get("checked", "")))
        for key, v in (data or {}).items()
        if isinstance(v, Mapping) and v.get("source")
    }


def route_from_dict(row: Mapping) -> Route:
    known = set(Route.__dataclass_fields__) - {"sources"}
    values = {k: v for k, v in row.items() if k in known and v is not None}
    for key in ("countries", "eligible_kinds", "eligible_country_statuses", "systems"):
        values[key] = tuple(values.get(key) or ())
    for key in ("min_model_params", "min_request", "max_request"):
        if values.get(key) is not None:
            values[key] = float(values[key])
    return Route(sources=_sources(row.get("sources")), **values)


def _as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _as_time(value) -> time | None:
    if value in (None, ""):
        return None
    return value if isinstance(value, time) else time.fromisoformat(str(value))


def cutoff_from_dict(row: Mapping) -> Cutoff:
    return Cutoff(
        route=str(row["route"]),
        date=_as_date(row["date"]),
        time=_as_time(row.get("time")),
        zone=str(row.get("zone") or "Europe/Brussels"),
        systems=tuple(row.get("systems") or ()),
        source=str(row.get("source") or ""),
        checked=str(row.get("checked") or ""),
    )


@dataclass(frozen=True)
class RouteData:
    """Every route and cut-off, as the router reads them."""

    routes: tuple[Route, ...]
    cutoffs: tuple[Cutoff, ...] = ()

    def route(self, slug: str) -> Route | None:
        return next((r for r in self.routes if r.slug == slug), None)

    def cutoffs_of(self, slug: str) -> tuple[Cutoff, ...]:
        return tuple(
            sorted((c for c in self.cutoffs if c.route == slug), key=lambda c: c.moment)
        )

    def next_cutoff(self, slug: str, now: datetime) -> Cutoff | None:
        """The first cut-off of route ``slug`` that has not closed at ``now``."""
        return next((c for c in self.cutoffs_of(slug) if c.moment > now), None)

    def route_for(self, family: str, mode: str | None) -> Route | None:
        """The route standing for a call family's mode (the family's only route
        when ``mode`` is not known and the family has one)."""
        found = [r for r in self.routes if r.family == family]
        exact = [r for r in found if r.mode == mode]
        if exact:
            return exact[0]
        return found[0] if len(found) == 1 else None


def load_routes(source: str | Path | Mapping) -> RouteData:
    """Routes and cut-offs from a JSON file or a ``{"routes", "cutoffs"}`` map."""
    data: Mapping = (
        json.loads(Path(source).read_text(encoding="utf-8"))
        if isinstance(source, str | Path)
        else source
    )
    routes = sorted(
        (route_from_dict(r) for r in data.get("routes") or ()),
        key=lambda r: (r.position, r.slug),
    )
    cutoffs = tuple(cutoff_from_dict(c) for c in data.get("cutoffs") or ())
    return RouteData(routes=tuple(routes), cutoffs=cutoffs)
