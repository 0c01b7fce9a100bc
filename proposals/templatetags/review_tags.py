"""Filters of the review pages."""

from django import template

from proposals.domain.fields import row_groups

register = template.Library()


@register.filter
def anchor_groups(rows):
    """``rows|anchor_groups``: a section's fields as ``(table row, fields)``
    pairs for the comment anchor's groups (``""``: the section's own fields)."""
    return row_groups(rows or ())
