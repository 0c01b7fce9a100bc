"""The routes and cut-offs as the router reads them (four queries, no caching:
the admin's edits apply from the next page load). The pages that show a proposal's
next cut-off at every view read this process's copy (``reference_data.cached_routes``,
forgotten on every edit)."""

from proposals.domain.routes import RouteData, load_routes
from proposals.models import AccessRoute, Cutoff, ProposalRoute

ROUTE_FIELDS = [
    "slug",
    "label",
    "position",
    "family",
    "mode",
    "continuous",
    "recurring",
    "url",
    "who",
    "evidence",
    "evaluation",
    "access",
    "requires_experience",
    "min_model_params",
    "countries",
    "eligible_kinds",
    "eligible_country_statuses",
    "unit",
    "min_request",
    "max_request",
    "sources",
]


def routes_data() -> RouteData:
    """Every route (with its systems' slugs) and every cut-off."""
    routes = []
    for route in AccessRoute.objects.prefetch_related("systems"):
        row = {name: getattr(route, name) for name in ROUTE_FIELDS}
        row["systems"] = [c.slug for c in route.systems.all()]
        routes.append(row)
    cutoffs = [
        {
            "route": cutoff.route.slug,
            "date": cutoff.date,
            "time": cutoff.time,
            "zone": cutoff.zone,
            "systems": [c.slug for c in cutoff.systems.all()],
            "source": cutoff.source,
            "checked": cutoff.checked.isoformat(),
        }
        for cutoff in Cutoff.objects.select_related("route").prefetch_related("systems")
    ]
    return load_routes({"routes": routes, "cutoffs": cutoffs})


def route_of_proposal(*, proposal) -> str | None:
    """The slug of the route ``proposal`` was started on from the router (read
    with it by ``review_get_for_staff``: no query then)."""
    if hasattr(proposal, "started_route"):
        return proposal.started_route
    return (
        ProposalRoute.objects.filter(proposal=proposal)
        .values_list("route__slug", flat=True)
        .first()
    )
