"""The rows of a proposal's tables as its request read them.

``selectors.proposal_get_for_editing`` reads every row of the four tables in one
query (``selectors.children.attach_rows``) and keeps them on the proposal as
``table_rows``; everything else (staff page, exports) prefetches the relations with
``prefetch_related``. Readers ask here, so either way a table is read once."""

ATTRIBUTE = "table_rows"


def rows_of(proposal, kind: str) -> list:
    """The rows of table ``kind`` (``codes``, ``measurements``, ``jobs``,
    ``schedule``) of ``proposal``, in their order."""
    attached = getattr(proposal, ATTRIBUTE, None)
    if attached is not None:
        return attached[kind]
    return list(getattr(proposal, kind).all())
