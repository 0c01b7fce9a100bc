"""The project's URLs plus the baselines for request benchmarks: a trivial view (also
as a signed-in user), and
the least a save can cost (one SELECT and one UPDATE of a proposal), both as an
anonymous GET and as the autosave itself arrives (an authenticated POST of the
step's inputs, the proposal read as its owner's)."""

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.views.decorators.http import require_POST

from aifactory.urls import urlpatterns as project_urlpatterns


def trivial(request):
    return TemplateResponse(request, "bench/trivial.html", {"name": "baseline"})


@login_required
def trivial_signed_in(request):
    """The trivial view for a signed-in user: the session and the user are read
    (what every staff page pays before its own work), then the trivial template."""
    return TemplateResponse(request, "bench/trivial.html", {"name": request.user})


def select_update(request, pk):
    """One SELECT and one UPDATE of a proposal, then the trivial template (no user:
    the session is never read)."""
    from proposals.models import Proposal

    revision = Proposal.objects.values_list("revision", flat=True).get(pk=pk)
    Proposal.objects.filter(pk=pk).update(updated_at=timezone.now())
    return TemplateResponse(request, "bench/trivial.html", {"name": revision})


@login_required
@require_POST
def owner_select_update(request, pk):
    """What every save must do before any work of its own: the request's user (its
    session), the posted form read, the owner's proposal selected and updated in one
    transaction, then the trivial template."""
    from proposals.models import Proposal

    with transaction.atomic():
        revision = (
            Proposal.objects.filter(pk=pk, owner=request.user, deleted_at__isnull=True)
            .values_list("revision", flat=True)
            .first()
        )
        if revision is None or "autosave" not in request.POST:
            raise Http404("No such proposal.")
        Proposal.objects.filter(pk=pk).update(
            revision=revision + 1, updated_at=timezone.now()
        )
    return TemplateResponse(request, "bench/trivial.html", {"name": revision})


urlpatterns = [
    path("bench/trivial/", trivial),
    path("bench/trivial-signed-in/", trivial_signed_in),
    path("bench/select-update/<int:pk>/", select_update),
    path("bench/owner-select-update/<int:pk>/", owner_select_update),
    *project_urlpatterns,
]
