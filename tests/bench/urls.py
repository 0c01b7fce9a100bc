"""The project's URLs plus a trivial view: the baseline for request benchmarks."""

from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone

from aifactory.urls import urlpatterns as project_urlpatterns


def trivial(request):
    return TemplateResponse(request, "bench/trivial.html", {"name": "baseline"})


def select_update(request, pk):
    """One SELECT and one UPDATE of a proposal, then the trivial template: the
    least a save can cost (the autosave's baseline)."""
    from proposals.models import Proposal

    revision = Proposal.objects.values_list("revision", flat=True).get(pk=pk)
    Proposal.objects.filter(pk=pk).update(updated_at=timezone.now())
    return TemplateResponse(request, "bench/trivial.html", {"name": revision})


urlpatterns = [
    path("bench/trivial/", trivial),
    path("bench/select-update/<int:pk>/", select_update),
    *project_urlpatterns,
]
