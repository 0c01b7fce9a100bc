"""The call router: from an applicant's need to the routes that fit, ranked, with
the reason for each and the next cut-off; and the routes that do not fit, with why.

Everything the router knows about a route, a cut-off or a system is data
(``fixtures/routes.json``, maintained in the admin), each fact with its source and
check date or marked "Unverified". Routes that belong to a call family of the wizard
read their bounds, unit, eligible kinds and country lists from the call terms
(:mod:`.terms`), the tier from :func:`.tiers.tier_for_hours`, the country from the
eligibility lists (:mod:`.countries`) and the GPU-hours of a model from the compute
estimate (:mod:`.estimate`): nothing is restated here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from .call_unit import in_request_unit
from .countries import Countries
from .countries import country as country_entry
from .countries import name as country_name
from .estimate import DEFAULT_MFU_PCT, FLOPS_PER_TOKEN, gpu_hours_for
from .i18n import Labels, gettext_noop, join_or
from .i18n import gettext as _
from .numbers import grouped
from .routes import Cutoff, Route, RouteData
from .terms import CallTerms, FamilyTerms, unit_label
from .tiers import tier_for_hours
from .types import Catalogue, Cluster

# What the work is (the form's choices); the compute estimate counts 6 FLOPs per
# parameter and token to train, 2 to infer.
WORK_KINDS = Labels(
    {
        "pretraining": gettext_noop("Training a model from scratch"),
        "fine_tuning": gettext_noop("Fine-tuning an existing model"),
        "inference": gettext_noop("Inference or evaluation at scale"),
        "research": gettext_noop("Scientific research using AI"),
    }
)
WORK_USE = {
    "pretraining": "training",
    "fine_tuning": "training",
    "inference": "inference",
    "research": "training",
}
ACCELERATORS = Labels(
    {
        "any": gettext_noop("No preference"),
        "nvidia": gettext_noop("NVIDIA"),
        "amd": gettext_noop("AMD"),
    }
)
EXPERIENCE_ORDER = ("none", "some", "proven")
WARN_DAYS = 7  # a cut-off closer than this is shown with a warning
# Days before a cut-off that the team of a draft not yet sent for review is mailed.
REMINDER_DAYS = (14, 3)


@dataclass(frozen=True)
class Profile:
    """An applicant's answers. ``params`` and ``tokens`` are counts (7e9, 1e11);
    ``gpu_hours`` wins over the estimate from them when given."""

    organisation_kind: str = ""
    country: str = ""
    work: str = "fine_tuning"
    params: float | None = None
    tokens: float | None = None
    gpu_hours: float | None = None
    accelerator: str = "any"
    experience: str = "none"
    needed_by: date | None = None


@dataclass(frozen=True)
class SystemOption:
    """A system a route offers, with the request in the route's unit."""

    slug: str
    name: str
    gpu_model: str
    gpu_hours: float | None
    request: float | None  # in the route's unit
    unit: str


@dataclass(frozen=True)
class Decision:
    """The router's answer for one route."""

    route: Route
    fits: bool
    reasons: tuple[str, ...]
    systems: tuple[SystemOption, ...] = ()
    next_cutoff: Cutoff | None = None
    gpu_hours: float | None = None
    estimated: bool = False  # the GPU-hours come from the model size and tokens
    late: bool = False  # the next cut-off is after the date the compute is needed


# --------------------------------------------------------------------------------
# Deciding


def vendor(cluster: Cluster) -> str:
    """ "nvidia" or "amd" from the catalogue's GPU model ("" when neither)."""
    model = cluster.gpu_model.upper()
    return "amd" if "AMD" in model else "nvidia" if "NVIDIA" in model else ""


def gpu_hours_on(
    profile: Profile, cluster: Cluster | None
) -> tuple[float | None, bool]:
    """The GPU-hours of ``profile`` on ``cluster``: as given, else estimated from
    the model size and tokens at the system's peak and the default MFU. Returns
    ``(hours, estimated)``."""
    if profile.gpu_hours:
        return profile.gpu_hours, False
    if profile.params and profile.tokens and cluster is not None:
        use = WORK_USE.get(profile.work, "training")
        flops = FLOPS_PER_TOKEN[use] * profile.params * profile.tokens
        hours = gpu_hours_for(flops, cluster.peak_bf16_tflops, DEFAULT_MFU_PCT)
        return hours, hours is not None
    return None, False


def in_unit(gpu_hours: float | None, unit: str, cluster: Cluster) -> float | None:
    """GPU-hours in a route's unit: node-hours are GPU-hours over the GPUs of a
    node (a LUMI-G node-hour is 4 GPU-hours)."""
    return in_request_unit(gpu_hours, unit, cluster.gpus_per_node)


