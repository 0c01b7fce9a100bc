"""The wizard's scaling chart as an image of its own URL.

The URL is keyed by the hash of the data the chart shows, so its answer never
changes: the browser keeps it (``immutable``), an unchanged chart is never asked
for again, and the autosave that changed the data answers with the numbers without
waiting for a drawing. Only the proposal's team sees it (404 for anybody else,
like every page of a proposal).
"""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.views.decorators.http import require_GET

from proposals import charts, selectors
from proposals.domain.team import Capability
from proposals.evaluation import Evaluation
from proposals.views import member_proposal

KEY_LENGTH = charts.URL_KEY_LENGTH
# Private: the chart shows the applicant's figures; a year, never revalidated.
CACHE_CONTROL = "private, max-age=31536000, immutable"


@login_required
@require_GET
def scaling_chart(request, pk, key):
    """The SVG chart of proposal ``pk`` whose data hash to ``key``."""
    if not selectors.proposal_member_exists(user=request.user, pk=pk):
        raise Http404("No such proposal.")
    etag = f'"{key}"'
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        data = charts.stored(pk, key)
        if data is None:
            # Not noted in this cache (expired, or another process's cache): draw it
            # if the proposal still shows this chart.
            data = Evaluation.of(
                member_proposal(request, pk, may=Capability.READ)
            ).chart_data
            if data is None or charts.url_key(data) != key:
                raise Http404("No such chart.")
            charts.remember(pk, key, data)
        svg = charts.cached_chart(data, "svg")
        if svg is None:
            raise Http404("The chart could not be drawn.")
        response = HttpResponse(svg, content_type="image/svg+xml")
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    return response
