"""The project's URLs plus a trivial view: the baseline for request benchmarks."""

from django.template.response import TemplateResponse
from django.urls import path

from aifactory.urls import urlpatterns as project_urlpatterns


def trivial(request):
    return TemplateResponse(request, "bench/trivial.html", {"name": "baseline"})


urlpatterns = [path("bench/trivial/", trivial), *project_urlpatterns]