def _kinds(route: Route, family: FamilyTerms | None) -> tuple[tuple[str, ...], str]:
    if family is not None:
        return family.eligible_kinds + family.conditional_kinds, family.conditional_note
    return route.eligible_kinds, ""


def _country_reason(
    route: Route, family: FamilyTerms | None, code: str, countries: Countries | None
) -> str | None:
    """Why an organisation from ``code`` may not take ``route`` (``None``: it may)."""
    if not code:
        return None
    where = country_name(code)
    if route.countries:
        if code in route.countries:
            return None
        listed = join_or(sorted(country_name(c) for c in route.countries))
        return _("{route} serves {countries}; not {country}.").format(
            route=route.label, countries=listed, country=where
        )
    statuses = (
        family.eligible_country_statuses if family else route.eligible_country_statuses
    )
    if not statuses:
        return None
    entry = country_entry(code, countries)
    if entry is not None and entry.statuses & set(statuses):
        return None
    return _(
        "{route} is open to organisations from the EU and the associated "
        "countries its call lists; {country} is not on them."
    ).format(route=route.label, country=where)


def _experience_reason(route: Route, profile: Profile) -> str | None:
    need = route.requires_experience
    if not need:
        return None
    have = EXPERIENCE_ORDER.index(profile.experience or "none")
    if have >= EXPERIENCE_ORDER.index(need):
        return None
    if need == "some":
        return _(
            "{route} needs throughput measured at two or more GPU counts, which "
            "you do not have yet."
        ).format(route=route.label)
    return _(
        "{route} needs scaling measured at the size you ask for, which you do not "
        "have yet; the guides advise a smaller allocation first to collect it."
    ).format(route=route.label)


def _bounds_reason(
    route: Route, family: FamilyTerms | None, hours: float, request: float
) -> str | None:
    """Why a request of ``hours`` GPU-hours (``request`` in the route's unit) is
    outside the route's bounds (``None``: inside)."""
    if family is not None:
        mode = family.mode(route.mode)
        if mode is None:
            return None
        if family.tiered:
            tier = tier_for_hours(hours, family)
            if tier == route.mode:
                return None
            low, high = mode.min_hours, mode.max_hours
        else:
            low, high = mode.min_hours, mode.max_hours
            if (low is None or request >= low) and (high is None or request <= high):
                return None
        unit = unit_label(mode.request_unit)
    else:
        low, high = route.min_request, route.max_request
        if (low is None or request >= low) and (high is None or request <= high):
            return None
        unit = unit_label(route.unit)
    shown = grouped(request, 0)
    if high is not None and request > high:
        return _("{route} goes up to {high} {unit}; you need about {n}.").format(
            route=route.label, high=grouped(high, 0), unit=unit, n=shown
        )
    return _("{route} starts at {low} {unit}; you need about {n}.").format(
        route=route.label, low=grouped(low or 0, 0), unit=unit, n=shown
    )


