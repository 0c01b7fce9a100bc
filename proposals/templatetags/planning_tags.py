"""Planning helpers for templates: how many rows the last paste or logs reading added
(for "Undo", from the session) and the GPU counts of the scaling kit (plain functions,
for the wizard's Jinja2 page); the kit's last run (``{% kit_last %}``, for the Django
scaling kit page)."""

from django import template

from proposals.selectors.scaling_kit import scaling_kit_last, scaling_kit_of
from proposals.views.paste import last_paste
from proposals.views.training_logs import last_added

register = template.Library()


def paste_count(request, proposal, kind) -> int:
    """How many rows the last paste into table ``kind`` added (for its Undo)."""
    if request is None or proposal is None:
        return 0
    return len(last_paste(request, proposal.pk, kind))


def logs_count(request, proposal) -> int:
    """How many rows the last "Add" from training logs stored (for its Undo)."""
    if request is None or proposal is None:
        return 0
    return sum(len(pks) for pks in last_added(request, proposal.pk).values())


def kit_counts(proposal) -> tuple[int, ...]:
    """The GPU counts the scaling kit of a saved ``proposal`` would measure."""
    if proposal is None or proposal.pk is None:
        return ()
    return scaling_kit_of(proposal=proposal, terms_query=False).counts


@register.simple_tag
def kit_last(proposal):
    """The last scaling kit handed out for ``proposal`` and the counts back."""
    if proposal is None or proposal.pk is None:
        return None
    return scaling_kit_last(proposal=proposal)
