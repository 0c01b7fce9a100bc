"""Writing a proposal together: how long a person counts as present, how often
their presence is noted, and how long ago something happened, as a person reads
it ("20 s ago")."""

from __future__ import annotations

from .i18n import gettext as _
from .numbers import grouped

# Seen within this long (a page load or an autosave): shown as present.
PRESENCE_WINDOW_SECONDS = 120
# A presence on the same step is noted again after this long, not at every
# autosave (one write per person and proposal at most this often).
PRESENCE_REFRESH_SECONDS = 20
# The key of the field stamp that says who wrote what nobody stamped: the owner
# when the first stamps were written (the proposal was theirs alone until then).
BEFORE_TEAM = "*"


def ago(seconds: float) -> str:
    """``20 s ago``, ``3 min ago``, ``2 h ago``, ``4 days ago``: how long ago,
    rounded down to a whole unit, in the person's language and number format."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return _("{n} s ago").format(n=grouped(seconds, 0))
    if seconds < 3600:
        return _("{n} min ago").format(n=grouped(seconds // 60, 0))
    if seconds < 86400:
        return _("{n} h ago").format(n=grouped(seconds // 3600, 0))
    days = seconds // 86400
    if days == 1:
        return _("1 day ago")
    return _("{n} days ago").format(n=grouped(days, 0))