def decide(
    route: Route,
    profile: Profile,
    *,
    data: RouteData,
    terms: CallTerms,
    catalogue: Catalogue,
    countries: Countries | None = None,
    now: datetime,
) -> Decision:
    """Whether ``route`` fits ``profile``, with the reasons either way."""
    family = terms.get(route.family) if route.family else None
    against: list[str] = []
    notes: list[str] = []

    kinds, condition = _kinds(route, family)
    kind = profile.organisation_kind
    if kind and kinds and kind not in kinds:
        against.append(
            _("{route} is not open to your kind of organisation.").format(
                route=route.label
            )
        )
    elif kind and family is not None and kind in family.conditional_kinds:
        notes.append(_("Only if {condition}.").format(condition=condition))

    reason = _country_reason(route, family, profile.country, countries)
    if reason:
        against.append(reason)
    reason = _experience_reason(route, profile)
    if reason:
        against.append(reason)
    if route.min_model_params and (profile.params or 0) < route.min_model_params:
        against.append(
            _("{route} is for models of at least {n} billion parameters.").format(
                route=route.label, n=grouped(route.min_model_params / 1e9, 0)
            )
        )

    # Systems: the route's, known to the catalogue, in production (the others are
    # named with the date they are expected), of the preferred vendor.
    listed = [catalogue[s] for s in route.systems if s in catalogue]
    clusters = [c for c in listed if c.in_production]
    pending = [c for c in listed if not c.in_production]
    if pending:
        named = "; ".join(
            _("{system} ({expected})").format(system=c.name, expected=c.expected_text())
            for c in pending
        )
        if clusters:
            notes.append(
                _("Not yet in production, so not a target: {systems}.").format(
                    systems=named
                )
            )
        else:
            against.append(
                _("{route} offers no system in production yet: {systems}.").format(
                    route=route.label, systems=named
                )
            )
    if profile.accelerator in ("nvidia", "amd"):
        preferred = [c for c in clusters if vendor(c) == profile.accelerator]
        if clusters and not preferred:
            against.append(
                _("{route} offers no {vendor} system.").format(
                    route=route.label, vendor=ACCELERATORS[profile.accelerator]
                )
            )
        clusters = preferred

    options: list[SystemOption] = []
    bound_reasons: list[str] = []
    estimated = False
    unit = route.unit if family is None else _unit(family, route)
    for cluster in clusters:
        hours, estimated = gpu_hours_on(profile, cluster)
        request = in_unit(hours, unit, cluster)
        if hours is not None:
            assert request is not None  # hours in the route's unit
            reason = _bounds_reason(route, family, hours, request)
            if reason:
                bound_reasons.append(reason)
                continue
        options.append(
            SystemOption(
                cluster.slug, cluster.name, cluster.gpu_model, hours, request, unit
            )
        )
    if clusters and not options and bound_reasons:
        against.append(bound_reasons[0])

    gpu_hours = min(
        (o.gpu_hours for o in options if o.gpu_hours is not None), default=None
    )
    if gpu_hours is None and not clusters:
        gpu_hours, estimated = gpu_hours_on(profile, None)

    # Cut-offs.
    cutoffs = data.cutoffs_of(route.slug)
    upcoming = data.next_cutoff(route.slug, now)
    late = False
    if route.continuous:
        notes.append(_marked(_("Open all year: no cut-off."), route, "continuous"))
    elif upcoming is None and cutoffs and route.recurring:
        notes.append(
            _marked(
                _(
                    "Its cut-offs recur and the next one is not published yet: "
                    "ask the call's help desk."
                ),
                route,
                "recurring",
            )
        )
    elif upcoming is None and cutoffs:
        against.append(
            _("Its last published cut-off, {date}, has passed.").format(
                date=cutoffs[-1].date.isoformat()
            )
        )
    elif upcoming is None:
        notes.append(_("No dated cut-off is published: ask the call's help desk."))
    elif profile.needed_by and upcoming.date > profile.needed_by:
        late = True
        notes.append(_("Its next cut-off is after the date you need the compute."))
    if route.access:
        notes.append(
            _marked(
                _("Typical time to access: {access}").format(access=route.access),
                route,
                "access",
            )
        )

    return Decision(
        route=route,
        fits=not against,
        reasons=tuple(against) if against else tuple(notes),
        systems=tuple(options),
        next_cutoff=upcoming,
        gpu_hours=gpu_hours,
        estimated=estimated,
        late=late,
    )


def _marked(text: str, route: Route, fact: str) -> str:
    """``text`` with "(unverified)" when no public document states ``fact``."""
    source = route.sources.get(fact)
    if source is not None and source.verified:
        return text
    marker = _("(unverified)")
    return f"{text} {marker}"


def _unit(family: FamilyTerms, route: Route) -> str:
    mode = family.mode(route.mode)
    return mode.request_unit if mode else route.unit


def route_profile(
    profile: Profile,
    *,
    data: RouteData,
    terms: CallTerms,
    catalogue: Catalogue,
    countries: Countries | None = None,
    now: datetime | None = None,
) -> tuple[tuple[Decision, ...], tuple[Decision, ...]]:
    """``(fitting, not fitting)``: the fitting routes ranked (in time for the date
    the compute is needed first, then routes open all year, then the sooner
    cut-off, then the data's order); the others in the data's order."""
    now = now or datetime.now(UTC)
    decisions = [
        decide(
            r,
            profile,
            data=data,
            terms=terms,
            catalogue=catalogue,
            countries=countries,
            now=now,
        )
        for r in data.routes
    ]
    fitting = sorted(
        (d for d in decisions if d.fits),
        key=lambda d: (
            d.late,
            not d.route.continuous,
            d.next_cutoff.moment if d.next_cutoff else datetime.max.replace(tzinfo=UTC),
            d.route.position,
        ),
    )
    return tuple(fitting), tuple(d for d in decisions if not d.fits)


def proposal_route(
    data: RouteData, *, family: str, hours: float | None, terms: CallTerms
) -> Route | None:
    """The route a proposal is on: its family's mode for its GPU-hours (the only
    route of a family without tiers)."""
    family_terms = terms.get(family)
    mode = None
    if family_terms is not None and family_terms.tiered:
        mode = tier_for_hours(hours, family_terms)
        if mode is None:
            return None
    return data.route_for(family, mode)
