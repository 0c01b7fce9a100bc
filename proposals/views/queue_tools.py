"""What the staff queue page shows of the desk's tools (bulk actions, saved views)."""

from django.http import QueryDict

from proposals import selectors
from proposals.review_forms import BulkForm, QueueFilterForm


def queue_tools(request) -> dict:
    """What the queue page shows of the desk's tools: the bulk action form, the
    colleagues to hand to and the reader's saved views (lazy: a query each, only
    when shown), and the filters a view would save."""
    return {
        "bulk_form": BulkForm(),
        "colleagues": selectors.staff_members(),
        "saved_views": selectors.saved_views_of(user=request.user),
        "filters_query": filters_query(request.GET.urlencode()),
    }


def filters_query(query: str) -> str:
    """``query`` with the queue's filters only (``QueueFilterForm``'s fields),
    re-encoded: what a saved view keeps."""
    given = QueryDict(query)
    kept = QueryDict(mutable=True)
    for name in QueueFilterForm.base_fields:
        values = [v for v in given.getlist(name) if v]
        if values:
            kept.setlist(name, values)
    return kept.urlencode()
