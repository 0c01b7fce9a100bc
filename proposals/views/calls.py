"""The call router (``/calls/``), starting a proposal on a route, and the cut-off
calendars (``/calls/cutoffs.ics``, a proposal's ``cutoff.ics``)."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from proposals import localization, routing, selectors, services
from proposals.domain.team import Capability
from proposals.forms.router import RouterForm
from proposals.models import AccessRoute, Cluster
from proposals.views import member_proposal
from proposals.views.accounts import time_zone

ICS = "text/calendar; charset=utf-8"


def _zone(request, form):
    chosen = form.cleaned_data.get("zone") if form.is_valid() else None
    return localization.zone_named(chosen) if chosen else time_zone(request)


@require_GET
def calls(request):
    """A few questions, answered by the routes that fit (ranked, each with its
    reason, systems and next cut-off in the reader's zone) and those that do not."""
    form = RouterForm(request.GET or None, zone=time_zone(request).key)
    fitting = others = None
    if form.is_bound and form.is_valid():
        fitting, others = routing.router_answer(
            form.profile(), zone=_zone(request, form), now=timezone.now()
        )
    return TemplateResponse(
        request,
        "proposals/calls.html",
        {
            "form": form,
            "fitting": fitting,
            "others": others,
            "answers": request.GET.urlencode(),
        },
    )


class StartForm(forms.Form):
    title = forms.CharField(label=gettext_lazy("Working title"), max_length=200)
    system = forms.ChoiceField(label=gettext_lazy("System"), required=False)


@login_required
@require_http_methods(["GET", "POST"])
def calls_start(request, route):
    """Start a proposal on ``route`` with the router's answers (kept in the address
    across the log-in): confirm the title and the system, then create it."""
    route = get_object_or_404(AccessRoute, slug=route)
    if not route.family:
        raise Http404("The wizard has no form for this route.")
    answers = RouterForm(request.GET, zone=time_zone(request).key)
    profile = answers.profile() if answers.is_valid() else None
    systems = list(route.systems.order_by("name"))
    form = StartForm(
        request.POST or None,
        initial={"system": request.GET.get("system", ""), "title": route.label},
    )
    # Systems not yet in production are not offered (the router names them,
    # with the date they are expected).
    form.fields["system"].choices = [("", _("Not decided yet"))] + [
        (c.slug, c.name) for c in systems if c.in_production
    ]
    if request.method == "POST" and form.is_valid():
        slug = form.cleaned_data["system"]
        proposal = services.proposal_create_on_route(
            owner=request.user,
            route=route,
            system=get_object_or_404(Cluster, slug=slug) if slug else None,
            title=form.cleaned_data["title"],
            organisation_kind=profile.organisation_kind if profile else "",
            country=profile.country if profile else "",
            gpu_hours=profile.gpu_hours if profile else None,
            experience=profile.experience if profile else "",
        )
        return redirect(proposal)
    return TemplateResponse(
        request,
        "proposals/calls_start.html",
        {"route": route, "form": form, "answers": request.GET.urlencode()},
    )


def _link(request):
    def link(route):
        return route.url or request.build_absolute_uri(reverse("proposals:calls"))

    return link


@require_GET
def cutoffs_ics(request):
    """Every published cut-off, one event each: a feed to subscribe to."""
    data = selectors.routes_data()
    body = routing.calendar(
        data.cutoffs,
        data,
        link=_link(request),
        stamp=timezone.now(),
        name=_("EuroHPC AI compute cut-offs"),
    )
    return HttpResponse(body, content_type=ICS)


@login_required
@require_GET
def proposal_cutoff_ics(request, pk):
    """The next cut-off of a proposal's route, to add to a calendar (without one,
    back to the proposal: the sidebar offers the link only when there is one)."""
    proposal = member_proposal(request, pk, may=Capability.READ, children=False)
    data = selectors.routes_data()
    route = routing.route_of(proposal, data)
    upcoming = data.next_cutoff(route.slug, timezone.now()) if route else None
    if upcoming is None:
        return redirect(proposal)
    body = routing.calendar(
        [upcoming],
        data,
        link=lambda r: request.build_absolute_uri(proposal.get_absolute_url()),
        stamp=timezone.now(),
        name=proposal.title,
    )
    response = HttpResponse(body, content_type=ICS)
    response["Content-Disposition"] = f'attachment; filename="cutoff-{pk}.ics"'
    return response
