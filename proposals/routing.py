"""The router and the cut-off calendar, between the database and the pages: the
router's decisions as the page shows them (cut-offs in the reader's zone), a
proposal's next cut-off, and the iCalendar feed (RFC 5545, with the ``icalendar``
library)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from proposals import localization, reference_data, selectors
from proposals.assess import catalogue_from_db, countries_from_db, terms_from_db
from proposals.domain import numbers
from proposals.domain.i18n import join_or
from proposals.domain.numbers import grouped
from proposals.domain.router import (
    WARN_DAYS,
    Decision,
    Profile,
    proposal_route,
    route_profile,
)
from proposals.domain.routes import Cutoff, Route, RouteData
from proposals.domain.terms import unit_label

PRODID = "-//AI Factory proposal wizard//Cut-offs//EN"
UID_DOMAIN = "aifactory-wizard"


@dataclass(frozen=True)
class ShownCutoff:
    """A cut-off as one reader sees it: in their zone, with the days left."""

    cutoff: Cutoff
    text: str  # "2 Feb 2027, 10:00 CET" in the reader's zone and form
    published: str  # as published: "10:00 Europe/Brussels", or the date only
    days: int
    soon: bool

    @classmethod
    def of(cls, cutoff: Cutoff, *, zone: ZoneInfo, now: datetime) -> ShownCutoff:
        with localization.activated(fmt=numbers.active_format(), zone=zone):
            if cutoff.time is None:
                text = _("%(date)s (no time published)") % {
                    "date": localization.when(cutoff.date)
                }
            else:
                text = localization.when(cutoff.moment)
        published = (
            f"{cutoff.date.isoformat()} {cutoff.time.strftime('%H:%M')} {cutoff.zone}"
            if cutoff.time
            else cutoff.date.isoformat()
        )
        days = cutoff.days_from(now, zone)
        return cls(cutoff, text, published, days, 0 <= days < WARN_DAYS)

    @property
    def in_days(self) -> str:
        if self.days <= 0:
            return _("today")
        return ngettext("in %(n)s day", "in %(n)s days", self.days) % {
            "n": grouped(self.days)
        }


@dataclass(frozen=True)
class ShownDecision:
    """One route on the router page."""

    decision: Decision
    systems: str  # "LUMI-G or MareNostrum 5 ACC"
    request: str  # "about 1,234 GPU-hours" ("" when not known)
    cutoff: ShownCutoff | None

    @property
    def route(self) -> Route:
        return self.decision.route

    @classmethod
    def of(cls, decision: Decision, *, zone: ZoneInfo, now: datetime):
        names = [o.name for o in decision.systems]
        request = ""
        option = next((o for o in decision.systems if o.request is not None), None)
        if option is not None:
            low = min(o.request for o in decision.systems if o.request is not None)
            high = max(o.request for o in decision.systems if o.request is not None)
            shown = (
                grouped(low, 0)
                if round(low) == round(high)
                else (f"{grouped(low, 0)}–{grouped(high, 0)}")
            )
            request = _("about %(n)s %(unit)s") % {
                "n": shown,
                "unit": unit_label(option.unit),
            }
        cutoff = decision.next_cutoff
        return cls(
            decision,
            join_or(names),
            request,
            ShownCutoff.of(cutoff, zone=zone, now=now) if cutoff else None,
        )


def router_answer(profile: Profile, *, zone: ZoneInfo, now: datetime):
    """``(fitting, not fitting)`` as :class:`ShownDecision` lists."""
    fitting, others = route_profile(
        profile,
        data=selectors.routes_data(),
        terms=terms_from_db(),
        catalogue=catalogue_from_db(),
        countries=countries_from_db(),
        now=now,
    )
    return (
        [ShownDecision.of(d, zone=zone, now=now) for d in fitting],
        [ShownDecision.of(d, zone=zone, now=now) for d in others],
    )


def route_of(proposal, data: RouteData) -> Route | None:
    """The route ``proposal`` is on: the one it was started on from the router,
    else its family's mode for its GPU-hours."""
    slug = selectors.route_of_proposal(proposal=proposal)
    if slug and data.route(slug):
        return data.route(slug)
    hours = proposal.total_gpu_hours
    return proposal_route(
        data,
        family=proposal.call_family,
        hours=float(hours) if hours is not None else None,
        terms=reference_data.cached_terms(),
    )


@dataclass(frozen=True)
class ProposalCutoff:
    """A proposal's route and its next cut-off (``None``: none published)."""

    route: Route
    cutoff: ShownCutoff | None


def cutoff_shown(proposal):
    """:func:`proposal_cutoff` now, in the reader's zone, as the sidebar shows it
    (``None`` without a saved proposal or a route)."""
    if proposal is None or not getattr(proposal, "pk", None):
        return None
    return proposal_cutoff(
        proposal, zone=localization.active_time_zone(), now=timezone.now()
    )


def proposal_cutoff(proposal, *, zone: ZoneInfo, now: datetime):
    """The route of ``proposal`` and its next cut-off, or ``None`` without a route
    (the routes as this process keeps them, ``reference_data``: the wizard's and
    the staff page's sidebar show it at every view)."""
    data = reference_data.cached_routes()
    route = route_of(proposal, data)
    if route is None:
        return None
    upcoming = data.next_cutoff(route.slug, now)
    return ProposalCutoff(
        route, ShownCutoff.of(upcoming, zone=zone, now=now) if upcoming else None
    )


def calendar(
    cutoffs: Iterable[Cutoff],
    data: RouteData,
    *,
    link: Callable[[Route], str],
    stamp: datetime,
    name: str,
) -> bytes:
    """An iCalendar feed: one VEVENT per cut-off (UID stable across feeds, DTSTAMP
    the time the feed was made, in UTC; the start with its published zone, or the
    published date alone as an all-day event), with the route and a link."""
    from icalendar import Calendar, Event  # only the feeds need it

    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", name)
    for cutoff in cutoffs:
        route = data.route(cutoff.route)
        if route is None:
            continue
        event = Event()
        event.add("uid", f"{cutoff.uid}@{UID_DOMAIN}")
        event.add("dtstamp", stamp)
        event.add("summary", _("Cut-off: %(route)s") % {"route": route.label})
        if cutoff.time is None:
            event.add("dtstart", cutoff.date)
        else:
            event.add("dtstart", cutoff.moment)
        url = link(route)
        event.add("url", url)
        event.add(
            "description",
            _("%(route)s. Source: %(source)s. %(url)s")
            % {"route": route.label, "source": cutoff.source, "url": url},
        )
        cal.add_component(event)
    cal.add_missing_timezones()
    return cal.to_ical()
