"""The help desk's own tools: canned replies, saved views of the queue, and what a
staff member's daily digest lists."""

from proposals.models import CannedReply


def canned_replies_for(*, language: str):
    """The canned replies in ``language`` (a ``settings.LANGUAGES`` code), by
    title; lazy, one query when read."""
    return CannedReply.objects.filter(language=language).only("pk", "title")


def canned_reply_get(*, pk, language: str) -> CannedReply | None:
    """The canned reply ``pk`` if it is in ``language``, else ``None``."""
    if not str(pk).isdigit():
        return None
    return CannedReply.objects.filter(pk=int(pk), language=language).first()
