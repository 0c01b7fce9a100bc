"""The paste control's one read: how many rows the last paste added (for "Undo
paste"), from the session."""

from django import template

from proposals.views.paste import last_paste

register = template.Library()


@register.simple_tag(takes_context=True)
def last_paste_count(context, proposal, kind) -> int:
    request = context.get("request")
    if request is None or proposal is None:
        return 0
    return len(last_paste(request, proposal.pk, kind))
